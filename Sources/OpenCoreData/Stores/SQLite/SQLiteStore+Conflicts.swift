import Foundation
import GRDB

// MARK: - Conflicts found before a save writes anything

extension SQLiteStore {
    /// Finds optimistic-locking conflicts (`Z_OPT` changed since the context read the row) and
    /// uniqueness violations (against stored rows and inside the save), and throws them all at
    /// once. Runs inside the save transaction, which holds the write lock.
    func checkConflicts(_ request: StoreSaveRequest, db: Database, store: NSPersistentStore) throws {
        var conflicts = StoreSaveConflicts()
        let versions = try storedVersions(of: request.updated.map(\.snapshot.objectID) + request.deleted.map(\.objectID), db: db)
        for update in request.updated {
            let id = update.snapshot.objectID
            let version = versions.version(of: id, schema: schema)
            if version != update.expectedVersion {
                conflicts.optimistic.append(StoreOptimisticConflict(objectID: id, expectedVersion: update.expectedVersion,
                                                                    current: version == nil ? nil : try currentRow(id, db: db, store: store)))
            }
        }
        for delete in request.deleted {
            if let version = versions.version(of: delete.objectID, schema: schema), version != delete.expectedVersion {
                conflicts.optimistic.append(StoreOptimisticConflict(objectID: delete.objectID, expectedVersion: delete.expectedVersion,
                                                                    current: try currentRow(delete.objectID, db: db, store: store)))
            }
        }
        conflicts.constraints = try uniquenessViolations(request, db: db, store: store)
        if !conflicts.optimistic.isEmpty || !conflicts.constraints.isEmpty { throw conflicts }
    }

    /// The stored `Z_OPT` of rows, read with one `Z_PK IN (…)` query per table and chunk rather
    /// than one query per row: a cascade that deletes 100k rows checks 100k versions.
    private func storedVersions(of ids: [NSManagedObjectID], db: Database) throws -> StoredVersions {
        var versions = StoredVersions()
        let columns = [Self.dialect.column("Z_PK", of: SQLTranslationState.rootAlias), Self.dialect.column("Z_OPT", of: SQLTranslationState.rootAlias)]
        for (table, keys) in keyChunks(of: ids) {
            try run(db, builder.rows(in: table, columns: columns, keys: keys)) { statement, arguments in
                let cursor = try Row.fetchCursor(statement, arguments: arguments)
                let handle = statement.sqliteStatement
                while try cursor.next() != nil {
                    guard let key = SQLiteRowDecoder.integer(handle, 0) else { continue }
                    versions.byTable[ObjectIdentifier(table), default: [:]][key] = SQLiteRowDecoder.integer(handle, 1) ?? 0
                }
            }
        }
        return versions
    }

    /// The stored row of an object, as a snapshot.
    func currentRow(_ id: NSManagedObjectID, db: Database, store: NSPersistentStore) throws -> RowSnapshot? {
        guard let table = schema.table(for: id.entity) else { return nil }
        let decoder = decoder(for: table.root, includesSubentities: true)
        var rows: [RowSnapshot] = []
        try run(db, builder.rows(in: table, columns: decoder.selection, keys: [id.primaryKey])) { statement, arguments in
            try decoder.decodeAll(statement, arguments: arguments, store: store, db: db, into: &rows)
        }
        return rows.first
    }

