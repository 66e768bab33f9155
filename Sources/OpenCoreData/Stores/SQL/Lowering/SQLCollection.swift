import Foundation

// MARK: - SQLCollection

/// A to-many key path (`tags`, `tags.name`, `department.employees`) or a `SUBQUERY`: rows of a
/// correlated subquery, each yielding an object or a value.
package struct SQLCollection {
    /// `FROM` text of the correlated subquery, joins included.
    package var from: SQLFragment
    /// Conditions tying the rows to their owner (and the entity filter, and a SUBQUERY's predicate).
    package var conditions: [SQLFragment]
    /// The destination rows.
    package var row: SQLObjectReference
    /// What each element is: the row itself, or a value read from it.
    package var element: Element
    /// The owner's key when the owner may be missing (a to-many behind a nil to-one): then the
    /// collection is nil in memory, so `@count` is nil and `ALL` is false.
    package var nullableOwnerKey: SQLFragment?
    /// ORDER BY terms of an ordered relationship, in its order.
    package var order: [SQLFragment]?
    /// Whether the collection is an array in memory (an ordered relationship, a SUBQUERY's
    /// result), whose key-path values keep nils; a set drops them.
    package var isArray: Bool
    /// The alias of the owner's scope: joins on values picked from the collection go there.
    package var ownerAlias: String

    package enum Element {
        case rows
        /// A value per row. In an unordered relationship, Key-Value Coding drops nil values (it
        /// builds a set); an ordered one keeps them (as `NSNull`).
        case value(SQLScalar, dropsNil: Bool)
    }

    /// The WHERE conditions that select the elements (nil values left out when KVC leaves them out).
    package var elementConditions: [SQLFragment] {
        if case .value(let scalar, dropsNil: true) = element, scalar.isNullable {
            return conditions + [scalar.sql + " IS NOT NULL"]
        }
        return conditions
    }

    /// `SELECT <columns> FROM … WHERE …` over the elements, with extra conditions.
    package func select(_ columns: SQLFragment, where extra: [SQLFragment] = [], ordered: Bool = false) -> SQLFragment {
        var sql = "SELECT " + columns + " FROM " + from
        let all = elementConditions + extra
        if !all.isEmpty {
            sql.append(" WHERE ")
            sql.append(all.count == 1 ? all[0] : all.map { "(" + $0 + ")" }.joined(separator: " AND "))
        }
        if ordered, let order, !order.isEmpty {
            sql.append(" ORDER BY ")
            sql.append(order.joined(separator: ", "))
        }
        return sql
    }

    /// The value each element yields, as a scalar (the row's key for `.rows`).
    package var elementScalar: SQLScalar {
        switch element {
        case .rows: return row.scalar
        case .value(let scalar, _): return scalar
        }
    }
}
