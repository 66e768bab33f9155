import Foundation
import GRDB

/// Checks at open that a store has every table and column its model maps to.
///
/// Version hashes say which model a store was saved with, not what its tables hold: a store
/// whose metadata matches the model can still lack a column (written by another tool, by a layout
/// OpenCoreData got wrong, or edited by hand), and every read that selects it would then fail.
/// Refusing such a store at `addPersistentStore` names the entity, property, table and column
/// once, instead of letting each fetch or fault fail later (issue 37).
///
/// Cost: one statement per open, reading `sqlite_master` joined with `pragma_table_info`
/// (no row of any entity table is read).
enum SQLiteSchemaCheck {
    /// A column as the store declares it.
    struct StoredColumn {
        let isNotNull: Bool
        let hasDefault: Bool
        let isPrimaryKey: Bool
    }

    /// The columns of every table by upper-cased name, by upper-cased table name (SQLite compares
    /// identifiers without regard to ASCII case).
    typealias StoredTables = [String: [String: StoredColumn]]

    /// Reads the columns of every table of a store in one statement.
    static func storedTables(_ db: Database) throws -> StoredTables {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT m.name, p.name, p."notnull", p.dflt_value IS NOT NULL, p.pk
            FROM sqlite_master AS m, pragma_table_info(m.name) AS p
            WHERE m.type = 'table'
            """)
        var tables: StoredTables = [:]
        while let row = try rows.next() {
            guard let table: String = row[0], let column: String = row[1] else { continue }
            let stored = StoredColumn(isNotNull: (row[2] as Int64?) == 1, hasDefault: (row[3] as Int64?) == 1, isPrimaryKey: (row[4] as Int64? ?? 0) != 0)
            tables[table.uppercased(), default: [:]][column.uppercased()] = stored
        }
        return tables
    }

    /// Throws `NSPersistentStoreIncompatibleSchemaError` when a table or column the schema maps
    /// to is missing, or — for a store opened for writing — when a table the model writes has a
    /// `NOT NULL` column without a default that no property fills (every insert would fail).
    ///
    /// - Throws: the error names the first mismatch's entity, property, table and column in its
    ///   description and in `userInfo` (`entity`, `property`, `table`, `column`), and lists every
    ///   mismatch under `mismatches`.
    static func check(_ schema: SQLStoreSchema, tables stored: StoredTables, url: URL, writable: Bool) throws {
        var mismatches: [Mismatch] = []
        for table in schema.expectedTables {
            guard let columns = stored[table.name.uppercased()] else {
                mismatches.append(Mismatch(table: table, column: nil))
                continue
            }
            var expectedNames = Set<String>()
            for column in table.columns {
                expectedNames.insert(column.name.uppercased())
                if columns[column.name.uppercased()] == nil { mismatches.append(Mismatch(table: table, column: column)) }
            }
            guard writable else { continue }
            for (name, column) in columns.sorted(by: { $0.key < $1.key })
            where column.isNotNull && !column.hasDefault && !column.isPrimaryKey && !expectedNames.contains(name) {
                mismatches.append(Mismatch(table: table, column: nil, unfilledColumn: name))
            }
        }
        guard let first = mismatches.first else { return }
        let shown = mismatches.prefix(5).map(\.description).joined(separator: "; ")
        let more = mismatches.count > 5 ? "; and \(mismatches.count - 5) more" : ""
        var info: [String: Any] = [NSFilePathErrorKey: url.path, "mismatches": mismatches.map(\.description),
                                   "entity": first.entity.name ?? "", "table": first.table.name]
        if let property = first.property { info["property"] = property.name }
        if let column = first.column?.name ?? first.unfilledColumn { info["column"] = column }
        throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError,
                                 "The SQLite store at \(url.path) does not have the schema its model maps to: \(shown)\(more). The store was not changed.",
                                 userInfo: info)
    }

    // MARK: - Mismatches

    /// One missing table or column, or a column no property fills.
    struct Mismatch: CustomStringConvertible {
        let table: SQLStoreSchema.ExpectedTable
        /// The missing column; nil when the whole table is missing or for `unfilledColumn`.
        let column: SQLStoreSchema.ExpectedColumn?
        var unfilledColumn: String?

        var entity: NSEntityDescription { column?.entity ?? table.entity }
        var property: NSPropertyDescription? { column?.property ?? table.relationship }

        var description: String {
            let owner = table.relationship.map { Self.describe($0, of: table.entity) } ?? "entity '\(table.entity.name ?? "?")'"
            if let unfilledColumn {
                return "the table \(table.name) of \(owner) has a NOT NULL column \(unfilledColumn) without a default that no property fills"
            }
            guard let column else { return "no table \(table.name) for \(owner)" }
            return "no column \(column.name) in table \(table.name) for \(Self.describe(column.property, of: column.entity))"
        }

        private static func describe(_ property: NSPropertyDescription?, of entity: NSEntityDescription) -> String {
            let entityName = "entity '\(entity.name ?? "?")'"
            guard let property else { return entityName + " (Core Data's bookkeeping)" }
            let kind = property is NSRelationshipDescription ? "relationship" : "attribute"
            return "the \(kind) '\(property.name)' of \(entityName)"
        }
    }
}
