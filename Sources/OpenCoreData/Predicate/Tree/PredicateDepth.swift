import Foundation

// MARK: - PredicateDepth

/// Measures how deep a predicate tree is, without recursion.
///
/// Printing, evaluating, comparing and lowering a predicate recurse once per level of its tree,
/// so a tree's depth is what bounds their stack use. Every operator of a chain is a level:
/// `a + b + c` is two `+` levels over its leaves, `list[0][0]` two subscript levels. Trees
/// deeper than `maximumDepth` are refused: by the parser with a `PredicateFormatError`, by a
/// fetch with an `NSError`. The walk keeps its own stack and stops as soon as the limit is
/// passed, so measuring is linear in the tree's size and never overflows.
package enum PredicateDepth {
    /// The deepest tree a predicate may have (documented in docs/Predicates.md).
    package static let maximumDepth = 128

    private enum Item {
        case predicate(PredicateNode)
        case expression(ExpressionNode)
    }

    /// The depth of `node` (a leaf is 1), or `limit + 1` as soon as it is deeper than `limit`.
    package static func depth(of node: PredicateNode, limit: Int = maximumDepth) -> Int {
        measure([(.predicate(node), 1)], limit: limit)
    }

    /// The depth of `node` (a leaf is 1), or `limit + 1` as soon as it is deeper than `limit`.
    package static func depth(of node: ExpressionNode, limit: Int = maximumDepth) -> Int {
        measure([(.expression(node), 1)], limit: limit)
    }

    /// How many nodes `node` has, or `limit + 1` as soon as it has more than `limit`.
    package static func nodeCount(of node: PredicateNode, limit: Int) -> Int {
        measure([(.predicate(node), 1)], limit: limit, counting: true)
    }

    private static func measure(_ start: [(Item, Int)], limit: Int, counting: Bool = false) -> Int {
        var stack = start
        var deepest = 0
        var count = 0
        while let (item, level) = stack.popLast() {
            count += 1
            deepest = max(deepest, level)
            if (counting ? count : deepest) > limit { return limit + 1 }
            let below = level + 1
            switch item {
            case .predicate(let node):
                switch node {
                case .constant, .block:
                    break
                case .comparison(let comparison):
                    stack.append((.expression(comparison.left), below))
                    stack.append((.expression(comparison.right), below))
                case .compound(_, let children):
                    for child in children { stack.append((.predicate(child), below)) }
                }
            case .expression(let node):
                switch node {
                case .constant, .evaluatedObject, .variable, .anyKey:
                    break
                case .keyPath(let operand, _):
                    stack.append((.expression(operand), below))
                case .function(_, let arguments), .aggregate(let arguments), .block(_, let arguments):
                    for argument in arguments { stack.append((.expression(argument), below)) }
                case .customFunction(let operand, _, let arguments):
                    stack.append((.expression(operand), below))
                    for argument in arguments { stack.append((.expression(argument), below)) }
                case .set(_, let lhs, let rhs), .fetchRequest(let lhs, let rhs, _):
                    stack.append((.expression(lhs), below))
                    stack.append((.expression(rhs), below))
                case .subquery(let collection, _, let predicate):
                    stack.append((.expression(collection), below))
                    stack.append((.predicate(predicate), below))
                case .conditional(let predicate, let whenTrue, let whenFalse):
                    stack.append((.predicate(predicate), below))
                    stack.append((.expression(whenTrue), below))
                    stack.append((.expression(whenFalse), below))
                }
            }
        }
        return counting ? count : deepest
    }
}
