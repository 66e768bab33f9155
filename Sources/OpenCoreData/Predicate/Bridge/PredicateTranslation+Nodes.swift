import Foundation

// MARK: - Values and variables

extension PredicateExpressions.Value: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let constant = PredicateValue.unwrap(value)
        guard TranslatedConstant.isSupported(constant) else {
            throw PredicateTranslationError(
                nodeType: String(describing: type(of: self)),
                message: "a captured value of type \(type(of: value)) cannot be used in an NSPredicate")
        }
        return .expression(.constant(TranslatedConstant.normalize(constant)))
    }
}

extension PredicateExpressions.NilLiteral: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        .expression(.constant(nil))
    }
}

extension PredicateExpressions.Variable: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        guard let bound = state.bindings[key] else {
            throw PredicateTranslationError(nodeType: String(describing: type(of: self)), message: "unbound variable")
        }
        return .expression(bound)
    }
}

// MARK: - Key paths

extension PredicateExpressions.KeyPath: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let base = try state.expression(root)
        let isString = Root.Output.self is any StringProtocol.Type
        switch kind {
        case .collectionCount:
            return .expression(PredicateParser.appendKey(isString ? "length" : "@count", to: base))
        case .collectionIsEmpty:
            let count = PredicateParser.appendKey(isString ? "length" : "@count", to: base)
            return .predicate(.comparison(ComparisonNode(left: count, right: .constant(0), operatorType: .equalTo)))
        case .collectionFirst:
            return .expression(.function(BuiltinFunction.indexFunction, [base, .constant(PredicateIndexSymbol.first)]))
        case .bidirectionalCollectionLast:
            return .expression(.function(BuiltinFunction.indexFunction, [base, .constant(PredicateIndexSymbol.last)]))
        case nil:
            break
        }
        guard let name = KeyPathName.name(of: keyPath as AnyKeyPath) else {
            if type(of: keyPath as AnyKeyPath).rootType is any KeyPathNameProviding.Type {
                // A `@Managed` property before its model is loaded: named when a fetch runs.
                return .expression(LateKeyPathName(keyPath).expression(on: base))
            }
            throw PredicateTranslationError(
                nodeType: String(describing: type(of: self)),
                message: "the key path \(keyPath) has no key-value coding name (computed property or subscript)")
        }
        return .expression(name == "self" ? base : PredicateParser.appendKey(name, to: base))
    }
}

// MARK: - Comparisons

extension PredicateExpressions.Equal: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .predicate(.comparison(ComparisonNode(left: state.expression(lhs), right: state.expression(rhs), operatorType: .equalTo)))
    }
}

extension PredicateExpressions.NotEqual: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .predicate(.comparison(ComparisonNode(left: state.expression(lhs), right: state.expression(rhs), operatorType: .notEqualTo)))
    }
}

extension PredicateExpressions.Comparison: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let operatorType: NSComparisonPredicate.Operator
        switch op {
        case .lessThan: operatorType = .lessThan
        case .lessThanOrEqual: operatorType = .lessThanOrEqualTo
        case .greaterThan: operatorType = .greaterThan
        case .greaterThanOrEqual: operatorType = .greaterThanOrEqualTo
        }
        return try .predicate(.comparison(ComparisonNode(left: state.expression(lhs), right: state.expression(rhs), operatorType: operatorType)))
    }
}

// MARK: - Logic

extension PredicateExpressions.Conjunction: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .predicate(TranslatedConstant.combine(.and, state.predicate(lhs), state.predicate(rhs)))
    }
}

extension PredicateExpressions.Disjunction: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .predicate(TranslatedConstant.combine(.or, state.predicate(lhs), state.predicate(rhs)))
    }
}

extension PredicateExpressions.Negation: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .predicate(.compound(.not, [state.predicate(wrapped)]))
    }
}

extension PredicateExpressions.Conditional: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let condition = try state.predicate(test)
        let whenTrue = try state.translate(trueBranch)
        let whenFalse = try state.translate(falseBranch)
        guard whenTrue.isBoolean && whenFalse.isBoolean else {
            return .expression(.conditional(condition, whenTrue.expression, whenFalse.expression))
        }
        return .predicate(.compound(.or, [
            .compound(.and, [condition, whenTrue.predicate]),
            .compound(.and, [.compound(.not, [condition]), whenFalse.predicate]),
        ]))
    }
}

// MARK: - Arithmetic

extension PredicateExpressions.Arithmetic: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let name: String
        switch op {
        case .add: name = "add:to:"
        case .subtract: name = "from:subtract:"
        case .multiply: name = "multiply:by:"
        }
        return try .expression(.function(name, [state.expression(lhs), state.expression(rhs)]))
    }
}

extension PredicateExpressions.FloatDivision: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .expression(.function("divide:by:", [state.expression(lhs), state.expression(rhs)]))
    }
}

extension PredicateExpressions.IntDivision: NSPredicateTranslatable {
    /// Swift's integer division truncates, so the quotient is wrapped in `trunc:`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .expression(.function("trunc:", [.function("divide:by:", [state.expression(lhs), state.expression(rhs)])]))
    }
}

extension PredicateExpressions.IntRemainder: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try .expression(.function("modulus:by:", [state.expression(lhs), state.expression(rhs)]))
    }
}

extension PredicateExpressions.UnaryMinus: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let operand = try state.expression(wrapped)
        if case .constant(let value) = operand, let number = PredicateNumber(value),
           let negated = PredicateNumber.int(0).applying(.subtract, number) {
            return .expression(.constant(negated.value))
        }
        return .expression(.function("from:subtract:", [.constant(0), operand]))
    }
}

// MARK: - Optionals

extension PredicateExpressions.OptionalFlatMap: NSPredicateTranslatable {
    /// `a?.b` → `a.b`: key paths through `nil` already give `nil` in `NSPredicate`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let base = try state.expression(wrapped)
        return try state.with(variable.key, boundTo: base) { state throws(PredicateTranslationError) in
            try state.translate(transform)
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: NSPredicateTranslatable {
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        try state.translate(inner)
    }
}

extension PredicateExpressions.NilCoalesce: NSPredicateTranslatable {
    /// `a ?? b` → `TERNARY(a != nil, a, b)`.
    package func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm {
        let value = try state.expression(lhs)
        let fallback = try state.expression(rhs)
        let isPresent = PredicateNode.comparison(ComparisonNode(left: value, right: .constant(nil), operatorType: .notEqualTo))
        return .expression(.conditional(isPresent, value, fallback))
    }
}
