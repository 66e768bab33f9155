import Foundation

// MARK: - Comparisons

extension ComparisonNode: SQLLowerable {
    /// The comparison as a condition with the in-memory semantics of `PredicateEvaluator`:
    /// `nil == nil` holds, nothing orders against `nil`, values of different kinds are never
    /// equal, `ANY`/`ALL` quantify over collections (and are false on anything else).
    package func lower(_ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLCondition {
        if operatorType == .customSelector { return .constant(false) }
        let bound = Set(state.variables.keys)
        if left.isConstant(bound: bound) && right.isConstant(bound: bound) {
            var context = EvaluationContext()
            return .constant(PredicateEvaluator.evaluate(.comparison(self), object: nil, context: &context))
        }
        let lhs = try left.lower(&state), rhs = try right.lower(&state)
        switch modifier {
        case .direct: return try compare(lhs, rhs, &state)
        case .any, .all: return try quantify(lhs, rhs, &state)
        }
    }

    // MARK: - ANY / ALL

    private func quantify(_ lhs: SQLOperand, _ rhs: SQLOperand, _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLCondition {
        let all = modifier == .all
        switch lhs {
        case .collection(let collection):
            let condition = try compare(collection.elementOperand, rhs, &state)
            return all ? collection.allSatisfy(condition, state.dialect) : collection.contains(condition, state.dialect)
        case .constant(let value):
            // One value, not a collection: compared as itself, as in memory (nil has no element).
            guard let elements = PredicateValue.elements(value)?.values else {
                return PredicateValue.unwrap(value) == nil ? .constant(false) : try compare(lhs, rhs, &state)
            }
            var conditions: [SQLCondition] = []
            for element in elements { conditions.append(try compare(.constant(PredicateValue.unwrap(element)), rhs, &state)) }
            return all ? .all(conditions) : .any(conditions)
        case .list(let operands):
            var conditions: [SQLCondition] = []
            for operand in operands { conditions.append(try compare(operand, rhs, &state)) }
            return all ? .all(conditions) : .any(conditions)
        case .scalar(let scalar):
            // Not a collection (an attribute, a key path through to-ones): the comparison of
            // that one value, as Apple's SQLite store answers `ANY title CONTAINS 'x'`; NULL has
            // no element and is false, as in memory.
            return .all([.sql(scalar.sql + " IS NOT NULL", nullable: false, negated: scalar.sql + " IS NULL"), try compare(lhs, rhs, &state)])
        case .object(let object):
            let scalar = object.scalar
            return .all([.sql(scalar.sql + " IS NOT NULL", nullable: false, negated: scalar.sql + " IS NULL"), try compare(lhs, rhs, &state)])
        }
    }

    // MARK: - Direct comparisons

    private func compare(_ lhs: SQLOperand, _ rhs: SQLOperand, _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLCondition {
        switch operatorType {
        case .in:
            return try membership(of: lhs, in: rhs, &state)
        case .contains:
            if isText(lhs) { return try stringTest(.contains, lhs, rhs, state.dialect) }
            return try membership(of: rhs, in: lhs, &state)
        case .between:
            return try between(lhs, rhs, &state)
        case .beginsWith:
            return try stringTest(.beginsWith, lhs, rhs, state.dialect)
        case .endsWith:
            return try stringTest(.endsWith, lhs, rhs, state.dialect)
        case .like:
            return try stringTest(.like, lhs, rhs, state.dialect)
        case .matches:
            return try stringTest(.matches, lhs, rhs, state.dialect)
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return try compare(side(lhs), side(rhs), operatorType, &state)
        case .customSelector:
            return .constant(false)
        }
    }

    /// Whether memory would see a string (for `CONTAINS`, substring versus membership).
    private func isText(_ operand: SQLOperand) -> Bool {
        switch operand {
        case .constant(let value): PredicateValue.string(PredicateValue.unwrap(value)) != nil
        case .scalar(let scalar): scalar.kind == .string
        default: false
        }
    }

    /// One side of a scalar comparison.
    private enum Side {
        case constant(Any?)
        case sql(SQLScalar)
    }

    private func side(_ operand: SQLOperand) throws(SQLTranslationError) -> Side {
        switch operand {
        case .constant(let value): return .constant(PredicateValue.unwrap(value))
        case .scalar(let scalar): return .sql(scalar)
        case .object(let object): return .sql(object.scalar)
        case .collection, .list:
            throw .unsupported("\(operatorType) comparison", "a collection compared as a single value")
        }
    }

    // MARK: - Scalars

    /// `a <op> b` for one value on each side.
    private func compare(_ lhs: Side, _ rhs: Side, _ op: NSComparisonPredicate.Operator, _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLCondition {
        switch (lhs, rhs) {
        case (.constant(let left), .constant(let right)):
            var node = self
            node.operatorType = op
            node.modifier = .direct
            return .constant(PredicateEvaluator.compare(left, right, node))
        case (.sql(let scalar), .constant(let value)):
            return compare(scalar, to: value, op, state)
        case (.constant(let value), .sql(let scalar)):
            return compare(scalar, to: value, op.mirrored, state)
        case (.sql(let left), .sql(let right)):
            return compare(left, right, op, state.dialect)
        }
    }

    /// A SQL value against a constant.
    private func compare(_ scalar: SQLScalar, to value: Any?, _ op: NSComparisonPredicate.Operator, _ state: SQLTranslationState) -> SQLCondition {
        let dialect = state.dialect
        let equality = op == .equalTo || op == .notEqualTo
        func never() -> SQLCondition { .constant(op == .notEqualTo) }
        switch SQLConstant.classify(value) {
        case .null:
            guard equality else { return .constant(false) }
            guard scalar.isNullable else { return never() }
            let isNull = SQLCondition.sql(scalar.sql + " IS NULL", nullable: false, negated: scalar.sql + " IS NOT NULL")
            return op == .equalTo ? isNull : isNull.negated(in: dialect)
        case .collection, .opaque:
            return never()
        case .objectID(let id):
            guard equality, case .object(let root) = scalar.kind, let key = state.primaryKey(of: id, root: root) else { return never() }
            return equal(scalar.sql, dialect.parameter(.integer(key)), nullable: scalar.isNullable, op, dialect)
        case .value(let kind, let bound):
            guard scalar.kind.isComparable(with: kind), !isObject(kind) else { return never() }
            var left = scalar.sql, right = dialect.parameter(bound)
            if let folding = folding(for: scalar.kind), let text = PredicateValue.string(value) {
                let folded = SQLValue.text(StringMatching.fold(text, folding))
                left = dialect.call(.fold, [left, dialect.parameter(.integer(Int64(folding.rawValue)))])
                right = dialect.parameter(folded)
                if !equality || !dialect.plainEqualityMatchesMemory(folded) { right = dialect.collate(right, .compare) }
            } else if scalar.kind.isText, !equality || !dialect.plainEqualityMatchesMemory(bound) {
                right = dialect.collate(right, .compare)
            }
            if equality { return equal(left, right, nullable: scalar.isNullable, op, dialect) }
            return .sql(left + " " + op.sqlSymbol + " " + right, nullable: scalar.isNullable)
        }
    }

    /// Two SQL values.
    private func compare(_ lhs: SQLScalar, _ rhs: SQLScalar, _ op: NSComparisonPredicate.Operator, _ dialect: any SQLDialect) -> SQLCondition {
        let equality = op == .equalTo || op == .notEqualTo
        guard lhs.kind.isComparable(with: rhs.kind), lhs.kind == rhs.kind || !isObject(lhs.kind) else {
            // Different kinds: only nil equals nil.
            guard equality, lhs.isNullable, rhs.isNullable else { return .constant(op == .notEqualTo) }
            let bothNull = SQLCondition.sql("(" + lhs.sql + " IS NULL AND " + rhs.sql + " IS NULL)", nullable: false)
            return op == .equalTo ? bothNull : bothNull.negated(in: dialect)
        }
        if !equality && isObject(lhs.kind) { return .constant(false) }
        var left = lhs.sql, right = rhs.sql
        if let folding = folding(for: lhs.kind) {
            let options = dialect.parameter(.integer(Int64(folding.rawValue)))
            left = dialect.call(.fold, [left, options])
            right = dialect.call(.fold, [right, options])
        }
        if lhs.kind.isText { right = dialect.collate(right, .compare) }
        guard equality else {
            return .sql(left + " " + op.sqlSymbol + " " + right, nullable: lhs.isNullable || rhs.isNullable)
        }
        if !lhs.isNullable && !rhs.isNullable {
            let condition = SQLCondition.sql(left + " = " + right, nullable: false, negated: left + " <> " + right)
            return op == .equalTo ? condition : condition.negated(in: dialect)
        }
        let condition = SQLCondition.sql(dialect.isNotDistinct(left, right), nullable: false, negated: dialect.isDistinct(left, right))
        return op == .equalTo ? condition : condition.negated(in: dialect)
    }

    /// `a = b` (NULL when `a` is NULL, which WHERE treats as false) negated as `a IS NOT b`.
    private func equal(_ left: SQLFragment, _ right: SQLFragment, nullable: Bool, _ op: NSComparisonPredicate.Operator,
                       _ dialect: any SQLDialect) -> SQLCondition {
        let condition = SQLCondition.sql(left + " = " + right, nullable: nullable, negated: dialect.isDistinct(left, right))
        return op == .equalTo ? condition : condition.negated(in: dialect)
    }

    /// The `[c]`/`[d]` folding strings of this kind get, if any (`[n]` folds nothing).
    private func folding(for kind: SQLValueKind) -> NSComparisonPredicate.Options? {
        guard kind == .string, !options.contains(.normalized) else { return nil }
        let folding = options.intersection([.caseInsensitive, .diacriticInsensitive])
        return folding.isEmpty ? nil : folding
    }

    private func isObject(_ kind: SQLValueKind) -> Bool {
        if case .object = kind { return true }
        return false
    }

    // MARK: - Membership

    /// `element IN container`: membership in a collection, or a substring of a string.
    private func membership(of element: SQLOperand, in container: SQLOperand, _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLCondition {
        switch container {
        case .constant(let raw):
            let value = PredicateValue.unwrap(raw)
            if PredicateValue.string(value) != nil { return try stringTest(.contains, container, element, state.dialect) }
            if let elements = PredicateValue.elements(value) {
                return try equalsAny(side(element), elements.values.map { PredicateValue.unwrap($0) }, state)
            }
            if let values = PredicateValue.dictionaryValues(value) {
                return try equalsAny(side(element), values.map { PredicateValue.unwrap($0) }, state)
            }
            return .constant(false)
        case .scalar(let scalar):
            return scalar.kind == .string ? try stringTest(.contains, container, element, state.dialect) : .constant(false)
        case .object:
            return .constant(false)
        case .list(let operands):
            let target = try side(element)
            var conditions: [SQLCondition] = []
            for operand in operands { conditions.append(try compare(target, side(operand), .equalTo, &state)) }
            return .any(conditions)
        case .collection(let collection):
            let target = try side(element)
            let condition = try compare(side(collection.elementOperand), target, .equalTo, &state)
            return collection.contains(condition, state.dialect)
        }
    }

    /// Whether a value equals one of a list of constants: `a IN (?, ?)`, plus `a IS NULL` when
    /// the list holds nil.
    private func equalsAny(_ target: Side, _ values: [Any?], _ state: SQLTranslationState) -> SQLCondition {
        guard case .sql(let scalar) = target else {
            guard case .constant(let constant) = target else { return .constant(false) }
            return .constant(values.contains { ValueComparison.equal(constant, $0, options: options) })
        }
        var parameters: [SQLValue] = []
        var holdsNil = false
        let folding = folding(for: scalar.kind)
        for value in values {
            switch SQLConstant.classify(value) {
            case .null:
                holdsNil = true
            case .value(let kind, let bound) where scalar.kind.isComparable(with: kind) && !isObject(kind):
                if let folding, let text = PredicateValue.string(value) {
                    parameters.append(.text(StringMatching.fold(text, folding)))
                } else {
                    parameters.append(bound)
                }
            case .objectID(let id):
                if case .object(let root) = scalar.kind, let key = state.primaryKey(of: id, root: root) {
                    parameters.append(.integer(key))
                }
            default:
                continue
            }
        }
        var conditions: [SQLCondition] = []
        if !parameters.isEmpty {
            var left = scalar.sql
            let dialect = state.dialect
            if let folding { left = dialect.call(.fold, [left, dialect.parameter(.integer(Int64(folding.rawValue)))]) }
            if scalar.kind.isText, !parameters.allSatisfy(dialect.plainEqualityMatchesMemory) { left = dialect.collate(left, .compare) }
            if parameters.count == 1 {
                let right = dialect.parameter(parameters[0])
                conditions.append(.sql(left + " = " + right, nullable: scalar.isNullable, negated: dialect.isDistinct(left, right)))
            } else {
                let list = dialect.parameterList(parameters)
                conditions.append(.sql(left + " IN " + list, nullable: scalar.isNullable))
            }
        }
        if holdsNil && scalar.isNullable {
            conditions.append(.sql(scalar.sql + " IS NULL", nullable: false, negated: scalar.sql + " IS NOT NULL"))
        }
        return .any(conditions)
    }

    // MARK: - BETWEEN

    private func between(_ lhs: SQLOperand, _ rhs: SQLOperand, _ state: inout SQLTranslationState) throws(SQLTranslationError) -> SQLCondition {
        let bounds: [Side]
        switch rhs {
        case .constant(let value):
            guard let elements = PredicateValue.elements(PredicateValue.unwrap(value))?.values, elements.count == 2 else {
                return .constant(false)
            }
            bounds = elements.map { .constant(PredicateValue.unwrap($0)) }
        case .list(let operands):
            guard operands.count == 2 else { return .constant(false) }
            bounds = [try side(operands[0]), try side(operands[1])]
        case .scalar, .object:
            return .constant(false)
        case .collection:
            throw .unsupported("BETWEEN", "bounds taken from a to-many relationship have no order")
        }
        let value = try side(lhs)
        if case .sql(let scalar) = value, !scalar.kind.isText, case .constant(let lower) = bounds[0], case .constant(let upper) = bounds[1],
           case .value(let lowerKind, let lowerValue) = SQLConstant.classify(lower), lowerKind.isComparable(with: scalar.kind),
           case .value(let upperKind, let upperValue) = SQLConstant.classify(upper), upperKind.isComparable(with: scalar.kind),
           !isObject(scalar.kind) {
            return .sql(scalar.sql + " BETWEEN " + state.dialect.parameter(lowerValue) + " AND " + state.dialect.parameter(upperValue),
                        nullable: scalar.isNullable)
        }
        return .all([try compare(value, bounds[0], .greaterThanOrEqualTo, &state),
                     try compare(value, bounds[1], .lessThanOrEqualTo, &state)])
    }

    // MARK: - String operators

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` (substring), `LIKE`, `MATCHES` through the registered
    /// functions, which call `StringMatching`; false unless both sides are strings.
    private func stringTest(_ function: SQLFunction, _ subject: SQLOperand, _ other: SQLOperand,
                            _ dialect: any SQLDialect) throws(SQLTranslationError) -> SQLCondition {
        var arguments: [SQLFragment] = []
        var constants: [Any?] = []
        for operand in [subject, other] {
            switch operand {
            case .constant(let raw):
                guard let text = PredicateValue.string(PredicateValue.unwrap(raw)) else { return .constant(false) }
                arguments.append(dialect.parameter(.text(text)))
                constants.append(text)
            case .scalar(let scalar):
                guard scalar.kind == .string else { return .constant(false) }
                arguments.append(scalar.sql)
            case .object, .collection, .list:
                return .constant(false)
            }
        }
        if constants.count == 2 {
            var node = self
            node.operatorType = function == .contains ? .contains : operatorType
            return .constant(PredicateEvaluator.compare(constants[0], constants[1], node))
        }
        arguments.append(dialect.parameter(.integer(Int64(options.rawValue))))
        return .sql(dialect.call(function, arguments), nullable: false)
    }
}

// MARK: - Helpers

extension NSComparisonPredicate.Operator {
    /// The operator with its operands swapped (`a < b` is `b > a`).
    fileprivate var mirrored: NSComparisonPredicate.Operator {
        switch self {
        case .lessThan: .greaterThan
        case .lessThanOrEqualTo: .greaterThanOrEqualTo
        case .greaterThan: .lessThan
        case .greaterThanOrEqualTo: .lessThanOrEqualTo
        default: self
        }
    }

    fileprivate var sqlSymbol: String {
        switch self {
        case .lessThan: "<"
        case .lessThanOrEqualTo: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqualTo: ">="
        case .notEqualTo: "<>"
        default: "="
        }
    }
}

extension SQLCollection {
    /// Each element as an operand: the row (an object) or the value read from it.
    package var elementOperand: SQLOperand {
        switch element {
        case .rows: .object(row)
        case .value(let scalar, _): .scalar(scalar)
        }
    }

    /// `EXISTS (…)`: some element satisfies the condition.
    package func contains(_ condition: SQLCondition, _ dialect: any SQLDialect) -> SQLCondition {
        if case .constant(false) = condition { return .constant(false) }
        let extra: [SQLFragment] = (condition.isAlwaysTrue ? [] : [condition.fragment(in: dialect)])
        let subquery = "(" + select(SQLFragment("1"), where: extra) + ")"
        return .sql("EXISTS " + subquery, nullable: false, negated: "NOT EXISTS " + subquery)
    }

    /// `NOT EXISTS (… NOT condition)`: every element satisfies the condition; false when the
    /// collection itself is nil (memory's `ALL` needs a collection).
    package func allSatisfy(_ condition: SQLCondition, _ dialect: any SQLDialect) -> SQLCondition {
        let none = contains(condition.negated(in: dialect), dialect).negated(in: dialect)
        guard let owner = nullableOwnerKey else { return none }
        return .all([.sql(owner + " IS NOT NULL", nullable: false, negated: owner + " IS NULL"), none])
    }
}

extension SQLCondition {
    fileprivate var isAlwaysTrue: Bool {
        if case .constant(true) = self { return true }
        return false
    }
}

extension SQLTranslationState {
    /// The primary key an object ID stands for in a table rooted at `root`, or nil when it
    /// matches no row: temporary IDs, IDs of another store or of another entity hierarchy
    /// (`NSManagedObjectID` equality compares the root entity, the store and the key).
    package func primaryKey(of id: NSManagedObjectID, root: ObjectIdentifier) -> Int64? {
        guard !id.isTemporaryID, ObjectIdentifier(id.entity.rootEntity) == root else { return nil }
        if let storeIdentifier, id.storeIdentifier != storeIdentifier { return nil }
        return id.primaryKey
    }
}
