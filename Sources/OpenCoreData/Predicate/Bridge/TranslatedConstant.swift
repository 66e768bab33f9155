import Foundation

// MARK: - TranslatedConstant

/// Helpers shared by the `#Predicate` node translations.
package enum TranslatedConstant {
    /// Whether a captured value can be an `NSPredicate` constant (Apple rejects custom structs).
    package static func isSupported(_ value: Any?) -> Bool {
        guard let value else { return true }
        if PredicateNumber(value) != nil || PredicateValue.string(value) != nil || PredicateValue.date(value) != nil {
            return true
        }
        switch value {
        case is Data, is NSData, is UUID, is NSUUID, is URL, is NSURL, is any RangeValue:
            return true
        default:
            break
        }
        if let elements = PredicateValue.elements(value) {
            return elements.values.allSatisfy { isSupported(PredicateValue.unwrap($0)) }
        }
        return type(of: value) is AnyObject.Type
    }

    /// Converts Swift-only constant types to predicate ones (`Character` → `String`).
    package static func normalize(_ value: Any?) -> Any? {
        if let character = value as? Character { return String(character) }
        if let substring = value as? Substring { return String(substring) }
        return value
    }

    /// `lhs AND rhs`, flattening nested chains of the same connective.
    package static func combine(_ kind: CompoundKind, _ lhs: PredicateNode, _ rhs: PredicateNode) -> PredicateNode {
        var operands: [PredicateNode] = []
        for operand in [lhs, rhs] {
            if case .compound(kind, let children) = operand { operands += children } else { operands.append(operand) }
        }
        return .compound(kind, operands)
    }

    /// `SUBQUERY(collection, $name, test).@count <op> 0`.
    package static func subqueryCount(
        _ collection: ExpressionNode, _ name: String, _ test: PredicateNode,
        operatorType: NSComparisonPredicate.Operator
    ) -> PredicateNode {
        .comparison(ComparisonNode(
            left: .keyPath(.subquery(collection, name, test), "@count"), right: .constant(0), operatorType: operatorType))
    }

    /// Rewrites `$x.key op value` (where only one side mentions `$x`) as `ANY collection.key op value`.
    package static func aggregateComparison(
        _ test: PredicateNode, variable: String, collection: ExpressionNode, modifier: NSComparisonPredicate.Modifier
    ) -> PredicateNode? {
        guard case .comparison(var comparison) = test, comparison.modifier == .direct else { return nil }
        // Only `$x` or `$x.key` on one side qualifies; deciding that first walks one operand at
        // most, so nested `contains(where:)` levels (each a SUBQUERY count) cost one step each
        // rather than a walk of everything nested below them.
        if !isElement(comparison.left, variable) {
            guard isElement(comparison.right, variable), let flipped = flip(comparison.operatorType),
                  !mentions(comparison.left, variable) else { return nil }
            swap(&comparison.left, &comparison.right)
            comparison.operatorType = flipped
        }
        guard !mentions(comparison.right, variable) else { return nil }
        switch comparison.left {
        case .variable(variable):
            comparison.left = collection
        case .keyPath(.variable(variable), let path):
            comparison.left = PredicateParser.appendKey(path, to: collection)
        default:
            return nil
        }
        comparison.modifier = modifier
        return .comparison(comparison)
    }

    private static func flip(_ operatorType: NSComparisonPredicate.Operator) -> NSComparisonPredicate.Operator? {
        switch operatorType {
        case .equalTo, .notEqualTo: operatorType
        case .lessThan: .greaterThan
        case .lessThanOrEqualTo: .greaterThanOrEqualTo
        case .greaterThan: .lessThan
        case .greaterThanOrEqualTo: .lessThanOrEqualTo
        default: nil
        }
    }

    /// Whether `expression` is `$variable` or `$variable.key`.
    private static func isElement(_ expression: ExpressionNode, _ variable: String) -> Bool {
        switch expression {
        case .variable(variable), .keyPath(.variable(variable), _): true
        default: false
        }
    }

    /// Whether an expression refers to `$variable` anywhere, `SUBQUERY` and `TERNARY`
    /// predicates included.
    ///
    /// One walk over the tree, stopping at the first mention. (It used to run a second walk
    /// from every nested `SUBQUERY`, which the first walk already entered: twice the work per
    /// nesting level, exponential in the depth.)
    package static func mentions(_ expression: ExpressionNode, _ variable: String) -> Bool {
        var pending: [PredicateDepth.Item] = [.expression(expression)]
        while let item = pending.popLast() {
            WorkCounter.count()
            switch item {
            case .expression(.variable(let name)):
                if name == variable { return true }
            default:
                PredicateDepth.forEachChild(of: item) { pending.append($0) }
            }
        }
        return false
    }

    /// The bounds of a range node or of a captured Swift range.
    package static func bounds(
        of range: Any, _ state: inout PredicateTranslation
    ) throws(PredicateTranslationError) -> (lower: ExpressionNode, upper: ExpressionNode, isClosed: Bool)? {
        if let node = range as? any RangeBoundsTranslatable { return try node.bounds(&state) }
        guard case .constant(let value) = try state.expression(range), let captured = value as? any RangeValue else {
            return nil
        }
        return (.constant(captured.lowerBoundValue), .constant(captured.upperBoundValue), captured.isClosed)
    }
}
