import Foundation

// MARK: - ExpressionNode

/// The internal tree behind every `NSExpression`.
///
/// Each case maps to one `NSExpression.ExpressionType`. A SQL lowering visits these cases:
/// constants become bound parameters, `.keyPath` becomes column references or joins,
/// `.function` maps by name (see `BuiltinFunction`), `.subquery` becomes a correlated query.
package indirect enum ExpressionNode {
    /// A constant value (`nil` for `NULL`). See `PredicateIndexSymbol` for `FIRST`/`LAST`/`SIZE`.
    case constant(Any?)
    /// `SELF`.
    case evaluatedObject
    /// `$name`, resolved from the bindings at evaluation time.
    case variable(String)
    /// `operand.path`, where `path` is dot-separated and may hold `@count`-style operators.
    /// A plain key path such as `name` has `.evaluatedObject` as its operand.
    case keyPath(ExpressionNode, String)
    /// One of Apple's predefined functions, by selector name (`"add:to:"`, `"now"`, …).
    case function(String, [ExpressionNode])
    /// `FUNCTION(operand, 'selector', arguments…)`: a method call, which Linux cannot perform.
    case customFunction(ExpressionNode, String, [ExpressionNode])
    /// `{a, b, c}`.
    case aggregate([ExpressionNode])
    /// `lhs UNION rhs`, `lhs INTERSECT rhs`, `lhs MINUS rhs`.
    case set(SetOperation, ExpressionNode, ExpressionNode)
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(ExpressionNode, String, PredicateNode)
    /// `ANYKEY`.
    case anyKey
    /// A Swift closure with argument expressions (`NSExpression(block:arguments:)`).
    case block(ExpressionBlock, [ExpressionNode])
    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    case conditional(PredicateNode, ExpressionNode, ExpressionNode)
    /// `FETCH(request, context, countOnly)`: Core Data's `NSFetchRequestExpression`, which runs
    /// a fetch request in a context. Mapping models use it as entity mappings' source expression.
    case fetchRequest(ExpressionNode, ExpressionNode, countOnly: Bool)
}

// MARK: - SetOperation

/// The three set expressions of `NSExpression`.
package enum SetOperation: Sendable {
    case union, intersect, minus

    /// The keyword used in format strings.
    package var keyword: String {
        switch self {
        case .union: "UNION"
        case .intersect: "INTERSECT"
        case .minus: "MINUS"
        }
    }
}

// MARK: - PredicateIndexSymbol

/// The symbolic indexes `array[FIRST]`, `array[LAST]` and `array[SIZE]`.
package enum PredicateIndexSymbol: String, Sendable {
    case first = "FIRST"
    case last = "LAST"
    case size = "SIZE"
}

// MARK: - ExpressionBlock

/// A closure expression. Compared by identity of its box.
package final class ExpressionBlock: Sendable {
    package let body: @Sendable (Any?, [Any], NSMutableDictionary?) -> Any
    /// Set when the block reads a Swift key path whose name was unknown when the expression was
    /// made; fetches resolve it to a key path then (see `LateKeyPathName`).
    package let lateKeyPath: LateKeyPathName?

    package init(_ body: @escaping @Sendable (Any?, [Any], NSMutableDictionary?) -> Any) {
        self.body = body
        self.lateKeyPath = nil
    }

    /// A block that reads `lateKeyPath` from its one argument.
    package init(lateKeyPath: LateKeyPathName) {
        self.body = { _, arguments, _ in lateKeyPath.value(of: arguments.first) ?? NSNull() }
        self.lateKeyPath = lateKeyPath
    }
}

// MARK: - Traversal

extension ExpressionNode {
    /// The key path of a plain `key.path` expression on `SELF`, or `nil`.
    package var selfKeyPath: String? {
        if case .keyPath(.evaluatedObject, let path) = self { return path }
        return nil
    }

    /// Returns a copy where `transform` rewrote every sub-expression, bottom-up.
    package func map(_ transform: (ExpressionNode) -> ExpressionNode) -> ExpressionNode {
        let rebuilt: ExpressionNode
        switch self {
        case .constant, .evaluatedObject, .variable, .anyKey:
            rebuilt = self
        case .keyPath(let operand, let path):
            rebuilt = .keyPath(operand.map(transform), path)
        case .function(let name, let arguments):
            rebuilt = .function(name, arguments.map { $0.map(transform) })
        case .customFunction(let operand, let selector, let arguments):
            rebuilt = .customFunction(operand.map(transform), selector, arguments.map { $0.map(transform) })
        case .aggregate(let elements):
            rebuilt = .aggregate(elements.map { $0.map(transform) })
        case .set(let operation, let lhs, let rhs):
            rebuilt = .set(operation, lhs.map(transform), rhs.map(transform))
        case .subquery(let collection, let variable, let predicate):
            rebuilt = .subquery(collection.map(transform), variable, predicate.mapExpressions(transform))
        case .block(let block, let arguments):
            rebuilt = .block(block, arguments.map { $0.map(transform) })
        case .conditional(let predicate, let whenTrue, let whenFalse):
            rebuilt = .conditional(
                predicate.mapExpressions(transform), whenTrue.map(transform), whenFalse.map(transform))
        case .fetchRequest(let request, let context, let countOnly):
            rebuilt = .fetchRequest(request.map(transform), context.map(transform), countOnly: countOnly)
        }
        return transform(rebuilt)
    }

    /// The canonical form used by structural equality: constant collections become aggregates
    /// of constants, so `IN %@` with an array equals its printed `IN {…}` form.
    package var canonical: ExpressionNode {
        switch self {
        case .constant(let value):
            if let elements = PredicateValue.constantCollectionElements(value) {
                return .aggregate(elements.map { ExpressionNode.constant($0).canonical })
            }
            if let date = value as? NSDate { return .constant(date as Date) }
            return self
        case .evaluatedObject, .variable, .anyKey:
            return self
        case .keyPath(let operand, let path):
            return .keyPath(operand.canonical, path)
        case .function(let name, let arguments):
            return .function(name, arguments.map(\.canonical))
        case .customFunction(let operand, let selector, let arguments):
            return .customFunction(operand.canonical, selector, arguments.map(\.canonical))
        case .aggregate(let elements):
            return .aggregate(elements.map(\.canonical))
        case .set(let operation, let lhs, let rhs):
            return .set(operation, lhs.canonical, rhs.canonical)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection.canonical, variable, predicate.canonical)
        case .block(let block, let arguments):
            return .block(block, arguments.map(\.canonical))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return .conditional(predicate.canonical, whenTrue.canonical, whenFalse.canonical)
        case .fetchRequest(let request, let context, let countOnly):
            return .fetchRequest(request.canonical, context.canonical, countOnly: countOnly)
        }
    }
}
