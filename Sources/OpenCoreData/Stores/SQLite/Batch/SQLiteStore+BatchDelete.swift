import Foundation
import GRDB

// MARK: - Batch delete

extension SQLiteStore {
    /// Deletes the matching rows and applies the delete rules in SQL, without loading objects.
    ///
    /// 1. The requested rows: the fetch's `SELECT Z_PK, Z_ENT`, or the given IDs that exist.
    /// 2. Cascade: destinations of Cascade relationships join the deletion, transitively.
    /// 3. Deny: a deleted row with a destination that is not deleted too fails the request with
    ///    `NSValidationRelationshipDeniedDeleteError` (1600) naming the relationship.
    /// 4. Nullify: surviving destinations whose inverse is to-one lose the reference (the foreign
    ///    key, its `Z<n>_` entity column and its `Z_FOK_` position; `Z_OPT` + 1); a mandatory
    ///    inverse fails the request with `NSValidationMissingMandatoryPropertyError` (1570).
    ///    To-many inverses need nothing: join-table rows of deleted rows are deleted, whatever
    ///    the rule, and a foreign key on a deleted row goes with it. A to-many without an inverse
    ///    has its owner column cleared on surviving destinations, whatever the rule.
    /// 5. The writes: nullifying updates, join-table rows, then the rows, by chunks of keys; on a
    ///    store that keeps history, each row's preserved values (its tombstone) come back with it.
    /// Every check runs before the first write; any failure rolls the transaction back.
    func batchDelete(_ delete: StoreBatchDelete, into changes: inout StoreBatchChanges, files: SQLiteExternalDataWrites,
                     db: Database, store: NSPersistentStore) throws {
        var deletion = BatchDeletion()
        var pending: [(entity: NSEntityDescription, keys: [Int64])] = []
        func add(_ rows: [(key: Int64, entity: Int64)], fallback: NSEntityDescription) {
            var added: [ObjectIdentifier: (entity: NSEntityDescription, keys: [Int64])] = [:]
            for row in rows {
                let entity = schema.entity(number: Int(row.entity)) ?? fallback
                if deletion.insert(row.key, entity: entity, schema: schema) {
                    added[ObjectIdentifier(entity), default: (entity, [])].keys.append(row.key)
                }
            }
            pending.append(contentsOf: added.values.map { ($0.entity, $0.keys) })
        }
        add(try requestedRows(delete, db: db, store: store), fallback: delete.entity)

        // Cascade, transitively.
        while let (entity, keys) = pending.popLast() {
            for relationship in storedRelationships(of: entity) where relationship.deleteRule == .cascadeDeleteRule {
                guard let destination = relationship.destinationEntity else { continue }
                for chunk in keys.chunked(Self.keyChunkSize) {
                    add(try relatedRows(relationship, sourceKeys: chunk, db: db), fallback: destination)
                }
            }
        }

        // Deny and nullify, checked against the whole deletion.
        var nullified: [ObjectIdentifier: (inverse: NSRelationshipDescription, keys: [Int64])] = [:]
        for (entity, keys) in deletion.byEntity {
            for relationship in storedRelationships(of: entity) {
                switch relationship.deleteRule {
                case .denyDeleteRule:
                    for chunk in keys.chunked(Self.keyChunkSize) {
                        if let survivor = try relatedRows(relationship, sourceKeys: chunk, db: db).first(where: { !deletion.contains($0.key, in: relationship.destinationEntity, schema: schema) }) {
                            throw deniedDelete(relationship, entity: entity, survivor: survivor, store: store)
                        }
                    }
                case .nullifyDeleteRule:
                    guard let inverse = relationship.inverseRelationship, !inverse.isToMany, !inverse.isTransient else { continue }
                    for chunk in keys.chunked(Self.keyChunkSize) {
                        let survivors = try relatedRows(relationship, sourceKeys: chunk, db: db)
                            .filter { !deletion.contains($0.key, in: relationship.destinationEntity, schema: schema) }
                        guard !survivors.isEmpty else { continue }
                        if !inverse.isOptional {
                            throw mandatoryInverse(inverse, of: survivors[0], deleting: relationship, store: store)
                        }
                        nullified[ObjectIdentifier(inverse), default: (inverse, [])].keys.append(contentsOf: survivors.map(\.key))
                    }
                case .cascadeDeleteRule, .noActionDeleteRule:
                    continue
                }
            }
        }

        // Files of deleted rows, removed once the transaction has committed.
        for (entity, keys) in deletion.byEntity {
            let plan = writePlan(for: entity)
            guard let select = plan.selectExternalSQL else { continue }
            for key in keys { try noteStoredFiles(select, key: key, files: files, db: db) { _ in true } }
        }

        // The writes.
        for (inverse, keys) in nullified.values {
            try nullify(inverse, keys: Array(Set(keys)).sorted(), into: &changes, deletion: deletion, db: db)
        }
        for (entity, keys) in deletion.byEntity {
            try deleteJoinRows(of: entity, keys: keys, db: db)
            try clearOwnerColumns(of: entity, keys: keys, db: db)
        }
        for (entity, keys) in deletion.byEntity {
            try deleteRows(of: entity, keys: keys, into: &changes, db: db)
        }
    }

