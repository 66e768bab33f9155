import Foundation

/// `DELETE FROM table WHERE key = ? AND …`, its parameters bound when it runs.
package struct SQLDelete: Equatable, Sendable {
    package var table: String
    /// Columns each compared with a bound parameter, joined with AND.
    package var keyColumns: [String]

    package init(from table: String, where keyColumns: [String]) {
        self.table = table
        self.keyColumns = keyColumns
    }

    /// The statement text; its parameters are the key columns' values, in order.
    package func sql(in dialect: any SQLDialect) -> String {
        SQLFragment.finish("DELETE FROM " + dialect.quote(table) + Self.whereClause(keyColumns, in: dialect), in: dialect)
    }

    /// ` WHERE a = ? AND b = ?` (placeholders, for the caller to finish), or nothing for no columns.
    static func whereClause(_ columns: [String], in dialect: any SQLDialect) -> String {
        guard !columns.isEmpty else { return "" }
        return " WHERE " + columns.map { dialect.equalsParameter($0).text }.joined(separator: " AND ")
    }
}
