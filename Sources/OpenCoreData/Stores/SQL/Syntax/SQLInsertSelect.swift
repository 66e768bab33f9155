import Foundation

/// `INSERT INTO table (columns) SELECT …`: copies rows from a query, its values bound.
package struct SQLInsertSelect {
    package var table: String
    package var columns: [String]
    /// One selected value per column, in order.
    package var select: SQLSelect

    package init(into table: String, columns: [String], select: SQLSelect) {
        self.table = table
        self.columns = columns
        self.select = select
    }

    /// The statement text and its arguments.
    package func render(in dialect: any SQLDialect) -> SQLFragment {
        "INSERT INTO " + dialect.quote(table) + " (" + columns.map(dialect.quote).joined(separator: ", ") + ") "
            + select.render(in: dialect)
    }
}
