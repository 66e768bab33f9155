import Foundation

// MARK: - ExpressionType

extension NSExpression {
    /// The kind of an expression; raw values match Apple's `NSExpression.ExpressionType`.
    public enum ExpressionType: UInt, Sendable {
        /// A constant value.
        case constantValue = 0
        /// `SELF`.
        case evaluatedObject = 1
        /// `$variable`.
        case variable = 2
        /// A key path.
        case keyPath = 3
        /// A function call.
        case function = 4
        /// `UNION`.
        case unionSet = 5
        /// `INTERSECT`.
        case intersectSet = 6
        /// `MINUS`.
        case minusSet = 7
        /// `SUBQUERY(…)`.
        case subquery = 13
        /// `{a, b}`.
        case aggregate = 14
        /// `ANYKEY`.
        case anyKey = 15
        /// A closure.
        case block = 19
        /// `TERNARY(…)`.
        case conditional = 20
        /// `FETCH(…)`: an `NSFetchRequestExpression` (Core Data's `NSFetchRequestExpressionType`).
        case fetchRequest = 50
    }

    /// The kind of this expression.
    public var expressionType: ExpressionType {
        switch node {
        case .constant: .constantValue
        case .evaluatedObject: .evaluatedObject
        case .variable: .variable
        case .keyPath: .keyPath
        case .function, .customFunction: .function
        case .set(.union, _, _): .unionSet
        case .set(.intersect, _, _): .intersectSet
        case .set(.minus, _, _): .minusSet
        case .subquery: .subquery
        case .aggregate: .aggregate
        case .anyKey: .anyKey
        case .block(let block, _): block.lateKeyPath == nil ? .block : .keyPath
        case .conditional: .conditional
        case .fetchRequest: .fetchRequest
        }
    }
}

// MARK: - Accessors

extension NSExpression {
    /// The constant of a constant expression (`nil` for other kinds, and for `NULL`).
    public var constantValue: Any? {
        if case .constant(let value) = node {
            if let symbol = value as? PredicateIndexSymbol { return symbol.rawValue }
            return value
        }
        return nil
    }

    /// The key path of a key-path expression.
    public var keyPath: String {
        if case .block(let block, _) = node, let late = block.lateKeyPath {
            return late.required(for: "NSExpression.keyPath")
        }
        guard case .keyPath(_, let path) = node else { misuse("keyPath") }
        return path
    }

    /// The name of a variable expression, or the iterator variable of a subquery.
    public var variable: String {
        switch node {
        case .variable(let name): return name
        case .subquery(_, let name, _): return name
        default: misuse("variable")
        }
    }

    /// The function name (`"sum:"`, `"add:to:"`; `"valueForKeyPath:"` for key paths).
    public var function: String {
        switch node {
        case .function(let name, _): return name
        case .customFunction(_, let selector, _): return selector
        case .keyPath: return "valueForKeyPath:"
        default: misuse("function")
        }
    }

    /// The argument expressions of a function expression.
    public var arguments: [NSExpression]? {
        switch node {
        case .function(_, let arguments), .customFunction(_, _, let arguments), .block(_, let arguments):
            return arguments.map { NSExpression(node: $0) }
        case .keyPath(_, let path):
            return [NSExpression(node: .constant(path))]
        default:
            return nil
        }
    }

    /// The receiver of a key-path or custom function expression (`SELF` for plain key paths).
    public var operand: NSExpression {
        switch node {
        case .keyPath(let operand, _), .customFunction(let operand, _, _):
            return NSExpression(node: operand)
        case .block(let block, let arguments) where block.lateKeyPath != nil && !arguments.isEmpty:
            return NSExpression(node: arguments[0])
        case .function:
            return NSExpression(node: .evaluatedObject)
        default:
            misuse("operand")
        }
    }

    /// The elements (`[NSExpression]`) of an aggregate, or the collection expression of a subquery.
    public var collection: Any {
        switch node {
        case .aggregate(let elements): return elements.map { NSExpression(node: $0) }
        case .subquery(let collection, _, _): return NSExpression(node: collection)
        default: misuse("collection")
        }
    }

    /// The predicate of a subquery or conditional expression.
    public var predicate: NSPredicate {
        switch node {
        case .subquery(_, _, let predicate), .conditional(let predicate, _, _):
            return NSPredicate.make(predicate)
        default:
            misuse("predicate")
        }
    }

    /// The left operand of a set expression.
    public var leftExpression: NSExpression {
        guard case .set(_, let lhs, _) = node else { misuse("leftExpression") }
        return NSExpression(node: lhs)
    }

    /// The right operand of a set expression.
    public var rightExpression: NSExpression {
        guard case .set(_, _, let rhs) = node else { misuse("rightExpression") }
        return NSExpression(node: rhs)
    }

    /// The expression used when the condition holds.
    public var trueExpression: NSExpression {
        guard case .conditional(_, let whenTrue, _) = node else { misuse("trueExpression") }
        return NSExpression(node: whenTrue)
    }

    /// The expression used when the condition fails.
    public var falseExpression: NSExpression {
        guard case .conditional(_, _, let whenFalse) = node else { misuse("falseExpression") }
        return NSExpression(node: whenFalse)
    }

    /// The closure of a block expression.
    public var expressionBlock: @Sendable (Any?, [Any], NSMutableDictionary?) -> Any {
        guard case .block(let block, _) = node else { misuse("expressionBlock") }
        return block.body
    }

    private func misuse(_ accessor: String) -> Never {
        preconditionFailure("NSExpression.\(accessor) is not defined for an expression of type \(expressionType): \(self)")
    }
}
