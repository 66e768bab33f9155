import Foundation

// MARK: - PredicateNode

/// The internal tree behind every `NSPredicate`.
///
/// The public classes (`NSPredicate`, `NSComparisonPredicate`, `NSCompoundPredicate`) are thin,
/// immutable views over this value. Evaluation, printing, equality and (later) SQL lowering all
/// walk this enum, so a lowering pass only needs `PredicateNode`, `ComparisonNode` and
/// `ExpressionNode`.
package indirect enum PredicateNode {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    /// `lhs op rhs`, with an optional `ANY`/`ALL` modifier and string options.
    case comparison(ComparisonNode)
    /// `AND`, `OR` (any number of operands) or `NOT` (exactly one operand).
    case compound(CompoundKind, [PredicateNode])
    /// A predicate backed by a Swift closure (`NSPredicate(block:)`); never lowered to SQL.
    case block(PredicateBlock)
}

// MARK: - CompoundKind

/// The logical connective of a compound predicate; raw values match `NSCompoundPredicate.LogicalType`.
package enum CompoundKind: UInt, Sendable {
    case not = 0
    case and = 1
    case or = 2
}

// MARK: - ComparisonNode

/// One comparison: `leftExpression <op>[options] rightExpression`, optionally under `ANY`/`ALL`.
package struct ComparisonNode {
    package var left: ExpressionNode
    package var right: ExpressionNode
    package var operatorType: NSComparisonPredicate.Operator
    package var modifier: NSComparisonPredicate.Modifier
    package var options: NSComparisonPredicate.Options
    /// The selector name when `operatorType == .customSelector`; never evaluated on Linux.
    package var customSelector: String?

    package init(
        left: ExpressionNode,
        right: ExpressionNode,
        operatorType: NSComparisonPredicate.Operator,
        modifier: NSComparisonPredicate.Modifier = .direct,
        options: NSComparisonPredicate.Options = [],
        customSelector: String? = nil
    ) {
        self.left = left
        self.right = right
        self.operatorType = operatorType
        self.modifier = modifier
        self.options = options
        self.customSelector = customSelector
    }
}

// MARK: - PredicateBlock

/// A closure predicate. Compared by identity of its box.
package final class PredicateBlock: Sendable {
    package let body: @Sendable (Any?, [String: Any]?) -> Bool

    package init(_ body: @escaping @Sendable (Any?, [String: Any]?) -> Bool) {
        self.body = body
    }
}

// MARK: - Traversal

extension PredicateNode {
    /// Returns a copy where `transform` rewrote every expression, bottom-up.
    ///
    /// Used for substitution variables; a SQL lowering can use the same shape.
    package func mapExpressions(_ transform: (ExpressionNode) -> ExpressionNode) -> PredicateNode {
        switch self {
        case .constant, .block:
            return self
        case .comparison(var comparison):
            comparison.left = comparison.left.map(transform)
            comparison.right = comparison.right.map(transform)
            return .comparison(comparison)
        case .compound(let kind, let children):
            return .compound(kind, children.map { $0.mapExpressions(transform) })
        }
    }

    /// The node with single-operand `AND`/`OR` collapsed and empty ones turned into constants.
    ///
    /// Structural equality compares canonical forms, because `predicateFormat` prints
    /// `AND[p]` as `p` and `AND[]` as `TRUEPREDICATE`, exactly as Apple does.
    package var canonical: PredicateNode {
        switch self {
        case .constant, .block:
            return self
        case .comparison(var comparison):
            comparison.left = comparison.left.canonical
            comparison.right = comparison.right.canonical
            return .comparison(comparison)
        case .compound(.not, let children):
            return .compound(.not, children.map(\.canonical))
        case .compound(let kind, let children):
            if children.isEmpty { return .constant(kind == .and) }
            if children.count == 1, let only = children.first { return only.canonical }
            return .compound(kind, children.map(\.canonical))
        }
    }
}
