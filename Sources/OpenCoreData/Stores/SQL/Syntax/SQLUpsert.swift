import Foundation

/// `INSERT INTO table (columns) VALUES (?, …) ON CONFLICT (key) DO UPDATE SET … RETURNING …`:
/// the insert of a batch insert into an entity with uniqueness constraints.
///
/// A row whose constraint columns match a stored row updates that row instead (its columns in
/// `update` take the new values, `versionColumn` is incremented) and keeps its primary key; the
/// `RETURNING` columns tell which row was written. One `ON CONFLICT` clause per constraint
/// (SQLite ≥ 3.35 accepts several; a database that accepts one gets one-constraint entities).
package struct SQLUpsert: Equatable, Sendable {
    package var table: String
    package var columns: [String]
    /// The column lists of the unique indexes a row may collide with.
    package var conflictKeys: [[String]]
    /// The columns an existing row takes from the new one.
    package var update: [String]
    /// A counter column incremented on the existing row (`Z_OPT`).
    package var versionColumn: String?
    /// The columns returned for the row written (inserted or updated).
    package var returning: [String]
    /// A condition on the existing row (`DO UPDATE … WHERE`, its columns qualified by the
    /// table name) without which it is not updated; the new row is then not inserted either.
    package var updateCondition: String?

    package init(into table: String, columns: [String], conflictKeys: [[String]], update: [String], versionColumn: String?, returning: [String]) {
        self.table = table
        self.columns = columns
        self.conflictKeys = conflictKeys
        self.update = update
        self.versionColumn = versionColumn
        self.returning = returning
    }

    /// The statement text; its parameters are the columns' values, in order.
    package func sql(in dialect: any SQLDialect) -> String {
        let table = dialect.quote(self.table)
        let names = columns.map(dialect.quote).joined(separator: ", ")
        let markers = Array(repeating: SQLFragment.placeholder, count: columns.count).joined(separator: ", ")
        var set = update.map { dialect.quote($0) + " = excluded." + dialect.quote($0) }
        if let versionColumn {
            set.append(dialect.quote(versionColumn) + " = " + table + "." + dialect.quote(versionColumn) + " + 1")
        }
        var text = "INSERT INTO " + table + " (" + names + ") VALUES (" + markers + ")"
        for key in conflictKeys {
            text += " ON CONFLICT (" + key.map(dialect.quote).joined(separator: ", ") + ")"
            text += set.isEmpty ? " DO NOTHING" : " DO UPDATE SET " + set.joined(separator: ", ") + (updateCondition.map { " WHERE " + $0 } ?? "")
        }
        if !returning.isEmpty {
            text += " RETURNING " + returning.map(dialect.quote).joined(separator: ", ")
        }
        return SQLFragment.finish(text, in: dialect)
    }
}
