import Foundation

// MARK: - Strings

extension PredicateExpressions.CollectionContainsCollection: NSPredicateTranslatable {
    /// `title.contains("x")` → `title CONTAINS "x"` (strings only).
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        guard Base.Output.self is any StringProtocol.Type else { throw .unsupported(self) }
        return try .predicate(.comparison(ComparisonNode(left: state.expression(base), right: state.expression(other), operatorType: .contains)))
    }
}

extension PredicateExpressions.SequenceStartsWith: NSPredicateTranslatable {
    /// `title.starts(with: "x")` → `title BEGINSWITH "x"` (strings only).
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        guard Base.Output.self is any StringProtocol.Type else { throw .unsupported(self) }
        return try .predicate(.comparison(ComparisonNode(left: state.expression(base), right: state.expression(prefix), operatorType: .beginsWith)))
    }
}

// MARK: - Sequences

extension PredicateExpressions.SequenceContains: NSPredicateTranslatable {
    /// `tags.contains(x)` → `x IN tags`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .predicate(.comparison(ComparisonNode(left: state.expression(element), right: state.expression(sequence), operatorType: .in)))
    }
}

extension PredicateExpressions.SequenceContainsWhere: NSPredicateTranslatable {
    /// `tags.contains { $0.name == "x" }` → `ANY tags.name == "x"`, or a `SUBQUERY` when the test is more complex.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let collection = try state.expression(sequence)
        let name = state.makeVariableName()
        let test = try state.with(variable.key, boundTo: .variable(name)) { state throws(PredicateTranslationError) in
            try state.predicate(self.test)
        }
        if let simple = TranslatedConstant.aggregateComparison(test, variable: name, collection: collection, modifier: .any) {
            return .predicate(simple)
        }
        return .predicate(TranslatedConstant.subqueryCount(collection, name, test, operatorType: .greaterThan))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: NSPredicateTranslatable {
    /// `tags.allSatisfy { $0.done }` → `ALL tags.done == 1`, or a `SUBQUERY(…, NOT test).@count == 0`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let collection = try state.expression(sequence)
        let name = state.makeVariableName()
        let test = try state.with(variable.key, boundTo: .variable(name)) { state throws(PredicateTranslationError) in
            try state.predicate(self.test)
        }
        if let simple = TranslatedConstant.aggregateComparison(test, variable: name, collection: collection, modifier: .all) {
            return .predicate(simple)
        }
        return .predicate(TranslatedConstant.subqueryCount(collection, name, .compound(.not, [test]), operatorType: .equalTo))
    }
}

extension PredicateExpressions.Filter: NSPredicateTranslatable {
    /// `tags.filter { … }` → `SUBQUERY(tags, $x, …)`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let collection = try state.expression(sequence)
        let name = state.makeVariableName()
        let test = try state.with(variable.key, boundTo: .variable(name)) { state throws(PredicateTranslationError) in
            try state.predicate(self.filter)
        }
        return .expression(.subquery(collection, name, test))
    }
}

extension PredicateExpressions.SequenceMinimum: NSPredicateTranslatable {
    /// `scores.min()` → `min:(scores)`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .expression(.function("min:", [state.expression(elements)]))
    }
}

extension PredicateExpressions.SequenceMaximum: NSPredicateTranslatable {
    /// `scores.max()` → `max:(scores)`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .expression(.function("max:", [state.expression(elements)]))
    }
}

extension PredicateExpressions.CollectionIndexSubscript: NSPredicateTranslatable {
    /// `scores[0]` → `scores[0]`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .expression(.function(BuiltinFunction.indexFunction, [state.expression(wrapped), state.expression(index)]))
    }
}

extension PredicateExpressions.DictionaryKeySubscript: NSPredicateTranslatable {
    /// `info["key"]` → `info["key"]`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .expression(.function(BuiltinFunction.indexFunction, [state.expression(wrapped), state.expression(key)]))
    }
}

// MARK: - Ranges

extension PredicateExpressions.RangeExpressionContains: NSPredicateTranslatable {
    /// `(1...5).contains(n)` → `n BETWEEN {1, 5}`; `(1..<5)` → `n >= 1 AND n < 5`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let value = try state.expression(element)
        guard let bounds = try TranslatedConstant.bounds(of: range, &state) else { throw .unsupported(range) }
        if bounds.isClosed {
            return .predicate(.comparison(ComparisonNode(
                left: value, right: .aggregate([bounds.lower, bounds.upper]), operatorType: .between)))
        }
        return .predicate(.compound(.and, [
            .comparison(ComparisonNode(left: value, right: bounds.lower, operatorType: .greaterThanOrEqualTo)),
            .comparison(ComparisonNode(left: value, right: bounds.upper, operatorType: .lessThan)),
        ]))
    }
}

/// Range nodes give their bounds to `RangeExpressionContains`.
package protocol RangeBoundsTranslatable {
    func bounds(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> (lower: ExpressionNode, upper: ExpressionNode, isClosed: Bool)
}

extension PredicateExpressions.ClosedRange: RangeBoundsTranslatable {
    package func bounds(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> (lower: ExpressionNode, upper: ExpressionNode, isClosed: Bool) {
        try (state.expression(lower), state.expression(upper), true)
    }
}

extension PredicateExpressions.Range: RangeBoundsTranslatable {
    package func bounds(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> (lower: ExpressionNode, upper: ExpressionNode, isClosed: Bool) {
        try (state.expression(lower), state.expression(upper), false)
    }
}

/// Captured Swift ranges (`let r = 1...5` used in a `#Predicate`).
package protocol RangeValue {
    var lowerBoundValue: Any { get }
    var upperBoundValue: Any { get }
    var isClosed: Bool { get }
}

extension ClosedRange: RangeValue {
    package var lowerBoundValue: Any { lowerBound }
    package var upperBoundValue: Any { upperBound }
    package var isClosed: Bool { true }
}

extension Range: RangeValue {
    package var lowerBoundValue: Any { lowerBound }
    package var upperBoundValue: Any { upperBound }
    package var isClosed: Bool { false }
}
