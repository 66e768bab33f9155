import Foundation
import GRDB

// MARK: - Another implementation's references

extension SQLiteExternalData {
    /// The file a BLOB names when the store's bookkeeping vouches for it as another
    /// implementation's reference, and nil when the BLOB is a value.
    ///
    /// Only in a store OpenCoreData did not create (`readsForeignReferences`); there a BLOB
    /// shaped like a reference (`foreignReference`) owns the file it names when
    /// - the file exists (a missing file means the BLOB is a value: it reads as its own bytes,
    ///   never as nil), and
    /// - no other value in any flagged column of the store names that file: neither a marker of
    ///   ours nor another BLOB of that shape (the BLOB itself is the one name counted).
    ///
    /// So a BLOB never reads another row's file (that row names it too) and deleting a row never
    /// removes a file another row names. OpenCoreData never writes such a BLOB into these stores
    /// (`SQLiteExternalDataWrites.externalized`), so one that owns its file came from the other
    /// implementation. Any error while looking reads the BLOB as a value.
    ///
    /// Complexity: one scan of the flagged columns' short BLOBs and markers, O(rows), for each
    /// BLOB of that shape whose file exists; other values cost nothing.
    func ownedForeignReference(_ data: Data, db: Database) -> UUID? {
        guard readsForeignReferences, let name = Self.foreignReference(data),
              FileManager.default.fileExists(atPath: fileURL(name).path) else { return nil }
        do {
            return try namingCount(of: name, db: db, stoppingAfter: 2) == 1 ? name : nil
        } catch {
            Log.store.error("Cannot tell whether a value of the store \(storeURL.path) refers to the external data file \(name.uuidString) (\(error)); it reads as a value.")
            return nil
        }
    }

    /// How many values in the flagged columns name the file `name` (markers, and BLOBs shaped like
    /// references), counting up to `limit`.
    func namingCount(of name: UUID, db: Database, stoppingAfter limit: Int) throws -> Int {
        let dialect = SQLiteStore.dialect
        var count = 0
        for candidate in foreignColumns {
            let column = dialect.identifier(candidate.column)
            var select = SQLSelect(from: dialect.identifier(candidate.table))
            select.columns = [column]
            select.conditions = ["(typeof(" + column + ") = 'blob' AND length(" + column + ") BETWEEN "
                                    + dialect.parameter(.integer(Int64(Self.foreignReferenceLengths.lowerBound))) + " AND "
                                    + dialect.parameter(.integer(Int64(Self.foreignReferenceLengths.upperBound))) + ") OR (typeof(" + column
                                    + ") = 'text' AND substr(" + column + ", 1, " + dialect.parameter(.integer(Int64(Self.markerPrefix.utf8.count)))
                                    + ") = " + dialect.parameter(.text(Self.markerPrefix)) + ")"]
            let query = select.render(in: dialect)
            let values = try DatabaseValue.fetchCursor(db, sql: query.sql(in: dialect), arguments: query.statementArguments)
            while let value = try values.next() {
                let named: UUID?
                switch value.storage {
                case .blob(let data): named = Self.foreignReference(data)
                case .string(let text): named = Self.parseMarker(text)?.name
                default: named = nil
                }
                if named == name {
                    count += 1
                    if count >= limit { return count }
                }
            }
        }
        return count
    }
}