    /// Uniqueness violations, as the in-memory store finds them: NULLs are distinct (as in SQL),
    /// rows deleted or rewritten by the same save are not held against it.
    private func uniquenessViolations(_ request: StoreSaveRequest, db: Database, store: NSPersistentStore) throws -> [StoreConstraintViolation] {
        // Most saves touch no constrained entity: look at each distinct entity once before copying rows.
        var entities: [ObjectIdentifier: NSEntityDescription] = [:]
        var last: NSEntityDescription?
        func note(_ entity: NSEntityDescription) {
            guard entity !== last else { return }
            entities[ObjectIdentifier(entity)] = entity
            last = entity
        }
        for row in request.inserted { note(row.objectID.entity) }
        for update in request.updated { note(update.snapshot.objectID.entity) }
        guard entities.values.contains(where: { !$0.effectiveUniquenessConstraints.isEmpty }) else { return [] }
        let written = request.inserted + request.updated.map(\.snapshot)
        let excluded = Set(request.deleted.map(\.objectID)).union(written.map(\.objectID))
        var violations: [StoreConstraintViolation] = []
        var checked = Set<String>()
        for row in written {
            let entity = row.objectID.entity
            for constraint in entity.effectiveUniquenessConstraints {
                let owner = entity.constraintOwner(of: constraint)
                guard checked.insert("\(ObjectIdentifier(owner).hashValue):\(constraint)").inserted else { continue }
                let properties = constraint.compactMap { owner.propertiesByName[$0] }
                let indices = constraint.compactMap { owner.layout.indexByName[$0] }
                guard indices.count == constraint.count, properties.count == constraint.count,
                      let table = schema.table(for: owner) else { continue }
                let columns = properties.compactMap { table.valueColumn(for: $0) }
                guard columns.count == constraint.count else { continue }

                // An update that leaves the constrained values as stored cannot collide with
                // another stored row (it is the row holding them): such rows are not looked up
                // alone, only compared with the other rows of this save.
                var constrainedIndices: [ObjectIdentifier: [Int]] = [:]
                var unchangedUpdates = Set<NSManagedObjectID>()
                for update in request.updated where update.snapshot.objectID.entity.isKindOf(entity: owner) {
                    let entity = update.snapshot.objectID.entity
                    let mine = constrainedIndices[ObjectIdentifier(entity)] ?? {
                        let found = constraint.compactMap { entity.layout.indexByName[$0] }
                        constrainedIndices[ObjectIdentifier(entity)] = found
                        return found
                    }()
                    if mine.count == constraint.count, !mine.contains(where: update.changedIndices.contains) {
                        unchangedUpdates.insert(update.snapshot.objectID)
                    }
                }
                // Only an inserted row or one whose constrained values changed can collide.
                guard written.contains(where: { $0.objectID.entity.isKindOf(entity: owner) && !unchangedUpdates.contains($0.objectID) }) else { continue }
                var groups: [[StoreValue]: [NSManagedObjectID]] = [:]
                var order: [[StoreValue]] = []
                for candidate in written where candidate.objectID.entity.isKindOf(entity: owner) {
                    let key = indices.map { $0 < candidate.values.count ? candidate.values[$0] : StoreValue.null }
                    if key.contains(where: \.isNull) { continue }
                    if groups[key] == nil { order.append(key) }
                    groups[key, default: []].append(candidate.objectID)
                }
                for key in order {
                    let ids = groups[key]!
                    if ids.count == 1, unchangedUpdates.contains(ids[0]) { continue }
                    let stored = try storedRow(holding: key, columns: columns, owner: owner, table: table, excluding: excluded, db: db, store: store)
                    if let stored {
                        violations.append(StoreConstraintViolation(constraint: constraint, conflictingObjectIDs: ids, databaseSnapshot: stored))
                    } else if ids.count > 1 {
                        violations.append(StoreConstraintViolation(constraint: constraint, conflictingObjectIDs: ids, databaseSnapshot: nil))
                    }
                }
            }
        }
        return violations
    }

    /// A stored row of `owner`'s hierarchy whose constraint columns hold `key`, not among `excluded`.
    private func storedRow(holding key: [StoreValue], columns: [SQLColumn], owner: NSEntityDescription, table: SQLTable,
                           excluding excluded: Set<NSManagedObjectID>, db: Database, store: NSPersistentStore) throws -> RowSnapshot? {
        // A key naming an unsaved object cannot match a stored row.
        if key.contains(where: { $0.objectIDValue?.isTemporaryID ?? false }) { return nil }
        let decoder = decoder(for: owner, includesSubentities: true)
        let alias = SQLTranslationState.rootAlias
        let dialect = Self.dialect
        var select = SQLSelect(from: dialect.identifier(table.name) + " " + dialect.identifier(alias))
        select.columns = decoder.selection
        if let filter = builder.entityFilter(owner, includesSubentities: true, alias: alias) { select.conditions.append(filter) }
        for (column, value) in zip(columns, key) {
            select.conditions.append(dialect.column(column.name, of: alias) + " = " + dialect.parameter(SQLValueCoding.value(value)))
        }
        var rows: [RowSnapshot] = []
        try run(db, select.render(in: dialect)) { statement, arguments in
            try decoder.decodeAll(statement, arguments: arguments, store: store, db: db, into: &rows)
        }
        return rows.first { !excluded.contains($0.objectID) }
    }
}

/// Stored row versions (`Z_OPT`) by table and primary key.
private struct StoredVersions {
    var byTable: [ObjectIdentifier: [Int64: Int64]] = [:]

    /// The stored version of a row, or nil when the row is gone.
    func version(of id: NSManagedObjectID, schema: SQLStoreSchema) -> Int64? {
        guard !id.isTemporaryID, let table = schema.table(for: id.entity) else { return nil }
        return byTable[ObjectIdentifier(table)]?[id.primaryKey]
    }
}
