import Foundation

// MARK: - SQLPlanShape

/// The shape of a fetch: everything that decides its SQL text except the values of its
/// constants, which the shape lists in a fixed order (`constants`).
///
/// Two requests of one shape lower to the same text whenever their constants agree on what the
/// lowering branches on — each constant's `signature` is part of the shape — so a plan made for
/// one request serves the next with its values bound again (`SQLPlanTemplate`). Built by one
/// pre-order walk of the predicate, which `substituting(_:)` repeats in the same order.
package struct SQLPlanShape {
    /// What decides the SQL text: the key plans are cached under.
    package struct Key: Hashable, Sendable {
        /// Node tags, operators, options, counts, paging and constant signatures.
        fileprivate var numbers: [Int] = []
        /// Key paths, function names, variable names, sort selectors and store identifiers.
        fileprivate var names: [String] = []
    }

    package private(set) var key = Key()
    /// The request's constants, in walk order.
    package private(set) var constants: [SQLPlanConstant] = []

    /// The shape of a query planned for `purpose` (a store-chosen code), or nil when the query
    /// holds something whose SQL may change between two lowerings of equal input (`now()`,
    /// `random()`) or that is never lowered (closures, custom functions and selectors).
    package init?(_ query: SQLFetchQuery, purpose: Int, dialect: any SQLDialect) {
        key.numbers.reserveCapacity(24)
        key.numbers += [purpose, Int(bitPattern: ObjectIdentifier(query.entity)), query.includesSubentities ? 1 : 0,
                    query.limit, query.offset, query.sortKeys.count]
        key.names.append(query.storeIdentifier ?? "")
        for sortKey in query.sortKeys {
            key.numbers.append(sortKey.ascending ? 1 : 0)
            key.names += [sortKey.keyPath, sortKey.selector]
        }
        guard let predicate = query.predicate else { return }
        guard add(predicate.node, dialect) else { return nil }
    }

    /// Whether caching a query's plan can pay: it has no constants, or one a plan could bind
    /// again (a whole side of a plain comparison against a key path). A query whose constants
    /// would all be pinned — `name BEGINSWITH[c] %@` with a new prefix each time — would miss
    /// the cache every time and pay the shape walk and a stored template for nothing.
    package static func isWorthCaching(_ query: SQLFetchQuery) -> Bool {
        guard let predicate = query.predicate else { return true }
        var scan = (constants: false, rebindable: false)
        scanConstants(predicate.node, &scan)
        return !scan.constants || scan.rebindable
    }

    private static func scanConstants(_ node: PredicateNode, _ scan: inout (constants: Bool, rebindable: Bool)) {
        switch node {
        case .constant, .block:
            return
        case .comparison(let comparison):
            let direct = bindsOperandsDirectly(comparison)
            if case .constant = comparison.left, direct, isRowValue(comparison.right) { scan.rebindable = true }
            if case .constant = comparison.right, direct, isRowValue(comparison.left) { scan.rebindable = true }
            scanConstants(comparison.left, &scan)
            scanConstants(comparison.right, &scan)
        case .compound(_, let children):
            for child in children where !scan.rebindable { scanConstants(child, &scan) }
        }
    }

    private static func scanConstants(_ expression: ExpressionNode, _ scan: inout (constants: Bool, rebindable: Bool)) {
        switch expression {
        case .constant:
            scan.constants = true
        case .evaluatedObject, .variable, .anyKey:
            return
        case .keyPath(let operand, _):
            scanConstants(operand, &scan)
        case .function(_, let arguments), .customFunction(_, _, let arguments), .aggregate(let arguments), .block(_, let arguments):
            for argument in arguments { scanConstants(argument, &scan) }
        case .set(_, let lhs, let rhs):
            scanConstants(lhs, &scan)
            scanConstants(rhs, &scan)
        case .subquery(let collection, _, let predicate):
            scanConstants(collection, &scan)
            scanConstants(predicate, &scan)
        case .conditional(let predicate, let whenTrue, let whenFalse):
            scanConstants(predicate, &scan)
            scanConstants(whenTrue, &scan)
            scanConstants(whenFalse, &scan)
        case .fetchRequest:
            scan.constants = true
        }
    }

    // MARK: - The walk

    private mutating func add(_ node: PredicateNode, _ dialect: any SQLDialect) -> Bool {
        switch node {
        case .constant(let value):
            key.numbers += [1, value ? 1 : 0]
            return true
        case .comparison(let comparison):
            if comparison.customSelector != nil { return false }
            key.numbers += [2, Int(comparison.operatorType.rawValue), Int(comparison.modifier.rawValue), Int(comparison.options.rawValue)]
            let direct = Self.bindsOperandsDirectly(comparison)
            return add(comparison.left, dialect, directOperand: direct && Self.isRowValue(comparison.right))
                && add(comparison.right, dialect, directOperand: direct && Self.isRowValue(comparison.left))
        case .compound(let kind, let children):
            key.numbers += [3, Int(kind.rawValue), children.count]
            for child in children where !add(child, dialect) { return false }
            return true
        case .block:
            return false
        }
    }

    private mutating func add(_ expression: ExpressionNode, _ dialect: any SQLDialect, directOperand: Bool = false) -> Bool {
        switch expression {
        case .constant(let raw):
            let constant = SQLPlanConstant(raw, dialect: dialect, isDirectOperand: directOperand)
            key.numbers.append(10)
            constant.appendSignature(to: &key.numbers, names: &key.names)
            constants.append(constant)
            return true
        case .evaluatedObject:
            key.numbers.append(11)
            return true
        case .variable(let name):
            key.numbers.append(12)
            key.names.append(name)
            return true
        case .keyPath(let operand, let path):
            key.numbers.append(13)
            key.names.append(path)
            return add(operand, dialect)
        case .function(let name, let arguments):
            // Folded at translation time to a value that differs between two lowerings.
            if name == "now" || name == "random" || name == "random:" { return false }
            key.numbers += [14, arguments.count]
            key.names.append(name)
            for argument in arguments where !add(argument, dialect) { return false }
            return true
        case .aggregate(let elements):
            key.numbers += [15, elements.count]
            for element in elements where !add(element, dialect) { return false }
            return true
        case .set(let operation, let lhs, let rhs):
            key.numbers += [16, operation == .union ? 0 : operation == .intersect ? 1 : 2]
            return add(lhs, dialect) && add(rhs, dialect)
        case .subquery(let collection, let variable, let predicate):
            key.numbers.append(17)
            key.names.append(variable)
            return add(collection, dialect) && add(predicate, dialect)
        case .anyKey:
            key.numbers.append(18)
            return true
        case .conditional(let predicate, let whenTrue, let whenFalse):
            key.numbers.append(19)
            return add(predicate, dialect) && add(whenTrue, dialect) && add(whenFalse, dialect)
        case .customFunction, .block, .fetchRequest:
            return false
        }
    }

    /// Whether a comparison binds a constant operand as it is: a plain `=`, `!=`, `<`, `<=`, `>`
    /// or `>=` with no modifier and no string options (which fold the value first).
    private static func bindsOperandsDirectly(_ comparison: ComparisonNode) -> Bool {
        guard comparison.modifier == .direct, comparison.options.isEmpty else { return false }
        switch comparison.operatorType {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo: return true
        default: return false
        }
    }

    /// Whether an expression reads the row (a key path or `SELF`), so the other side's constant
    /// meets a column rather than being folded with another constant.
    private static func isRowValue(_ expression: ExpressionNode) -> Bool {
        switch expression {
        case .evaluatedObject, .keyPath: true
        default: false
        }
    }

    // MARK: - Substitution

    /// The query with the constants at `replacements`' indices (walk order) replaced.
    package static func substituting(_ replacements: [Int: Any], in query: SQLFetchQuery) -> SQLFetchQuery {
        guard let predicate = query.predicate else { return query }
        var index = 0
        var copy = query
        copy.predicate = NSPredicate.make(rewrite(predicate.node, replacements, &index))
        return copy
    }

    private static func rewrite(_ node: PredicateNode, _ replacements: [Int: Any], _ index: inout Int) -> PredicateNode {
        switch node {
        case .constant, .block:
            return node
        case .comparison(var comparison):
            comparison.left = rewrite(comparison.left, replacements, &index)
            comparison.right = rewrite(comparison.right, replacements, &index)
            return .comparison(comparison)
        case .compound(let kind, let children):
            var rewritten: [PredicateNode] = []
            for child in children { rewritten.append(rewrite(child, replacements, &index)) }
            return .compound(kind, rewritten)
        }
    }

    private static func rewrite(_ expression: ExpressionNode, _ replacements: [Int: Any], _ index: inout Int) -> ExpressionNode {
        switch expression {
        case .constant(let value):
            defer { index += 1 }
            return replacements[index].map { .constant($0) } ?? .constant(value)
        case .evaluatedObject, .variable, .anyKey, .customFunction, .block, .fetchRequest:
            return expression
        case .keyPath(let operand, let path):
            return .keyPath(rewrite(operand, replacements, &index), path)
        case .function(let name, let arguments):
            var rewritten: [ExpressionNode] = []
            for argument in arguments { rewritten.append(rewrite(argument, replacements, &index)) }
            return .function(name, rewritten)
        case .aggregate(let elements):
            var rewritten: [ExpressionNode] = []
            for element in elements { rewritten.append(rewrite(element, replacements, &index)) }
            return .aggregate(rewritten)
        case .set(let operation, let lhs, let rhs):
            let left = rewrite(lhs, replacements, &index)
            return .set(operation, left, rewrite(rhs, replacements, &index))
        case .subquery(let collection, let variable, let predicate):
            let rewrittenCollection = rewrite(collection, replacements, &index)
            return .subquery(rewrittenCollection, variable, rewrite(predicate, replacements, &index))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            let condition = rewrite(predicate, replacements, &index)
            let first = rewrite(whenTrue, replacements, &index)
            return .conditional(condition, first, rewrite(whenFalse, replacements, &index))
        }
    }
}