    // MARK: - Rows

    /// The rows the request names that exist: its fetch's rows, or the stored rows among its IDs.
    private func requestedRows(_ delete: StoreBatchDelete, db: Database, store: NSPersistentStore) throws -> [(key: Int64, entity: Int64)] {
        let dialect = Self.dialect
        let alias = SQLTranslationState.rootAlias
        if let ids = delete.objectIDs {
            var rows: [(key: Int64, entity: Int64)] = []
            let own = ids.filter { !$0.isTemporaryID && $0.storeIdentifier == store.identifier }
            for (table, keys) in keyChunks(of: own) {
                let columns = [dialect.column("Z_PK", of: alias), dialect.column("Z_ENT", of: alias)]
                rows += try keyRows(db, builder.rows(in: table, columns: columns, keys: keys))
            }
            return rows
        }
        let query = SQLFetchQuery(entity: delete.entity, includesSubentities: delete.includesSubentities, predicate: delete.predicate,
                                  storeIdentifier: store.identifier)
        let sql: SQLFragment
        do {
            sql = try builder.selectObjectIDs(query).render(in: dialect)
        } catch {
            throw Self.batchError("The predicate of the batch delete of '\(delete.entity.name ?? "?")' cannot be evaluated in SQL: \(error)")
        }
        return try keyRows(db, sql)
    }

    /// The stored relationships of an entity, inherited ones included.
    private func storedRelationships(of entity: NSEntityDescription) -> [NSRelationshipDescription] {
        entity.properties.compactMap { $0 as? NSRelationshipDescription }.filter { !$0.isTransient }
    }

    /// The `Z_PK`, `Z_ENT` of the destinations of a relationship of the rows with these keys.
    private func relatedRows(_ relationship: NSRelationshipDescription, sourceKeys: [Int64], db: Database) throws -> [(key: Int64, entity: Int64)] {
        guard let destination = relationship.destinationEntity, let destinationTable = schema.table(for: destination),
              let source = relationship.entity, let sourceTable = schema.table(for: source) else { return [] }
        let dialect = Self.dialect
        let alias = "t0", inner = "s"
        var select = SQLSelect(from: dialect.identifier(destinationTable.name) + " " + dialect.identifier(alias))
        select.columns = [dialect.column("Z_PK", of: alias), dialect.column("Z_ENT", of: alias)]
        let keys = dialect.parameterList(sourceKeys.map(SQLValue.integer))
        if !relationship.isToMany {
            guard let foreignKey = sourceTable.valueColumn(for: relationship) else { return [] }
            select.conditions = [dialect.column("Z_PK", of: alias) + " IN (SELECT " + dialect.column(foreignKey.name, of: inner) + " FROM "
                                 + dialect.identifier(sourceTable.name) + " " + dialect.identifier(inner)
                                 + " WHERE " + dialect.column("Z_PK", of: inner) + " IN " + keys + ")"]
        } else if let join = schema.joinTable(for: relationship) {
            let access = join.access(for: relationship)
            select.conditions = [dialect.column("Z_PK", of: alias) + " IN (SELECT " + dialect.column(access.otherColumn, of: inner) + " FROM "
                                 + dialect.identifier(join.name) + " " + dialect.identifier(inner)
                                 + " WHERE " + dialect.column(access.selfColumn, of: inner) + " IN " + keys + ")"]
        } else if let foreignKey = schema.keyColumn(of: relationship)?.column {
            // The inverse to-one's foreign key, or the owner column of a to-many without an inverse.
            select.conditions = [dialect.column(foreignKey.name, of: alias) + " IN " + keys]
        } else {
            return []
        }
        return try keyRows(db, select.render(in: dialect))
    }

    // MARK: - Writes

