import Foundation

// MARK: - SQLLowerable

/// A predicate-tree node that translates itself to SQL, node by node, with the translation
/// state passed `inout` (DESIGN.md, Style 4).
///
/// `PredicateNode` lowers to an `SQLCondition`, `ExpressionNode` to an `SQLOperand`, and
/// `ComparisonNode` to an `SQLCondition`. A node whose SQL would not give exactly the in-memory
/// result throws `SQLTranslationError.unsupported`, naming it; the store then reports the
/// request as not evaluated natively and the context evaluates it in memory.
package protocol SQLLowerable {
    associatedtype Lowered
    func lower(_ state: inout SQLTranslationState) throws(SQLTranslationError) -> Lowered
}

// MARK: - Predicates

extension PredicateNode: SQLLowerable {
    package func lower(_ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLCondition {
        WorkCounter.count()
        switch self {
        case .constant(let value):
            return .constant(value)
        case .block:
            throw .unsupported("BLOCKPREDICATE", "a Swift closure runs only in memory")
        case .compound(.and, let children):
            var lowered: [SQLCondition] = []
            for child in children { lowered.append(try child.lower(&state)) }
            return .all(lowered)
        case .compound(.or, let children):
            var lowered: [SQLCondition] = []
            for child in children { lowered.append(try child.lower(&state)) }
            return .any(lowered)
        case .compound(.not, let children):
            // Memory negates the first operand only (and an empty NOT is false).
            guard let child = children.first else { return .constant(false) }
            return try child.lower(&state).negated(in: state.dialect)
        case .comparison(let comparison):
            return try comparison.lower(&state)
        }
    }

    /// Whether the predicate reads nothing from the row (so it can be evaluated once, in memory).
    package func isConstant(bound variables: Set<String>) -> Bool {
        WorkCounter.count()
        return switch self {
        case .constant: true
        case .block: false
        case .compound(_, let children): children.allSatisfy { $0.isConstant(bound: variables) }
        case .comparison(let comparison):
            comparison.left.isConstant(bound: variables) && comparison.right.isConstant(bound: variables)
        }
    }
}

// MARK: - Expressions

extension ExpressionNode: SQLLowerable {
    package func lower(_ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLOperand {
        WorkCounter.count()
        if isConstant(bound: Set(state.variables.keys)) {
            var context = EvaluationContext()
            return .constant(ExpressionEvaluator.value(of: self, object: nil, context: &context))
        }
        switch self {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            if state.resultColumns != nil { throw .unsupported("SELF", "it stands for a whole result row") }
            return .object(state.evaluatedObject)
        case .keyPath(.evaluatedObject, let path) where state.resultColumns != nil:
            return try state.resolveResultKey(path)
        case .variable(let name):
            return state.variables[name] ?? .constant(nil)
        case .keyPath(let operand, let path):
            let base = try operand.lower(&state)
            if case .collection(let collection) = base {
                return try state.resolve(path, in: collection)
            }
            return try state.resolve(path, from: base)
        case .function(let name, let arguments):
            return try SQLFunctionLowering.lower(name, arguments, &state)
        case .customFunction, .anyKey:
            return .constant(nil)
        case .aggregate(let elements):
            var lowered: [SQLOperand] = []
            for element in elements { lowered.append(try element.lower(&state)) }
            return .list(lowered)
        case .set(let operation, _, _):
            throw .unsupported(operation.keyword, "set expressions over stored values")
        case .subquery(let collection, let variable, let predicate):
            return try SQLFunctionLowering.subquery(collection, variable, predicate, &state)
        case .block(let block, let arguments):
            // A Swift key path made before the model was loaded reads a key path once it has a name.
            if let late = block.lateKeyPath, let base = arguments.first, let name = late.resolved {
                return try (name == "self" ? base : PredicateParser.appendKey(name, to: base)).lower(&state)
            }
            throw .unsupported("BLOCK expression", "a Swift closure runs only in memory")
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return try SQLFunctionLowering.ternary(predicate, whenTrue, whenFalse, &state)
        case .fetchRequest:
            throw .unsupported("FETCH expression", "a fetch request expression runs only in memory")
        }
    }

    /// Whether the expression reads nothing from the row: constants, functions of constants
    /// (`now()` included, `random()` not), unbound variables (nil in memory), `ANYKEY`, `FUNCTION`.
    package func isConstant(bound variables: Set<String>) -> Bool {
        WorkCounter.count()
        switch self {
        case .constant, .customFunction, .anyKey:
            return true
        case .evaluatedObject, .block, .fetchRequest:
            return false
        case .variable(let name):
            return !variables.contains(name)
        case .keyPath(let operand, _):
            return operand.isConstant(bound: variables)
        case .function(let name, let arguments):
            return name != "random" && name != "random:" && arguments.allSatisfy { $0.isConstant(bound: variables) }
        case .aggregate(let elements):
            return elements.allSatisfy { $0.isConstant(bound: variables) }
        case .set(_, let lhs, let rhs):
            return lhs.isConstant(bound: variables) && rhs.isConstant(bound: variables)
        case .subquery(let collection, let variable, let predicate):
            // Inside, SELF and the variable are the (constant) elements.
            return collection.isConstant(bound: variables) && predicate.isConstantInSubquery(bound: variables.subtracting([variable]))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return predicate.isConstant(bound: variables) && whenTrue.isConstant(bound: variables)
                && whenFalse.isConstant(bound: variables)
        }
    }

    /// `isConstant` where `SELF` stands for a constant element.
    fileprivate func isConstantInSubquery(bound variables: Set<String>) -> Bool {
        if case .evaluatedObject = self { return true }
        if case .keyPath(let operand, _) = self { return operand.isConstantInSubquery(bound: variables) }
        return isConstant(bound: variables)
    }
}

extension PredicateNode {
    fileprivate func isConstantInSubquery(bound variables: Set<String>) -> Bool {
        switch self {
        case .constant: true
        case .block: false
        case .compound(_, let children): children.allSatisfy { $0.isConstantInSubquery(bound: variables) }
        case .comparison(let comparison):
            comparison.left.isConstantInSubquery(bound: variables) && comparison.right.isConstantInSubquery(bound: variables)
        }
    }
}

// MARK: - Entry point

extension SQLTranslationState {
    /// The most predicate-tree nodes lowered to SQL; larger predicates are evaluated in memory.
    package static let maximumLoweredNodes = 4096
    /// The deepest predicate tree lowered to SQL; deeper ones are evaluated in memory.
    package static let maximumLoweredDepth = 32

    /// The WHERE condition of a predicate, or nil when it holds for every row.
    /// - Throws: `SQLTranslationError` naming the first node that cannot be lowered exactly.
    package mutating func condition(for predicate: NSPredicate) throws(SQLTranslationError) -> SQLFragment? {
        // SQLite compiles a statement in time quadratic in its number of constant terms, and a
        // predicate may be deeper than its own limits; such a predicate runs in memory (linear).
        guard PredicateDepth.nodeCount(of: predicate.node, limit: Self.maximumLoweredNodes) <= Self.maximumLoweredNodes else {
            throw .unsupported("a predicate of more than \(Self.maximumLoweredNodes) nodes", "SQLite compiles very large conditions in quadratic time")
        }
        guard PredicateDepth.depth(of: predicate.node, limit: Self.maximumLoweredDepth) <= Self.maximumLoweredDepth else {
            throw .unsupported("a predicate deeper than \(Self.maximumLoweredDepth) levels", "SQLite's parser stack holds about 100 nested terms")
        }
        let condition = try predicate.node.lower(&self)
        if case .constant(true) = condition { return nil }
        return condition.fragment(in: dialect)
    }
}
