import Foundation
import GRDB

// MARK: - External data across a migration

extension SQLiteLightweightMigration {
    /// The files the source tables' external-storage columns refer to (OpenCoreData markers).
    ///
    /// Read from the source tables while they are set aside, before they are dropped.
    func externalFilesReferenced(bySourceTables present: Set<String>, externalData: SQLiteExternalData, _ db: Database) throws -> Set<URL> {
        var files = Set<URL>()
        for table in source.tables where present.contains(table.name) {
            let columns = table.columns.filter { column in
                guard case .attribute = column.role, let attribute = column.property as? NSAttributeDescription else { return false }
                return SQLiteExternalData.isExternal(attribute)
            }
            for column in columns {
                try forEachMarker(in: Self.asidePrefix + table.name, column: column.name, db) { _, text in
                    if let marker = SQLiteExternalData.parseMarker(text) { files.insert(externalData.fileURL(marker.name)) }
                }
            }
        }
        return files
    }

    /// Puts back into their rows the values of attributes that no longer allow external storage
    /// (their markers would otherwise read as values), and returns the files the destination
    /// tables still refer to.
    func settleExternalData(_ externalData: SQLiteExternalData, _ db: Database) throws -> Set<URL> {
        var referenced = Set<URL>()
        for table in destination.tables {
            for column in table.columns {
                guard case .attribute = column.role, let attribute = column.property as? NSAttributeDescription,
                      attribute.attributeType == .binaryDataAttributeType || attribute.attributeType == .transformableAttributeType else { continue }
                var inlined: [(key: Int64, value: DatabaseValue)] = []
                try forEachMarker(in: table.name, column: column.name, db) { key, text in
                    guard let marker = SQLiteExternalData.parseMarker(text) else { return }
                    if SQLiteExternalData.isExternal(attribute) {
                        referenced.insert(externalData.fileURL(marker.name))
                    } else {
                        // A file that cannot be read fails the migration (the store is left
                        // unchanged) rather than writing NULL over the value.
                        let data = try externalData.read(marker.name, expectedCount: marker.byteCount)
                        inlined.append((key, data.databaseValue))
                    }
                }
                guard !inlined.isEmpty else { continue }
                let update = SQLUpdate(table.name, set: [column.name], where: ["Z_PK"]).sql(in: dialect)
                for row in inlined {
                    try SQLiteStore.execute(db, update, [row.value, row.key])
                }
            }
        }
        return referenced
    }

    /// Calls `body` with the key and text of each TEXT value of a column that starts like a marker.
    private func forEachMarker(in table: String, column: String, _ db: Database, _ body: (Int64, String) throws -> Void) throws {
        var select = SQLSelect(from: dialect.identifier(table))
        select.columns = [dialect.identifier("Z_PK"), dialect.identifier(column)]
        select.conditions = ["typeof(" + dialect.identifier(column) + ") = 'text'",
                             "substr(" + dialect.identifier(column) + ", 1, " + dialect.parameter(.integer(Int64(SQLiteExternalData.markerPrefix.count)))
                                + ") = " + dialect.parameter(.text(SQLiteExternalData.markerPrefix))]
        let query = select.render(in: dialect)
        let rows = try Row.fetchCursor(db, sql: query.sql(in: dialect), arguments: query.statementArguments)
        while let row = try rows.next() {
            guard let key: Int64 = row[0], let text: String = row[1] else { continue }
            try body(key, text)
        }
    }
}
