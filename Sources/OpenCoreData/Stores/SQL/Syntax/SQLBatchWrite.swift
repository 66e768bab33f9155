import Foundation

/// The set-based UPDATE and DELETE of batch requests: every row of a table a condition accepts
/// (the fetch's own conditions, or `Z_PK IN (subquery)`), with the changed rows' keys returned
/// when asked.
///
/// `UPDATE table AS alias SET column = expression, … WHERE condition [RETURNING …]`
/// and `DELETE FROM table AS alias WHERE … RETURNING …`. The expressions and the subquery are
/// fragments lowered with the same alias (`SQLTranslationState.rootAlias`), so `value + 1`
/// reads the row being updated. SQLite (≥ 3.35) and PostgreSQL both spell them this way.
package struct SQLBatchWrite: Sendable {
    /// Whether rows are updated or deleted.
    package enum Action: Sendable {
        /// `column = expression` pairs, in order.
        case update([(column: String, value: SQLFragment)])
        case delete
    }

    package var table: String
    package var alias: String
    package var action: Action
    /// The rows written: the table's rows whose `keyColumn` this condition accepts.
    package var condition: SQLFragment
    package var returning: [String]

    package init(_ action: Action, table: String, alias: String, where condition: SQLFragment, returning: [String]) {
        self.table = table
        self.alias = alias
        self.action = action
        self.condition = condition
        self.returning = returning
    }

    /// The statement text and its arguments (the assignments' first, then the condition's).
    package func render(in dialect: any SQLDialect) -> SQLFragment {
        let target = dialect.quote(table) + " AS " + dialect.quote(alias)
        var sql: SQLFragment
        switch action {
        case .update(let assignments):
            sql = SQLFragment("UPDATE " + target + " SET ")
            sql.append(assignments.map { dialect.identifier($0.column) + " = " + $0.value }.joined(separator: ", "))
        case .delete:
            sql = SQLFragment("DELETE FROM " + target)
        }
        sql.append(" WHERE ")
        sql.append(condition)
        if !returning.isEmpty {
            sql.append(" RETURNING " + returning.map(dialect.quote).joined(separator: ", "))
        }
        return sql
    }
}