    /// Clears a to-one relationship (the inverse of a Nullify rule) on surviving rows.
    private func nullify(_ relationship: NSRelationshipDescription, keys: [Int64], into changes: inout StoreBatchChanges,
                         deletion: BatchDeletion, db: Database) throws {
        guard let entity = relationship.entity, let table = schema.table(for: entity),
              let foreignKey = table.valueColumn(for: relationship) else { return }
        let dialect = Self.dialect
        let alias = SQLTranslationState.rootAlias
        var assignments: [(column: String, value: SQLFragment)] = [(foreignKey.name, SQLFragment("NULL"))]
        if let index = table.entityTypeColumnByProperty[ObjectIdentifier(relationship)] {
            assignments.append((table.columns[index].name, SQLFragment("NULL")))
        }
        if let index = table.orderColumnByProperty[ObjectIdentifier(relationship)] {
            assignments.append((table.columns[index].name, SQLFragment("NULL")))
        }
        assignments.append(("Z_OPT", dialect.column("Z_OPT", of: alias) + " + 1"))
        for chunk in keys.chunked(Self.keyChunkSize) {
            let condition = dialect.column("Z_PK", of: alias) + " IN " + dialect.parameterList(chunk.map(SQLValue.integer))
            let statement = SQLBatchWrite(.update(assignments), table: table.name, alias: alias, where: condition, returning: ["Z_PK", "Z_ENT"])
            for row in try keyRows(db, statement.render(in: dialect)) {
                changes.append(.update, entity: schema.entity(number: Int(row.entity)) ?? entity, primaryKey: row.key,
                               updatedProperties: [relationship.name], isSideEffect: true)
            }
        }
    }

    /// Deletes rows of one concrete entity by chunks of keys and records them. On a store that
    /// keeps history, an entity with preserved attributes has each `DELETE` return their columns
    /// (`RETURNING Z_PK, <preserved columns>`): the deleted rows' tombstones, read as the rows
    /// go, with no statement per row.
    private func deleteRows(of entity: NSEntityDescription, keys: [Int64], into changes: inout StoreBatchChanges, db: Database) throws {
        guard let table = schema.table(for: entity) else { return }
        let dialect = Self.dialect
        let alias = SQLTranslationState.rootAlias
        let preserved = keepsHistory ? writePlan(for: entity).tombstoneColumns : nil
        let returning = preserved.map { ["Z_PK"] + $0.columnNames } ?? []
        for chunk in keys.chunked(Self.keyChunkSize) {
            let condition = dialect.column("Z_PK", of: alias) + " IN " + dialect.parameterList(chunk.map(SQLValue.integer))
            let statement = SQLBatchWrite(.delete, table: table.name, alias: alias, where: condition, returning: returning).render(in: dialect)
            guard let preserved else {
                try run(db, statement) { statement, arguments in try statement.execute(arguments: arguments) }
                for key in chunk { changes.append(.delete, entity: entity, primaryKey: key) }
                continue
            }
            // RETURNING gives rows in no defined order: they are matched to the chunk's keys,
            // which keep the order every other change of the request is recorded in.
            var tombstones: [Int64: [String: StoreValue]] = [:]
            tombstones.reserveCapacity(chunk.count)
            try run(db, statement) { statement, arguments in
                let cursor = try Row.fetchCursor(statement, arguments: arguments)
                let handle = statement.sqliteStatement
                while try cursor.next() != nil {
                    guard let key = SQLiteRowDecoder.integer(handle, 0) else { continue }
                    tombstones[key] = preserved.tombstone(handle, from: 1)
                }
            }
            for key in chunk { changes.append(.delete, entity: entity, primaryKey: key, tombstone: tombstones[key]) }
        }
    }

    /// Deletes the join-table rows that name deleted rows, on whichever side they stand.
    private func deleteJoinRows(of entity: NSEntityDescription, keys: [Int64], db: Database) throws {
        let dialect = Self.dialect
        let alias = "j"
        for join in schema.joinTables {
            var columns: [String] = []
            if let source = join.owner.entity, entity.isKindOf(entity: source) { columns.append(join.sourceColumn) }
            if let destination = join.owner.destinationEntity, entity.isKindOf(entity: destination) { columns.append(join.destinationColumn) }
            for column in columns {
                for chunk in keys.chunked(Self.keyChunkSize) {
                    let condition = dialect.column(column, of: alias) + " IN " + dialect.parameterList(chunk.map(SQLValue.integer))
                    try run(db, SQLBatchWrite(.delete, table: join.name, alias: alias, where: condition, returning: []).render(in: dialect)) { statement, arguments in
                        try statement.execute(arguments: arguments)
                    }
                }
            }
        }
    }

