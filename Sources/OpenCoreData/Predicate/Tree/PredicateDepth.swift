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

    /// A node of either kind, for walks that keep their own stack.
    package enum Item {
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
            forEachChild(of: item) { stack.append(($0, below)) }
        }
        return counting ? count : deepest
    }

    /// Calls `body` with each direct child of `item`: operands, arguments, subpredicates, and a
    /// `SUBQUERY`'s collection and predicate.
    package static func forEachChild(of item: Item, _ body: (Item) -> Void) {
        switch item {
        case .predicate(let node):
            switch node {
            case .constant, .block:
                break
            case .comparison(let comparison):
                body(.expression(comparison.left))
                body(.expression(comparison.right))
            case .compound(_, let children):
                for child in children { body(.predicate(child)) }
            }
        case .expression(let node):
            switch node {
            case .constant, .evaluatedObject, .variable, .anyKey:
                break
            case .keyPath(let operand, _):
                body(.expression(operand))
            case .function(_, let arguments), .aggregate(let arguments), .block(_, let arguments):
                for argument in arguments { body(.expression(argument)) }
            case .customFunction(let operand, _, let arguments):
                body(.expression(operand))
                for argument in arguments { body(.expression(argument)) }
            case .set(_, let lhs, let rhs), .fetchRequest(let lhs, let rhs, _):
                body(.expression(lhs))
                body(.expression(rhs))
            case .subquery(let collection, _, let predicate):
                body(.expression(collection))
                body(.predicate(predicate))
            case .conditional(let predicate, let whenTrue, let whenFalse):
                body(.predicate(predicate))
                body(.expression(whenTrue))
                body(.expression(whenFalse))
            }
        }
    }
}
