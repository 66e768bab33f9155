import Foundation
import GRDB

// MARK: - Saving

extension SQLiteStore {
    func writePlan(for entity: NSEntityDescription) -> SQLiteWritePlan {
        let key = ObjectIdentifier(entity)
        if let plan = caches.withLock({ $0.writePlans[key] }) { return plan }
        let plan = SQLiteWritePlan(entity: entity, schema: schema, dialect: Self.dialect)
        caches.withLock { $0.writePlans[key] = plan }
        return plan
    }

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int, store: NSPersistentStore) throws -> Int64 {
        try writeTransaction { db in try reserveKeys(db, root: entity.rootEntity, count: count) }
    }

    /// Adds `count` to the hierarchy's `Z_MAX` and returns the first reserved key.
    ///
    /// `Z_MAX` is read and checked first: SQLite turns an integer sum that overflows into a
    /// REAL, so a damaged `Z_MAX` near `Int64.max` (or one that is not an integer) would hand out
    /// keys that are not integers. It fails the save with `NSSQLiteError` (134180) instead.
    private func reserveKeys(_ db: Database, root: NSEntityDescription, count: Int) throws -> Int64 {
        guard let current = try storedMaxKey(db, root: root) else {
            try setMaxKey(db, root: root, to: Int64(count), rowExists: false)
            return 1
        }
        let (newMax, overflow) = current.addingReportingOverflow(Int64(count))
        guard !overflow else { throw corruptKeyCounter(root, current.databaseValue, reason: "leaves no room for \(count) more primary keys") }
        try setMaxKey(db, root: root, to: newMax, rowExists: true)
        return current + 1
    }

    /// The hierarchy's `Z_PRIMARYKEY.Z_MAX` (0 when NULL), or nil when it has no row there.
    /// - Throws: `NSSQLiteError` when it is not a non-negative integer.
    func storedMaxKey(_ db: Database, root: NSEntityDescription) throws -> Int64? {
        let number = Int64(schema.entityNumber(of: root))
        guard let stored = try Row.fetchOne(db, sql: Self.bookkeeping.selectMaxKey, arguments: [number]) else { return nil }
        switch (stored[0] as DatabaseValue).storage {
        case .null: return 0
        case .int64(let value) where value >= 0: return value
        default: throw corruptKeyCounter(root, stored[0], reason: "is not a non-negative integer")
        }
    }

    /// Writes the hierarchy's `Z_MAX` (adding its `Z_PRIMARYKEY` row when it has none).
    func setMaxKey(_ db: Database, root: NSEntityDescription, to value: Int64, rowExists: Bool) throws {
        let number = Int64(schema.entityNumber(of: root))
        if rowExists {
            try Self.execute(db, Self.bookkeeping.setMaxKey, [value, number])
        } else {
            try Self.execute(db, Self.bookkeeping.insertEntity, [number, root.name ?? "", 0, value])
        }
    }

    /// The error of a batch insert that would take keys past `Int64.max`.
    func exhaustedKeyCounter(_ root: NSEntityDescription, _ value: Int64) -> NSError {
        corruptKeyCounter(root, value.databaseValue, reason: "leaves no room for more primary keys")
    }

    /// The error of a save whose `Z_PRIMARYKEY.Z_MAX` cannot give out keys.
    private func corruptKeyCounter(_ root: NSEntityDescription, _ value: DatabaseValue, reason: String) -> NSError {
        CoreDataError.make(NSSQLiteError, "The store \(url.path) is damaged: Z_PRIMARYKEY.Z_MAX of \(root.name ?? "?") (\(value)) \(reason); nothing was saved.",
                           userInfo: [NSFilePathErrorKey: url.path])
    }

    /// Writes a save in one transaction: conflicts are checked first, then keys are reserved
    /// (`Z_MAX` once per hierarchy), then deletes, updates, inserts and relationship rows.
    ///
    /// Values stored outside their rows are written to new files inside the transaction; the
    /// files of replaced and deleted values are removed once it has committed, and the new files
    /// are removed if it fails (`SQLiteExternalDataWrites`).
    func save(_ request: StoreSaveRequest, store: NSPersistentStore) throws -> StoreSaveResult {
        // Encoded before the transaction: metadata that is not a property list fails the save.
        let metadata = try request.metadata.map(SQLiteMetadata.encode)
        let files = SQLiteExternalDataWrites(externalData)
        let result: StoreSaveResult
        do {
            result = try writeRows(request, metadata: metadata, files: files, store: store)
        } catch {
            files.discardWritten()
            throw error
        }
        files.removeObsolete()
        return result
    }

    /// The transaction of `save`.
    private func writeRows(_ request: StoreSaveRequest, metadata: Data?, files: SQLiteExternalDataWrites, store: NSPersistentStore) throws -> StoreSaveResult {
        try writeTransaction { db in
            // Reports left by batch requests or a failed save are not this save's.
            _ = derivedReports.drain()
            try checkConflicts(request, db: db, store: store)
            if let metadata {
                try Self.execute(db, Self.bookkeeping.updateMetadata, [metadata, SQLBookkeepingStatements.metadataVersion])
            }
            var result = StoreSaveResult()

            // Primary keys for temporary IDs, reserved once per hierarchy.
            var temporaryCounts: [ObjectIdentifier: (root: NSEntityDescription, count: Int)] = [:]
            var permanentMax: [ObjectIdentifier: (root: NSEntityDescription, key: Int64)] = [:]
            for insert in request.inserted {
                let root = insert.objectID.entity.rootEntity
                if insert.objectID.isTemporaryID {
                    temporaryCounts[ObjectIdentifier(root), default: (root, 0)].count += 1
                } else {
                    let key = max(permanentMax[ObjectIdentifier(root)]?.key ?? 0, insert.objectID.primaryKey)
                    permanentMax[ObjectIdentifier(root)] = (root, key)
                }
            }
            var nextKey: [ObjectIdentifier: Int64] = [:]
            for (key, entry) in temporaryCounts {
                nextKey[key] = try reserveKeys(db, root: entry.root, count: entry.count)
            }
            for entry in permanentMax.values {
                try Self.execute(db, Self.bookkeeping.raiseMaxKey, [0, entry.key, Int64(schema.entityNumber(of: entry.root))])
            }
            let reference = store.handle
            result.permanentIDs.reserveCapacity(request.inserted.count)
            for insert in request.inserted where insert.objectID.isTemporaryID {
                let root = ObjectIdentifier(insert.objectID.entity.rootEntity)
                let key = nextKey[root]!
                nextKey[root] = key &+ 1  // past the last key only when Z_MAX reached Int64.max; never used
                result.permanentIDs.assign(NSManagedObjectID(entity: insert.objectID.entity, primaryKey: key, handle: reference), to: insert.objectID)
            }
            let map = result.permanentIDs
            func resolve(_ id: NSManagedObjectID) -> NSManagedObjectID { map.resolve(id) }
            func resolved(_ values: StoreValues) -> StoreValues { map.remapped(values) }
            // Built before the deletes: a deleted row's preserved values are read from it.
            let historyRows = keepsHistory ? try historyChanges(request, permanentIDs: map, db: db) : []

            try writeDeletes(request.deleted, files: files, db: db)
            var relationshipWork: [(plan: SQLiteWritePlan, key: Int64, values: StoreValues, slots: Set<Int>?)] = []
            for update in request.updated {
                let values = resolved(update.snapshot.values)
                let plan = writePlan(for: update.snapshot.objectID.entity)
                try writeUpdate(update, values: values, plan: plan, files: files, db: db, store: store)
                relationshipWork.append((plan, update.snapshot.objectID.primaryKey, values, Set(update.changedIndices)))
            }
            var insertStatements: [ObjectIdentifier: Statement] = [:]
            for insert in request.inserted {
                let id = resolve(insert.objectID)
                var values = resolved(insert.values)
                let plan = writePlan(for: id.entity)
                if !plan.externalSlots.isEmpty {
                    values = try files.externalized(values, slots: plan.externalSlots)
                }
                let statement: Statement
                if let cached = insertStatements[ObjectIdentifier(plan)] {
                    statement = cached
                } else {
                    Log.sql.debug("\(plan.insertSQL)")
                    statement = try db.cachedStatement(sql: plan.insertSQL)
                    insertStatements[ObjectIdentifier(plan)] = statement
                }
                let handle = statement.sqliteStatement
                SQLiteRawBinding.reset(handle)
                SQLiteRawBinding.bind(id.primaryKey, to: handle, at: 1)
                SQLiteRawBinding.bind(plan.entityNumber, to: handle, at: 2)
                SQLiteRawBinding.bind(Int64(max(insert.version, 1)), to: handle, at: 3)
                var position: Int32 = 4
                for column in plan.insertColumns {
                    plan.bind(column.source, in: values, schema: schema, to: handle, at: position)
                    position += 1
                }
                try SQLiteRawBinding.step(statement, db: db)
                if plan.writesRelationships {
                    relationshipWork.append((plan, id.primaryKey, values, nil))
                }
            }
            var ownerChanges = OwnerColumnChanges()
            for work in relationshipWork {
                try writeRelationships(plan: work.plan, key: work.key, values: work.values, changedSlots: work.slots,
                                       ownerChanges: &ownerChanges, db: db)
            }
            try writeOwnerColumns(ownerChanges, db: db, store: store)
            if keepsHistory, let number = try SQLiteHistoryRecorder.record(
                HistoryTransactionInfo(author: request.transactionAuthor, contextName: request.contextName), changes: historyRows, db: db) {
                result.historyTransactionNumbers[store.identifier] = number
            }
            result.derivedValueChanges = derivedReports.drain().compactMap { row in
                schema.entity(number: Int(row.entityNumber)).map { NSManagedObjectID(entity: $0, primaryKey: row.primaryKey, handle: reference) }
            }
            return result
        }
    }

    // MARK: - Rows

    private func writeDeletes(_ deletes: [StoreDelete], files: SQLiteExternalDataWrites, db: Database) throws {
        for delete in deletes {
            let plan = writePlan(for: delete.objectID.entity)
            let key = delete.objectID.primaryKey.databaseValue
            if let select = plan.selectExternalSQL {
                try noteStoredFiles(select, key: delete.objectID.primaryKey, files: files, db: db) { _ in true }
            }
            // A cached statement bound on the handle: a cascade deletes many rows (W7).
            Log.sql.debug("\(plan.deleteSQL)")
            let statement = try db.cachedStatement(sql: plan.deleteSQL)
            SQLiteRawBinding.reset(statement.sqliteStatement)
            SQLiteRawBinding.bind(delete.objectID.primaryKey, to: statement.sqliteStatement, at: 1)
            try SQLiteRawBinding.step(statement, db: db)
            for join in plan.joinRelationships {
                try Self.execute(db, join.deleteBySelfSQL, [key])
                if join.table.isSelfInverse {
                    try Self.execute(db, join.deleteByOtherSQL, [key])
                }
            }
            // Destinations that outlive their owner no longer name it (as its join rows go).
            for owned in plan.ownedDestinations {
                try Self.execute(db, owned.releaseAllSQL, [key])
            }
        }
    }

    private func writeUpdate(_ update: StoreUpdate, values: StoreValues, plan: SQLiteWritePlan, files: SQLiteExternalDataWrites,
                             db: Database, store: NSPersistentStore) throws {
        var values = values
        if let select = plan.selectExternalSQL {
            let changed = plan.externalSlots.filter { update.changedIndices.contains($0) }
            if !changed.isEmpty {
                try noteStoredFiles(select, key: update.snapshot.objectID.primaryKey, files: files, db: db) { changed.contains(plan.externalSlots[$0]) }
                values = try files.externalized(values, slots: changed)
            }
        }
        var columns: [(column: Int, source: SQLiteWritePlan.ColumnSource)] = []
        for slot in update.changedIndices.sorted() {
            columns.append(contentsOf: plan.columnsBySlot[slot] ?? [])
        }
        columns.sort { $0.column < $1.column }
        let sql = plan.updateSQL(columns: columns.map(\.column))
        Log.sql.debug("\(sql)")
        // Bound on the handle like the inserts: saves of many changed rows (W2, W6, W8).
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        SQLiteRawBinding.reset(handle)
        SQLiteRawBinding.bind(update.snapshot.version, to: handle, at: 1)
        var position: Int32 = 2
        for column in columns {
            plan.bind(column.source, in: values, schema: schema, to: handle, at: position)
            position += 1
        }
        SQLiteRawBinding.bind(update.snapshot.objectID.primaryKey, to: handle, at: position)
        SQLiteRawBinding.bind(update.expectedVersion, to: handle, at: position + 1)
        try SQLiteRawBinding.step(statement, db: db)
        if db.changesCount != 1 {
            // Checked before writing, so only a writer that bypassed the lock gets here.
            let current = try currentRow(update.snapshot.objectID, db: db, store: store)
            throw StoreSaveConflicts(optimistic: [StoreOptimisticConflict(objectID: update.snapshot.objectID, expectedVersion: update.expectedVersion, current: current)])
        }
    }

    /// Records the external files a row's current values refer to (the external columns whose
    /// position `includes` accepts), to remove once the save has committed.
    func noteStoredFiles(_ select: String, key: Int64, files: SQLiteExternalDataWrites, db: Database,
                                 includes: (Int) -> Bool) throws {
        Log.sql.debug("\(select)")
        guard let row = try Row.fetchOne(db.cachedStatement(sql: select), arguments: [key]) else { return }
        files.noteReplaced(row, db: db, includes: includes)
    }

    // MARK: - Relationships

    /// Writes the to-many relationships of a saved row: join-table pairs and `Z_FOK_` positions;
    /// owner-column changes are collected in `ownerChanges`, written once every row's are known.
    /// `changedSlots` nil means a new row (every non-empty list is written).
    private func writeRelationships(plan: SQLiteWritePlan, key: Int64, values: StoreValues, changedSlots: Set<Int>?,
                                    ownerChanges: inout OwnerColumnChanges, db: Database) throws {
        for owned in plan.ownedDestinations {
            guard changedSlots?.contains(owned.slot) ?? true, owned.slot < values.count, case .objectIDs(let ids) = values[owned.slot] else { continue }
            if changedSlots == nil && ids.isEmpty { continue }
            try ownerChanges.add(owned, owner: key, destinations: ids.map(\.primaryKey), isNew: changedSlots == nil, db: db)
        }
        for join in plan.joinRelationships {
            guard changedSlots?.contains(join.slot) ?? true, join.slot < values.count, case .objectIDs(let ids) = values[join.slot] else { continue }
            if changedSlots == nil && ids.isEmpty { continue }
            try writeJoinList(join, key: key, destinations: ids.map(\.primaryKey), isNew: changedSlots == nil, db: db)
        }
        for children in plan.orderedChildren {
            guard changedSlots?.contains(children.slot) ?? true, children.slot < values.count, case .objectIDs(let ids) = values[children.slot] else { continue }
            for (position, id) in ids.enumerated() {
                try Self.execute(db, children.updateOrderSQL, [Int64(position + 1), id.primaryKey])
            }
        }
    }

    /// Makes the join table hold exactly `destinations` for the object `key` on one side.
    private func writeJoinList(_ join: SQLiteWritePlan.JoinRelationship, key: Int64, destinations: [Int64], isNew: Bool, db: Database) throws {
        let existing: Set<Int64>
        if isNew {
            existing = []
        } else {
            Log.sql.debug("\(join.selectOthersSQL)")
            existing = Set(try Int64.fetchAll(db, sql: join.selectOthersSQL, arguments: [key]))
        }
        let wanted = Set(destinations)
        for removed in existing.subtracting(wanted) {
            try Self.execute(db, join.deletePairSQL, [key, removed])
            if join.table.isSelfInverse {
                try Self.execute(db, join.deletePairSQL, [removed, key])
            }
        }
        for (position, destination) in destinations.enumerated() {
            if let updateOrderSQL = join.updateOrderSQL {
                if existing.contains(destination) {
                    try Self.execute(db, updateOrderSQL, [Int64(position + 1), key, destination])
                } else {
                    try Self.execute(db, join.insertSQL, [key, destination, Int64(position + 1)])
                }
            } else if !existing.contains(destination) {
                try Self.execute(db, join.insertSQL, [key, destination])
            }
            if join.table.isSelfInverse && !existing.contains(destination) {
                try Self.execute(db, join.insertMirrorSQL, [destination, key])
            }
        }
    }
}