    /// Clears the owner columns (to-many relationships without an inverse) that name deleted
    /// rows, as join-table rows of deleted rows are deleted: a surviving destination no longer
    /// names a deleted owner. No property of the destination changes, so its `Z_OPT` stays.
    private func clearOwnerColumns(of entity: NSEntityDescription, keys: [Int64], db: Database) throws {
        let dialect = Self.dialect
        let alias = "o"
        for owner in schema.ownerColumns {
            guard let source = owner.relationship.entity, entity.isKindOf(entity: source) else { continue }
            for chunk in keys.chunked(Self.keyChunkSize) {
                let condition = dialect.column(owner.name, of: alias) + " IN " + dialect.parameterList(chunk.map(SQLValue.integer))
                let statement = SQLBatchWrite(.update([(owner.name, SQLFragment("NULL"))]), table: owner.table.name, alias: alias,
                                              where: condition, returning: [])
                try run(db, statement.render(in: dialect)) { statement, arguments in try statement.execute(arguments: arguments) }
            }
        }
    }

    // MARK: - Errors

    /// Apple's error for a Deny rule that holds: 1600, naming the relationship.
    private func deniedDelete(_ relationship: NSRelationshipDescription, entity: NSEntityDescription, survivor: (key: Int64, entity: Int64),
                              store: NSPersistentStore) -> NSError {
        let destination = schema.entity(number: Int(survivor.entity)) ?? relationship.destinationEntity ?? entity
        return CoreDataError.make(NSValidationRelationshipDeniedDeleteError,
                                  "The batch delete cannot delete '\(entity.name ?? "?")' rows: the relationship '\(relationship.name)' has the Deny rule and still has a destination (\(destination.name ?? "?") \(survivor.key)). Nothing was deleted.",
                                  userInfo: [NSValidationKeyErrorKey: relationship.name,
                                             NSValidationObjectErrorKey: NSManagedObjectID(entity: destination, primaryKey: survivor.key, store: store)])
    }

    /// The error of a Nullify that would leave a mandatory to-one empty: 1570, naming it.
    private func mandatoryInverse(_ inverse: NSRelationshipDescription, of survivor: (key: Int64, entity: Int64), deleting relationship: NSRelationshipDescription,
                                  store: NSPersistentStore) -> NSError {
        let entity = schema.entity(number: Int(survivor.entity)) ?? inverse.entity ?? relationship.destinationEntity!
        return CoreDataError.make(NSValidationMissingMandatoryPropertyError,
                                  "The batch delete would leave the mandatory relationship '\(inverse.name)' of \(entity.name ?? "?") \(survivor.key) empty (Nullify rule of '\(relationship.name)'). Nothing was deleted.",
                                  userInfo: [NSValidationKeyErrorKey: inverse.name,
                                             NSValidationObjectErrorKey: NSManagedObjectID(entity: entity, primaryKey: survivor.key, store: store)])
    }
}

// MARK: - BatchDeletion

/// The rows a batch delete removes: keys by table for membership, and by concrete entity.
private struct BatchDeletion {
    private var keysByTable: [ObjectIdentifier: Set<Int64>] = [:]
    private var order: [ObjectIdentifier] = []
    private var entities: [ObjectIdentifier: (entity: NSEntityDescription, keys: [Int64])] = [:]

    /// Adds a row; false when it was already in.
    mutating func insert(_ key: Int64, entity: NSEntityDescription, schema: SQLStoreSchema) -> Bool {
        guard let table = schema.table(for: entity) else { return false }
        guard keysByTable[ObjectIdentifier(table), default: []].insert(key).inserted else { return false }
        let id = ObjectIdentifier(entity)
        if entities[id] == nil {
            order.append(id)
            entities[id] = (entity, [])
        }
        entities[id]!.keys.append(key)
        return true
    }

    /// Whether a row of an entity's table is deleted.
    func contains(_ key: Int64, in entity: NSEntityDescription?, schema: SQLStoreSchema) -> Bool {
        guard let entity, let table = schema.table(for: entity) else { return false }
        return keysByTable[ObjectIdentifier(table)]?.contains(key) ?? false
    }

    /// The deleted rows by concrete entity, in the order entities were met.
    var byEntity: [(entity: NSEntityDescription, keys: [Int64])] {
        order.map { entities[$0]! }
    }
}

extension Array {
    /// The array in consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
