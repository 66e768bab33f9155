import Foundation

/// A SELECT statement assembled from typed fragments.
package struct SQLSelect {
    package var distinct = false
    package var columns: [SQLFragment] = []
    /// `ZTABLE t0`
    package var from: SQLFragment
    package var joins: [SQLFragment] = []
    /// Conditions joined with AND.
    package var conditions: [SQLFragment] = []
    package var orderBy: [SQLFragment] = []
    /// Bound as parameters (spelled by the dialect); nil or 0 means none.
    package var limit: Int?
    package var offset: Int?

    package init(from: SQLFragment) {
        self.from = from
    }

    /// The statement text and its arguments.
    package func render(in dialect: any SQLDialect) -> SQLFragment {
        var sql = SQLFragment(distinct ? "SELECT DISTINCT " : "SELECT ")
        sql.append(columns.joined(separator: ", "))
        sql.append(" FROM ")
        sql.append(from)
        for join in joins {
            sql.append(" ")
            sql.append(join)
        }
        if !conditions.isEmpty {
            sql.append(" WHERE ")
            sql.append(conditions.count == 1 ? conditions[0] : conditions.map { "(" + $0 + ")" }.joined(separator: " AND "))
        }
        if !orderBy.isEmpty {
            sql.append(" ORDER BY ")
            sql.append(orderBy.joined(separator: ", "))
        }
        sql.append(dialect.pagingClause(limit: limit ?? 0, offset: offset ?? 0))
        return sql
    }

    /// `SELECT COUNT(*)` over this query's rows (paging included).
    package func renderCount(in dialect: any SQLDialect) -> SQLFragment {
        let paged = (limit ?? 0) > 0 || (offset ?? 0) > 0
        if !paged && !distinct {
            var copy = self
            copy.columns = [SQLFragment("COUNT(*)")]
            copy.orderBy = []
            return copy.render(in: dialect)
        }
        var inner = self
        inner.orderBy = distinct ? [] : orderBy
        return "SELECT COUNT(*) FROM (" + inner.render(in: dialect) + ")"
    }
}

/// Why a request cannot be translated to SQL; the store then lets the context evaluate it in memory.
package struct SQLTranslationError: Error, CustomStringConvertible {
    package let description: String
    /// The predicate node, key path or sort that could not be lowered, when known.
    package let node: String?

    package init(_ description: String) {
        self.description = description
        self.node = nil
    }

    private init(node: String, description: String) {
        self.node = node
        self.description = description
    }

    /// A node whose SQL would not give the in-memory result.
    package static func unsupported(_ node: String, _ reason: String) -> SQLTranslationError {
        SQLTranslationError(node: node, description: "\(node) is evaluated in memory: \(reason).")
    }
}
