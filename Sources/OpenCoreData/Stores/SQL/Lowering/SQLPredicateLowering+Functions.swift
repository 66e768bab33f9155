import Foundation

/// Lowers `NSExpression` functions, `SUBQUERY` and `TERNARY` (part of `ExpressionNode`'s
/// `SQLLowerable` conformance; functions of constants never get here, they are folded).
enum SQLFunctionLowering {
    static func lower(_ name: String, _ arguments: [ExpressionNode], _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLOperand {
        switch name {
        case "random":
            return .scalar(SQLScalar(state.dialect.call(.random, []), kind: .number(isInteger: false), isNullable: false))
        case BuiltinFunction.indexFunction:
            return try index(arguments, &state)
        case BuiltinFunction.castFunction:
            return try cast(arguments, &state)
        case "noindex:":
            return try arguments[0].lower(&state)
        case "count:", "sum:", "average:", "min:", "max:":
            return try statistic(name, arguments[0].lower(&state), state.dialect)
        default:
            break
        }
        var lowered: [SQLOperand] = []
        for argument in arguments { lowered.append(try argument.lower(&state)) }
        switch name {
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:":
            return try arithmetic(name, lowered[0], lowered[1], state.dialect)
        default:
            guard state.dialect.evaluatesBuiltin(name, arity: lowered.count) else {
                throw .unsupported("\(name)", "the function has no exact SQL equivalent")
            }
            return try builtin(name, lowered, state.dialect)
        }
    }

    // MARK: - Arithmetic

    /// `+ - * /` in SQL: integers stay integers and overflow into doubles, as in memory;
    /// division is always done on doubles (memory divides `7 / 2` to 3.5) and is NULL by zero.
    /// A date plus or minus a number of seconds is a date. Other operand kinds give nil in memory.
    private static func arithmetic(_ name: String, _ lhs: SQLOperand, _ rhs: SQLOperand, _ dialect: any SQLDialect) throws(SQLTranslationError) -> SQLOperand {
        guard let left = value(lhs, dialect), let right = value(rhs, dialect) else { return .constant(nil) }
        let kind: SQLValueKind
        switch (left.kind, right.kind) {
        case (.number(let leftInteger), .number(let rightInteger)):
            kind = .number(isInteger: leftInteger && rightInteger && name != "divide:by:")
        case (.date, .number) where name == "add:to:" || name == "from:subtract:":
            kind = .date
        default:
            return .constant(nil)
        }
        let nullable = left.isNullable || right.isNullable
        switch name {
        case "add:to:": return .scalar(SQLScalar("(" + left.sql + " + " + right.sql + ")", kind: kind, isNullable: nullable))
        case "from:subtract:": return .scalar(SQLScalar("(" + left.sql + " - " + right.sql + ")", kind: kind, isNullable: nullable))
        case "multiply:by:": return .scalar(SQLScalar("(" + left.sql + " * " + right.sql + ")", kind: kind, isNullable: nullable))
        default: return .scalar(SQLScalar("(" + dialect.castToReal(left.sql) + " / " + right.sql + ")", kind: kind, isNullable: true))
        }
    }

    /// An argument as a SQL value: bound when constant (nil when it is no number, string or date).
    private static func value(_ operand: SQLOperand, _ dialect: any SQLDialect) -> SQLScalar? {
        switch operand {
        case .scalar(let scalar):
            return scalar
        case .constant(let raw):
            guard case .value(let kind, let bound) = SQLConstant.classify(raw) else { return nil }
            return SQLScalar(dialect.parameter(bound), kind: kind, isNullable: false)
        case .object, .collection, .list:
            return nil
        }
    }

    // MARK: - Builtins

    /// `abs:`, `sqrt:`, `lowercase:`, … evaluated by `FunctionEvaluator` itself in a registered
    /// function; an argument memory would not accept (a date for `sqrt:`) gives nil.
    private static func builtin(_ name: String, _ arguments: [SQLOperand], _ dialect: any SQLDialect) throws(SQLTranslationError) -> SQLOperand {
        let wantsString = name == "lowercase:" || name == "uppercase:"
        var sql: [SQLFragment] = []
        for argument in arguments {
            guard let scalar = value(argument, dialect) else { return .constant(nil) }
            switch scalar.kind {
            case .string where wantsString: break
            case .number where !wantsString: break
            default: return .constant(nil)
            }
            sql.append(scalar.sql)
        }
        let call = dialect.call(.builtin(name), sql)
        return .scalar(SQLScalar(call, kind: wantsString ? .string : .number(isInteger: false)))
    }

    // MARK: - Statistics

    /// `count:`, `sum:`, `average:`, `min:`, `max:` over a to-many key path. Memory sees the
    /// key path's value: the related objects, or a set of distinct non-nil values.
    private static func statistic(_ name: String, _ operand: SQLOperand, _ dialect: any SQLDialect) throws(SQLTranslationError) -> SQLOperand {
        guard case .collection(let collection) = operand else {
            throw .unsupported(name, "its argument is not a to-many key path")
        }
        let distinct = SQLFragment(collection.isArray ? "" : "DISTINCT ")
        switch (name, collection.element) {
        case ("count:", .rows):
            return .scalar(aggregateOrZero(SQLFragment("COUNT(*)"), collection, kind: .number(isInteger: true)))
        case ("count:", .value(let scalar, _)):
            // Distinct as memory's set of values keeps them: strings literally (BINARY), as
            // `NSString.isEqual(_:)` tells "café" from "cafe\u{301}" (`DistinctValueKey`).
            let counted = collection.isArray ? SQLFragment("COUNT(*)") : "COUNT(DISTINCT " + scalar.sql + ")"
            return .scalar(aggregateOrZero(counted, collection, kind: .number(isInteger: true)))
        case ("sum:", .value(let scalar, _)), ("average:", .value(let scalar, _)):
            guard case .number = scalar.kind else { throw .unsupported(name, "over \(scalar.kind) values") }
            guard !scalar.holdsDecimals else { throw .unsupported(name, SQLScalar.decimalSumReason(name, "")) }
            if name == "sum:" {
                return .scalar(aggregateOrZero(dialect.total(distinct + scalar.sql), collection, kind: .number(isInteger: false)))
            }
            let sql = "(" + collection.select("AVG(" + distinct + scalar.sql + ")") + ")"
            return .scalar(SQLScalar(sql, kind: .number(isInteger: false)))
        case ("min:", .value(let scalar, _)), ("max:", .value(let scalar, _)):
            guard scalar.kind != .string, scalar.kind != .url, !(scalar.kind.isObject) else {
                throw .unsupported(name, "over \(scalar.kind) values")
            }
            let function = SQLFragment(name == "min:" ? "MIN(" : "MAX(")
            return .scalar(SQLScalar("(" + collection.select(function + scalar.sql + ")") + ")", kind: scalar.kind))
        default:
            throw .unsupported(name, "over related objects rather than values")
        }
    }

    /// An aggregate subquery; a nil collection (behind a nil to-one) has no rows, so 0, as memory counts it.
    private static func aggregateOrZero(_ function: SQLFragment, _ collection: SQLCollection, kind: SQLValueKind) -> SQLScalar {
        SQLScalar("(" + collection.select(function) + ")", kind: kind, isNullable: false)
    }

    // MARK: - Indexing

    /// `c[SIZE]`, and `c[FIRST]`, `c[LAST]`, `c[i]` on ordered relationships (a set has no order).
    private static func index(_ arguments: [ExpressionNode], _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLOperand {
        let indexed = try arguments[0].lower(&state)
        guard arguments[1].isConstant(bound: Set(state.variables.keys)) else {
            throw .unsupported("subscript", "the index is not a constant")
        }
        var context = EvaluationContext()
        let index = ExpressionEvaluator.value(of: arguments[1], object: nil, context: &context)
        guard case .collection(let collection) = indexed else {
            // A constant indexed, such as a TERNARY whose condition lowered to a constant: the
            // value memory gives (`5[1]` is nil), not the constant itself.
            if case .constant(let raw) = indexed {
                let node = ExpressionNode.function(BuiltinFunction.indexFunction, [.constant(raw), .constant(index)])
                return .constant(ExpressionEvaluator.value(of: node, object: nil, context: &context))
            }
            throw .unsupported("subscript", "only to-many relationships are indexed in SQL")
        }
        if let symbol = index as? PredicateIndexSymbol, symbol == .size {
            if case .rows = collection.element {
                return .scalar(state.aggregate(SQLFragment("COUNT(*)"), over: collection, kind: .number(isInteger: true), nullable: false))
            }
            guard collection.isArray else { throw .unsupported("[SIZE]", "of distinct values") }
            return .scalar(state.aggregate(SQLFragment("COUNT(*)"), over: collection, kind: .number(isInteger: true), nullable: false))
        }
        guard case .rows = collection.element else {
            throw .unsupported("subscript", "a collection of values has no first or last element")
        }
        // An unordered to-many is counted in primary-key order, as memory counts it.
        let order = collection.order ?? [collection.row.key]
        var terms = order
        var offset: Int64 = 0
        switch index {
        case let symbol as PredicateIndexSymbol:
            if symbol == .last { terms = order.map { $0 + " DESC" } }
        default:
            guard let position = PredicateNumber(PredicateValue.unwrap(index))?.int64Value else {
                throw .unsupported("subscript", "a non-integer index")
            }
            guard position >= 0 else { return .constant(nil) }
            offset = position
        }
        var ordered = collection
        ordered.order = terms
        let key = "(" + ordered.select(collection.row.key, ordered: true) + state.dialect.pagingClause(limit: 1, offset: Int(offset)) + ")"
        let alias = state.makeAlias("e")
        return .object(SQLObjectReference(key: key, entity: collection.row.entity, alias: nil, joinKey: alias,
                                          ownerAlias: collection.ownerAlias, isNullable: true))
    }

    // MARK: - CAST

    /// `CAST(x, 'NSNumber')` of numbers and dates, `CAST(x, 'NSDate')` of numbers and dates and
    /// `CAST(x, 'NSString')` of strings keep their SQL value; other casts parse or format text.
    private static func cast(_ arguments: [ExpressionNode], _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLOperand {
        let operand = try arguments[1].lower(&state)
        guard case .constant(let raw) = operand, let typeName = PredicateValue.string(PredicateValue.unwrap(raw)) else {
            throw .unsupported("CAST", "the type name is not a constant")
        }
        let value = try arguments[0].lower(&state)
        guard case .scalar(var scalar) = value else { throw .unsupported("CAST", "of a \(value) to \(typeName)") }
        switch (typeName, scalar.kind) {
        case ("NSNumber", .number), ("NSDate", .date), ("NSString", .string):
            return .scalar(scalar)
        case ("NSNumber", .date):
            scalar.kind = .number(isInteger: false)
            return .scalar(scalar)
        case ("NSDate", .number):
            scalar.kind = .date
            return .scalar(scalar)
        case ("NSString", .number(isInteger: true)):
            return .scalar(SQLScalar(state.dialect.call(.integerString, [scalar.sql]), kind: .string, isNullable: scalar.isNullable))
        default:
            throw .unsupported("CAST", "of a \(scalar.kind) value to \(typeName)")
        }
    }

    // MARK: - SUBQUERY

    /// `SUBQUERY(collection, $x, predicate)`: the collection's rows that satisfy the predicate,
    /// with `$x` and `SELF` bound to the row (as memory evaluates it).
    static func subquery(_ collectionNode: ExpressionNode, _ variable: String, _ predicate: PredicateNode,
                         _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLOperand {
        let source = try collectionNode.lower(&state)
        guard case .collection(var collection) = source, case .rows = collection.element, let alias = collection.row.alias else {
            throw .unsupported("SUBQUERY", "its collection is not a to-many relationship")
        }
        let savedSelf = state.evaluatedObject, savedVariables = state.variables
        state.evaluatedObject = collection.row
        state.variables[variable] = .object(collection.row)
        state.pushScope(owning: [alias])
        let condition: SQLCondition
        do {
            condition = try predicate.lower(&state)
        } catch {
            _ = state.popScope()
            state.evaluatedObject = savedSelf
            state.variables = savedVariables
            throw error
        }
        let joins = state.popScope()
        state.evaluatedObject = savedSelf
        state.variables = savedVariables
        for join in joins { collection.from.append(" " + join) }
        switch condition {
        case .constant(true): break
        case .constant(false): collection.conditions.append(state.dialect.boolean(false))
        default: collection.conditions.append(condition.fragment(in: state.dialect))
        }
        // The result is an array: keys read from it keep nils.
        collection.isArray = true
        return .collection(collection)
    }

    // MARK: - TERNARY

    static func ternary(_ predicate: PredicateNode, _ whenTrue: ExpressionNode, _ whenFalse: ExpressionNode,
                        _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLOperand {
        let condition = try predicate.lower(&state)
        if case .constant(let holds) = condition { return try (holds ? whenTrue : whenFalse).lower(&state) }
        let branches = [try whenTrue.lower(&state), try whenFalse.lower(&state)]
        var kind: SQLValueKind?
        var sql: [SQLFragment] = []
        var nullable = false
        for branch in branches {
            if case .constant(let raw) = branch, PredicateValue.unwrap(raw) == nil {
                sql.append(SQLFragment("NULL"))
                nullable = true
                continue
            }
            guard let scalar = value(branch, state.dialect) ?? branch.scalar else {
                throw .unsupported("TERNARY", "a branch is not a single value")
            }
            switch (kind, scalar.kind) {
            case (nil, _): kind = scalar.kind
            case (.number(let first)?, .number(let second)): kind = .number(isInteger: first && second)
            case (let known?, let other) where known == other: break
            default: throw .unsupported("TERNARY", "branches of different kinds")
            }
            nullable = nullable || scalar.isNullable
            sql.append(scalar.sql)
        }
        guard let kind else { return .constant(nil) }
        return .scalar(SQLScalar("CASE WHEN " + condition.fragment(in: state.dialect) + " THEN " + sql[0] + " ELSE " + sql[1] + " END",
                                 kind: kind, isNullable: nullable))
    }
}

extension SQLValueKind {
    fileprivate var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
