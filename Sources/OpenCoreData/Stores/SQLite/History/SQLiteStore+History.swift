import Foundation
import GRDB

// MARK: - Persistent history

extension SQLiteStore: HistoryStoreBackend {
    /// Whether the store keeps history once open: it has the tables, or tracking was asked for
    /// and they were created now. A store that has them is not altered and keeps recording even
    /// without the option (Apple would open it read-only instead; docs/Deviations.md).
    static func preparedHistoryTables(_ pool: DatabasePool, options: SQLiteStoreOptions) throws -> Bool {
        if options.readOnly { return try pool.read(SQLiteHistoryTables.exist) }
        // Checked on the writer: opening a reader connection here would keep the -wal file
        // after close (a read-only reader does not remove it when it closes last).
        if try pool.writeWithoutTransaction(SQLiteHistoryTables.exist) { return true }
        guard options.tracksHistory else { return false }
        try pool.write(SQLiteHistoryTables.create)
        return true
    }

    func lastHistoryTransactionNumber() throws -> Int64? {
        guard keepsHistory else { return nil }
        return try read { db in
            // Z_MAX, not MAX(Z_PK): the token stays where it was after deleteHistory emptied the table.
            let stored = try Int64.fetchOne(db, sql: Self.bookkeeping.selectMaxKey, arguments: [SQLHistoryStatements.transactionEntityNumber])
            let last = try Int64.fetchOne(db, sql: SQLiteHistoryRecorder.statements.selectLastTransaction)
            let number = max(stored ?? 0, last ?? 0)
            return number > 0 ? number : nil
        }
    }

    func executeHistory(_ request: StoreHistoryRequest, store: NSPersistentStore) throws -> StoreHistoryOutcome {
        guard keepsHistory else {
            throw CoreDataError.make(NSCoreDataError,
                                     "The store \(url.path) does not track persistent history: add it with NSPersistentHistoryTrackingKey set to true to record and read history.",
                                     userInfo: [NSAffectedStoresErrorKey: [store]])
        }
        if request.isDelete { return .deleted(try deleteHistory(request)) }
        return .transactions(try fetchHistory(request, store: store))
    }

    // MARK: - Recording saves

    /// The history rows of a save, built before its rows are written (a deleted row's preserved
    /// values are read while it is still there).
    func historyChanges(_ request: StoreSaveRequest, permanentIDs: PermanentIDMap, db: Database) throws -> [HistoryChangeRow] {
        var changes: [HistoryChangeRow] = []
        changes.reserveCapacity(request.inserted.count + request.updated.count + request.deleted.count)
        for insert in request.inserted {
            let id = permanentIDs.resolve(insert.objectID)
            changes.append(HistoryChangeRow(entityNumber: Int64(schema.entityNumber(of: id.entity)), primaryKey: id.primaryKey, kind: .insert))
        }
        for update in request.updated {
            let id = update.snapshot.objectID
            let properties = id.entity.layout.properties
            let names = update.changedIndices.sorted().compactMap { $0 < properties.count ? properties[$0].name : nil }
            changes.append(HistoryChangeRow(entityNumber: Int64(schema.entityNumber(of: id.entity)), primaryKey: id.primaryKey,
                                            kind: .update, updatedProperties: names))
        }
        for delete in request.deleted {
            let id = delete.objectID
            changes.append(HistoryChangeRow(entityNumber: Int64(schema.entityNumber(of: id.entity)), primaryKey: id.primaryKey,
                                            kind: .delete, tombstone: try tombstone(delete, db: db)))
        }
        return changes
    }

    /// The values of a deleted row's attributes that preserve theirs in history (never those
    /// stored outside the row), from the values the context read or else from the row; nil when
    /// the entity has none. A batch delete reads the same columns (`SQLiteTombstoneColumns`).
    private func tombstone(_ delete: StoreDelete, db: Database) throws -> [String: StoreValue]? {
        let entity = delete.objectID.entity
        guard let preserved = writePlan(for: entity).tombstoneColumns else { return nil }
        if let tombstone = preserved.tombstone(from: delete.committedValues, slotCount: entity.layout.properties.count) {
            return tombstone
        }
        guard let table = schema.table(for: entity) else { return [:] }
        let columns = preserved.columnNames.map { Self.dialect.column($0, of: SQLTranslationState.rootAlias) }
        var tombstone: [String: StoreValue] = [:]
        try run(db, builder.rows(in: table, columns: columns, keys: [delete.objectID.primaryKey])) { statement, arguments in
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            if try cursor.next() != nil { tombstone = preserved.tombstone(statement.sqliteStatement, from: 0) }
        }
        return tombstone
    }
}
