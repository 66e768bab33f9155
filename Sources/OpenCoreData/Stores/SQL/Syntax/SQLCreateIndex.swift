import Foundation

/// `CREATE [UNIQUE] INDEX name ON table (column [COLLATE c] [ASC|DESC], …)`.
package struct SQLCreateIndex: Equatable, Sendable {
    /// One indexed column.
    package struct Element: Equatable, Sendable {
        package var column: String
        package var collation: SQLCollation?
        /// nil: no direction written.
        package var isAscending: Bool?

        package init(_ column: String, collation: SQLCollation? = nil, ascending: Bool? = nil) {
            self.column = column
            self.collation = collation
            self.isAscending = ascending
        }
    }

    package var name: String
    package var table: String
    package var isUnique: Bool
    package var elements: [Element]

    package init(_ name: String, on table: String, _ elements: [Element], unique: Bool = false) {
        self.name = name
        self.table = table
        self.elements = elements
        self.isUnique = unique
    }

    /// The statement text.
    package func sql(in dialect: any SQLDialect) -> String {
        let list = elements.map { element in
            var term = dialect.quote(element.column)
            if let collation = element.collation { term += " COLLATE " + dialect.collationName(collation) }
            if let ascending = element.isAscending { term += ascending ? " ASC" : " DESC" }
            return term
        }
        return (isUnique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") + dialect.quote(name) + " ON " + dialect.quote(table)
            + " (" + list.joined(separator: ", ") + ")"
    }
}
