import Foundation

/// `INSERT INTO table (columns) VALUES (?, …)`: one bound parameter per column, bound by
/// position when the statement runs, so its text is built once per table and column set.
package struct SQLInsert: Equatable, Sendable {
    package var table: String
    package var columns: [String]
    package var conflict: SQLConflictResolution

    package init(into table: String, columns: [String], onConflict conflict: SQLConflictResolution = .abort) {
        self.table = table
        self.columns = columns
        self.conflict = conflict
    }

    /// The statement text; its parameters are the columns' values, in order.
    package func sql(in dialect: any SQLDialect) -> String {
        let names = columns.map(dialect.quote).joined(separator: ", ")
        let markers = Array(repeating: SQLFragment.placeholder, count: columns.count).joined(separator: ", ")
        var text = dialect.insertVerb(conflict) + " " + dialect.quote(table) + " (" + names + ") VALUES (" + markers + ")"
        let clause = dialect.conflictClause(conflict)
        if !clause.isEmpty { text += " " + clause }
        return SQLFragment.finish(text, in: dialect)
    }
}
