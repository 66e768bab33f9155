import Foundation

// MARK: - EvaluationContext

/// State threaded through one evaluation: variable bindings and the caller's context dictionary.
package struct EvaluationContext {
    /// `$name` values.
    package var bindings: [String: Any]
    /// The dictionary passed to `NSExpression.expressionValue(with:context:)`, for block expressions.
    package var mutableContext: NSMutableDictionary?

    package init(bindings: [String: Any] = [:], mutableContext: NSMutableDictionary? = nil) {
        self.bindings = bindings
        self.mutableContext = mutableContext
    }
}

// MARK: - PredicateEvaluator

/// Evaluates predicate trees in memory, with Apple's semantics.
package enum PredicateEvaluator {
    /// Whether `object` satisfies `node`.
    package static func evaluate(_ node: PredicateNode, object: Any?, context: inout EvaluationContext) -> Bool {
        WorkCounter.count()
        switch node {
        case .constant(let value):
            return value
        case .block(let block):
            return block.body(object, context.bindings)
        case .compound(.and, let children):
            for child in children where !evaluate(child, object: object, context: &context) { return false }
            return true
        case .compound(.or, let children):
            for child in children where evaluate(child, object: object, context: &context) { return true }
            return false
        case .compound(.not, let children):
            guard let child = children.first else { return false }
            return !evaluate(child, object: object, context: &context)
        case .comparison(let comparison):
            return evaluate(comparison, object: object, context: &context)
        }
    }

    private static func evaluate(_ comparison: ComparisonNode, object: Any?, context: inout EvaluationContext) -> Bool {
        let lhs = ExpressionEvaluator.value(of: comparison.left, object: object, context: &context)
        let rhs = ExpressionEvaluator.value(of: comparison.right, object: object, context: &context)
        switch comparison.modifier {
        case .direct:
            return compare(lhs, rhs, comparison)
        case .any:
            guard let elements = PredicateValue.elements(lhs) else { return compareSingle(lhs, rhs, comparison) }
            return elements.values.contains { compare($0, rhs, comparison) }
        case .all:
            guard let elements = PredicateValue.elements(lhs) else { return compareSingle(lhs, rhs, comparison) }
            return elements.values.allSatisfy { compare($0, rhs, comparison) }
        }
    }

    /// `ANY`/`ALL` whose left side is not a collection (`ANY title CONTAINS 'x'`, `ANY trip.name
    /// == 'Paris'` through a to-one): the comparison of that one value, as Apple's SQLite store
    /// answers it (its in-memory evaluation raises instead; docs/Deviations.md). Nil, which is
    /// also what a collection behind a nil to-one reads as, has no element: false.
    private static func compareSingle(_ lhs: Any?, _ rhs: Any?, _ comparison: ComparisonNode) -> Bool {
        guard PredicateValue.unwrap(lhs) != nil else { return false }
        return compare(lhs, rhs, comparison)
    }

    /// Applies one operator to two evaluated values.
    package static func compare(_ lhs: Any?, _ rhs: Any?, _ comparison: ComparisonNode) -> Bool {
        let options = comparison.options
        let lhs = PredicateValue.unwrap(lhs), rhs = PredicateValue.unwrap(rhs)
        switch comparison.operatorType {
        case .equalTo:
            return ValueComparison.equal(lhs, rhs, options: options)
        case .notEqualTo:
            return !ValueComparison.equal(lhs, rhs, options: options)
        case .lessThan:
            return ValueComparison.compare(lhs, rhs, options: options) == .orderedAscending
        case .lessThanOrEqualTo:
            let order = ValueComparison.compare(lhs, rhs, options: options)
            return order == .orderedAscending || order == .orderedSame
        case .greaterThan:
            return ValueComparison.compare(lhs, rhs, options: options) == .orderedDescending
        case .greaterThanOrEqualTo:
            let order = ValueComparison.compare(lhs, rhs, options: options)
            return order == .orderedDescending || order == .orderedSame
        case .matches:
            guard let subject = PredicateValue.string(lhs), let pattern = PredicateValue.string(rhs) else { return false }
            return StringMatching.matches(subject, pattern: pattern, options: options)
        case .like:
            guard let subject = PredicateValue.string(lhs), let pattern = PredicateValue.string(rhs) else { return false }
            return StringMatching.like(subject, pattern: pattern, options: options)
        case .beginsWith:
            guard let subject = PredicateValue.string(lhs), let prefix = PredicateValue.string(rhs) else { return false }
            return StringMatching.beginsWith(subject, prefix, options: options)
        case .endsWith:
            guard let subject = PredicateValue.string(lhs), let suffix = PredicateValue.string(rhs) else { return false }
            return StringMatching.endsWith(subject, suffix, options: options)
        case .contains:
            return contains(container: lhs, element: rhs, options: options)
        case .in:
            return contains(container: rhs, element: lhs, options: options)
        case .between:
            guard let bounds = PredicateValue.elements(rhs), bounds.values.count == 2 else { return false }
            let lower = ValueComparison.compare(lhs, bounds.values[0], options: options)
            let upper = ValueComparison.compare(lhs, bounds.values[1], options: options)
            return (lower == .orderedDescending || lower == .orderedSame)
                && (upper == .orderedAscending || upper == .orderedSame)
        case .customSelector:
            return false
        }
    }

    /// `CONTAINS`/`IN`: membership in a collection or dictionary, or substring of a string.
    private static func contains(container: Any?, element: Any?, options: NSComparisonPredicate.Options) -> Bool {
        if let string = PredicateValue.string(container) {
            guard let needle = PredicateValue.string(element) else { return false }
            return StringMatching.contains(string, needle, options: options)
        }
        if let elements = PredicateValue.elements(container) {
            return ValueComparison.contains(elements, element, options: options)
        }
        if let values = PredicateValue.dictionaryValues(container) {
            return values.contains { ValueComparison.equal($0, element, options: options) }
        }
        return false
    }
}
