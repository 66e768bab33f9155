import Foundation
import GRDB

// MARK: - Batch requests

extension SQLiteStore {
    /// Runs a batch insert, update or delete in one write transaction, the way a save runs:
    /// all or nothing, on the single writer connection.
    ///
    /// External-data files a batch insert or update writes are removed again if the transaction
    /// fails; the files of replaced or deleted values are removed only after it has committed.
    func executeBatch(_ request: StoreBatchRequest, origin: StoreChangeOrigin, store: NSPersistentStore) throws -> StoreBatchResult {
        let files = SQLiteExternalDataWrites(externalData)
        let changes: StoreBatchChanges
        do {
            changes = try writeTransaction { db in
                // Reports left by an earlier statement on the writer are not this request's.
                _ = derivedReports.drain()
                var changes = StoreBatchChanges()
                switch request {
                case .insert(let insert):
                    try batchInsert(insert, into: &changes, files: files, db: db)
                case .update(let update):
                    try batchUpdate(update, into: &changes, files: files, db: db, store: store)
                case .delete(let delete):
                    try batchDelete(delete, into: &changes, files: files, db: db, store: store)
                }
                noteDerivedValueChanges(into: &changes)
                try recordBatchChanges(changes, origin: origin, in: db)
                return changes
            }
        } catch {
            files.discardWritten()
            throw error
        }
        files.removeObsolete()
        return StoreBatchResult(changes: changes)
    }

    /// Records the rows a batch request changed as one persistent-history transaction, inside
    /// its write transaction (before the commit), when the store keeps history: every inserted,
    /// updated (upserted, nullified, derived) and deleted row, cascades included, as Apple's
    /// history has one change per row a batch request touches.
    ///
    /// Deleted rows carry the tombstone their `DELETE … RETURNING` read (the values of the
    /// attributes of the row's concrete entity that preserve theirs in history), encoded as a
    /// save's are.
    func recordBatchChanges(_ changes: StoreBatchChanges, origin: StoreChangeOrigin, in db: Database) throws {
        guard keepsHistory else { return }
        var rows: [HistoryChangeRow] = []
        for group in changes.groups {
            let number = Int64(schema.entityNumber(of: group.entity))
            let kind: StoreHistoryChangeKind = switch group.kind {
            case .insert: .insert
            case .update: .update
            case .delete: .delete
            }
            let properties = group.kind == .update ? group.updatedProperties : nil
            rows.reserveCapacity(rows.count + group.primaryKeys.count)
            for (index, key) in group.primaryKeys.enumerated() {
                rows.append(HistoryChangeRow(entityNumber: number, primaryKey: key, kind: kind, updatedProperties: properties,
                                             tombstone: group.tombstone(at: index)))
            }
        }
        _ = try SQLiteHistoryRecorder.record(HistoryTransactionInfo(author: origin.author, contextName: origin.contextName), changes: rows, db: db)
    }

    /// Adds the rows the derived-attribute triggers recomputed (another entity's `@count`) as
    /// side-effect updates of their derived attributes, unless the request already recorded them
    /// (a row's own derived value recomputed as it was inserted, updated or deleted).
    private func noteDerivedValueChanges(into changes: inout StoreBatchChanges) {
        let reported = derivedReports.drain()
        guard !reported.isEmpty else { return }
        var written = Set<SQLiteDerivedValueReports.Row>()
        for group in changes.groups {
            let number = Int64(schema.entityNumber(of: group.entity))
            for key in group.primaryKeys { written.insert(.init(entityNumber: number, primaryKey: key)) }
        }
        for row in reported.sorted(by: { ($0.entityNumber, $0.primaryKey) < ($1.entityNumber, $1.primaryKey) }) where !written.contains(row) {
            guard let entity = schema.entity(number: Int(row.entityNumber)) else { continue }
            let derived = entity.properties.compactMap { ($0 as? NSDerivedAttributeDescription)?.name }.sorted()
            changes.append(.update, entity: entity, primaryKey: row.primaryKey, updatedProperties: derived, isSideEffect: true)
        }
    }

    // MARK: - Shared helpers

    /// A batch request the store refuses: NSCoreDataError (134060) naming what and why; nothing was written.
    static func batchError(_ message: String, userInfo: [String: Any] = [:]) -> NSError {
        CoreDataError.make(NSCoreDataError, message + " Nothing was written.", userInfo: userInfo)
    }

    /// The `Z_PK`, `Z_ENT` pairs a statement returns (a SELECT or a write with `RETURNING`).
    func keyRows(_ db: Database, _ sql: SQLFragment) throws -> [(key: Int64, entity: Int64)] {
        var rows: [(key: Int64, entity: Int64)] = []
        try run(db, sql) { statement, arguments in
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            let handle = statement.sqliteStatement
            while try cursor.next() != nil {
                guard let key = SQLiteRowDecoder.integer(handle, 0) else { continue }
                rows.append((key, SQLiteRowDecoder.integer(handle, 1) ?? 0))
            }
        }
        return rows
    }
}
