import Foundation

/// Lowers predicates on history transactions and changes (`NSPersistentHistoryTransaction.fetchRequest`,
/// `NSPersistentHistoryChange.fetchRequest`) to SQL over Apple's history tables.
///
/// Only what SQL evaluates exactly as memory does is lowered: comparisons of a key with a
/// constant, joined with AND, OR and NOT. String keys take `==` and `!=` (null-safe), the
/// always-present number and date keys all six orderings. Anything else gives nil, and the
/// store evaluates the whole predicate in memory instead.
package struct SQLHistoryPredicateLowering {
    /// The kind of value a key holds, which decides the operators it takes.
    package enum KeyKind {
        /// Interned text, possibly NULL: `==` and `!=` only.
        case string
        /// An integer column never NULL.
        case integer
        /// `ZTIMESTAMP`: compared with dates as seconds since 2001.
        case date
    }

    /// The column (or expression) and kind of each key.
    package let keys: [String: (column: SQLFragment, kind: KeyKind)]
    package let dialect: any SQLDialect

    package init(keys: [String: (column: SQLFragment, kind: KeyKind)], dialect: any SQLDialect) {
        self.keys = keys
        self.dialect = dialect
    }

    /// The keys of `NSPersistentHistoryTransaction`'s entity, over `ATRANSACTION` aliased `t`.
    package static func transactionKeys(_ statements: SQLHistoryStatements, dialect: any SQLDialect) -> [String: (column: SQLFragment, kind: KeyKind)] {
        let t = SQLHistoryStatements.transactionAlias
        return [
            "author": (statements.stringColumn("ZAUTHOR"), .string),
            "bundleID": (statements.stringColumn("ZBUNDLEID"), .string),
            "contextName": (statements.stringColumn("ZCONTEXTNAME"), .string),
            "processID": (statements.stringColumn("ZPROCESSID"), .string),
            "timestamp": (dialect.column("ZTIMESTAMP", of: t), .date),
            "transactionNumber": (dialect.column("Z_PK", of: t), .integer),
        ]
    }

    /// The keys of `NSPersistentHistoryChange`'s entity, over `ACHANGE` aliased `c`.
    package static func changeKeys(dialect: any SQLDialect) -> [String: (column: SQLFragment, kind: KeyKind)] {
        let c = SQLHistoryStatements.changeAlias
        return [
            "changeType": (dialect.column("ZCHANGETYPE", of: c), .integer),
            "changeID": (dialect.column("Z_PK", of: c), .integer),
        ]
    }

    /// The predicate as an SQL condition, or nil when some part of it does not lower.
    package func lower(_ node: PredicateNode) -> SQLFragment? {
        switch node {
        case .constant(let value):
            return SQLFragment(value ? "1 = 1" : "1 = 0")
        case .block:
            return nil
        case .compound(let kind, let children):
            var parts: [SQLFragment] = []
            for child in children {
                guard let part = lower(child) else { return nil }
                parts.append("(" + part + ")")
            }
            switch kind {
            case .not:
                guard parts.count == 1 else { return nil }
                return "NOT " + parts[0]
            case .and:
                return parts.isEmpty ? SQLFragment("1 = 1") : parts.joined(separator: " AND ")
            case .or:
                return parts.isEmpty ? SQLFragment("1 = 0") : parts.joined(separator: " OR ")
            }
        case .comparison(let comparison):
            return lower(comparison)
        }
    }

    private func lower(_ comparison: ComparisonNode) -> SQLFragment? {
        guard comparison.modifier == .direct, comparison.options.isEmpty, comparison.customSelector == nil else { return nil }
        var operatorType = comparison.operatorType
        let key: String, constant: Any?
        switch (comparison.left, comparison.right) {
        case (.keyPath(.evaluatedObject, let name), .constant(let value)):
            (key, constant) = (name, value)
        case (.constant(let value), .keyPath(.evaluatedObject, let name)):
            (key, constant) = (name, value)
            switch operatorType {
            case .lessThan: operatorType = .greaterThan
            case .lessThanOrEqualTo: operatorType = .greaterThanOrEqualTo
            case .greaterThan: operatorType = .lessThan
            case .greaterThanOrEqualTo: operatorType = .lessThanOrEqualTo
            default: break
            }
        default:
            return nil
        }
        guard let (column, kind) = keys[key], let value = sqlValue(constant, kind: kind) else { return nil }
        let parameter = dialect.parameter(value)
        switch operatorType {
        case .equalTo: return dialect.isNotDistinct(column, parameter)
        case .notEqualTo: return dialect.isDistinct(column, parameter)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard kind != .string, !value.isNull else { return nil }
            let symbol = [NSComparisonPredicate.Operator.lessThan: " < ", .lessThanOrEqualTo: " <= ", .greaterThan: " > ", .greaterThanOrEqualTo: " >= "][operatorType]!
            return column + symbol + parameter
        default:
            return nil
        }
    }

    /// The constant as a bound value of the key's kind; nil when it is of another kind.
    private func sqlValue(_ constant: Any?, kind: KeyKind) -> SQLValue? {
        guard let constant, !(constant is NSNull) else { return .null }
        switch kind {
        case .string:
            return (constant as? String).map(SQLValue.text)
        case .integer:
            if constant is Bool { return nil }
            if let int = constant as? Int { return .integer(Int64(int)) }
            if let int = constant as? Int64 { return .integer(int) }
            if let number = constant as? NSNumber, let int = Int64(exactly: number.doubleValue) { return .integer(int) }
            return nil
        case .date:
            return (constant as? Date).map { .real($0.timeIntervalSinceReferenceDate) }
        }
    }
}

extension SQLValue {
    /// Whether the value is NULL.
    fileprivate var isNull: Bool { if case .null = self { return true } else { return false } }
}
