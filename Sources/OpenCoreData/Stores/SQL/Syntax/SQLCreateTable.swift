import Foundation

/// `CREATE TABLE name (column type, …, PRIMARY KEY (…))`.
package struct SQLCreateTable: Equatable, Sendable {
    /// One column definition.
    package struct Column: Equatable, Sendable {
        package var name: String
        package var type: SQLColumnType
        /// A declared length, as in `VARCHAR(255)`.
        package var length: Int?
        /// `INTEGER PRIMARY KEY`: the row's key.
        package var isPrimaryKey: Bool

        package init(_ name: String, _ type: SQLColumnType, length: Int? = nil, isPrimaryKey: Bool = false) {
            self.name = name
            self.type = type
            self.length = length
            self.isPrimaryKey = isPrimaryKey
        }
    }

    package var name: String
    package var columns: [Column]
    /// A composite primary key, as a table constraint after the columns.
    package var primaryKey: [String]
    /// Whether the column list is padded with spaces, `( a, b )`: Apple writes its entity and
    /// join tables so, and its `Z_PRIMARYKEY` and `Z_METADATA` tables without (formats.md §3).
    package var padsColumnList: Bool

    package init(_ name: String, columns: [Column], primaryKey: [String] = [], padsColumnList: Bool = true) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.padsColumnList = padsColumnList
    }

    /// The statement text.
    package func sql(in dialect: any SQLDialect) -> String {
        var parts = columns.map { column in
            dialect.quote(column.name) + " " + dialect.typeName(of: column.type, length: column.length) + (column.isPrimaryKey ? " PRIMARY KEY" : "")
        }
        if !primaryKey.isEmpty {
            parts.append("PRIMARY KEY (" + primaryKey.map(dialect.quote).joined(separator: ", ") + ")")
        }
        let list = parts.joined(separator: ", ")
        return "CREATE TABLE " + dialect.quote(name) + (padsColumnList ? " ( " + list + " )" : " (" + list + ")")
    }
}
