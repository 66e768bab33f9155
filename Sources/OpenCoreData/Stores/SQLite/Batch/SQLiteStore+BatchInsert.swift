import Foundation
import GRDB
import GRDBSQLite

// MARK: - Batch insert

extension SQLiteStore {
    /// Inserts rows with one prepared statement bound by position, as a save inserts them.
    ///
    /// Primary keys continue the hierarchy's `Z_MAX`, which is written once at the end; new rows
    /// get `Z_ENT` of the entity and `Z_OPT` 1. With uniqueness constraints the statement is an
    /// upsert (`SQLUpsert`): a row whose constrained values are already stored updates that
    /// row's attributes (`Z_OPT` + 1) and keeps its key, which is then free for the next row.
    /// Relationship columns are never written: a batch insert sets attributes only.
    ///
    /// A row that updates a row this request inserted earlier (the same constrained values
    /// twice) is counted once, as the insert. When the request needs no keys (no IDs asked for,
    /// no history kept) the rows are only counted.
    func batchInsert(_ insert: StoreBatchInsert, into changes: inout StoreBatchChanges,
                     files: SQLiteExternalDataWrites, db: Database) throws {
        let entity = insert.entity
        let plan = writePlan(for: entity)
        let root = entity.rootEntity
        let storedMax = try storedMaxKey(db, root: root)
        let firstKey = (storedMax ?? 0) + 1
        var nextKey = firstKey
        let upsert = upsertStatement(for: entity, plan: plan)
        let sql = upsert?.sql ?? plan.insertSQL
        Log.sql.debug("\(sql)")
        let statement = try db.cachedStatement(sql: sql)
        let externalSelect = upsert.flatMap(\.selectExternalSQL)
        let updatedProperties = upsert?.updatedProperties ?? []
        // Whether an upsert inserted is told by the rowid it left: the new row's key, bound by
        // us. Cleared first, so a rowid an earlier statement inserted cannot pass for it.
        let connection = db.sqliteConnection
        sqlite3_set_last_insert_rowid(connection, 0)
        // Without keys to collect, an updated row needs no lookup to tell a stored row from one
        // this request inserted: the update is limited to stored rows (`Z_PK < firstKey`), so a
        // row the limit holds back is one of ours, written again without the limit.
        let countsOnly = !insert.needsKeys && !keepsHistory
        let limited = !countsOnly ? nil : try upsert.map { upsert in
            try db.makeStatement(sql: upsert.sql(limitingUpdatesBelow: firstKey))
        }
        var updatedCount = 0
        // Prepared once: looking a statement up by its SQL text cost a string hash per row.
        let conflictStatements = limited != nil ? nil : try upsert.map { upsert in
            try zip(upsert.conflictSelects, upsert.constraintSources).map { (statement: try db.makeStatement(sql: $0), sources: $1) }
        }

        /// Binds a row's key and values.
        func bind(_ values: StoreValues, to handle: SQLiteStatement) {
            SQLiteRawBinding.reset(handle)
            SQLiteRawBinding.bind(nextKey, to: handle, at: 1)
            SQLiteRawBinding.bind(plan.entityNumber, to: handle, at: 2)
            SQLiteRawBinding.bind(Int64(1), to: handle, at: 3)
            var position: Int32 = 4
            for column in plan.insertColumns {
                plan.bind(column.source, in: values, schema: schema, to: handle, at: position)
                position += 1
            }
        }
        /// Writes one row and records what it did.
        func write(_ values: StoreValues) throws {
            if let limited {
                bind(values, to: limited.sqliteStatement)
                try SQLiteRawBinding.step(limited, db: db)
                if sqlite3_last_insert_rowid(connection) == nextKey {
                    nextKey &+= 1
                } else if sqlite3_changes(connection) > 0 {
                    updatedCount += 1
                } else {
                    // It matched a row this request inserted: update that one; it counts once, as the insert.
                    bind(values, to: statement.sqliteStatement)
                    try SQLiteRawBinding.step(statement, db: db)
                }
                return
            }
            bind(values, to: statement.sqliteStatement)
            try SQLiteRawBinding.step(statement, db: db)
            if upsert == nil || sqlite3_last_insert_rowid(connection) == nextKey {
                if !countsOnly { changes.append(.insert, entity: entity, primaryKey: nextKey) }
                nextKey &+= 1
            } else if let conflictStatements, sqlite3_changes(connection) > 0,
                      let (key, number) = try updatedRow(conflictStatements, values: values, plan: plan, db: db), key < firstKey {
                // A stored row updated in place; a row this request inserted earlier stays an insert.
                let updated = schema.entity(number: Int(number)) ?? entity
                changes.append(.update, entity: updated, primaryKey: key, updatedProperties: updatedProperties)
            }
        }

        // One buffer for every row, filled in place by the request.
        var row = StoreValues()
        while try insert.nextRow(&row) {
            guard nextKey > 0 else { throw exhaustedKeyCounter(root, storedMax ?? 0) }
            if plan.externalSlots.isEmpty {
                try write(row)
                continue
            }
            if let externalSelect, let upsert {
                // The row this one may replace: its external files become obsolete.
                try noteReplacedExternalFiles(externalSelect, constraintSources: upsert.constraintSources.first ?? [], values: row,
                                              plan: plan, files: files, db: db)
            }
            try write(try files.externalized(row, slots: plan.externalSlots))
        }
        if countsOnly {
            changes.append(.insert, entity: entity, count: Int(nextKey - firstKey))
            changes.append(.update, entity: entity, count: updatedCount)
        }
        if nextKey != firstKey {
            try setMaxKey(db, root: root, to: nextKey - 1, rowExists: storedMax != nil)
        }
    }

    /// The upsert of an entity with uniqueness constraints, or nil when it has none.
    private func upsertStatement(for entity: NSEntityDescription, plan: SQLiteWritePlan) -> BatchUpsert? {
        let constraints = entity.effectiveUniquenessConstraints
        guard !constraints.isEmpty, let table = schema.table(for: entity) else { return nil }
        /// The insert column that holds a property's value (not its entity type or order).
        func valueColumn(_ matches: (SQLiteWritePlan.ColumnSource, SQLColumn) -> Bool) -> (column: Int, source: SQLiteWritePlan.ColumnSource)? {
            plan.insertColumns.first { matches($0.source, table.columns[$0.column]) }
        }
        var keys: [[String]] = []
        var sources: [[SQLiteWritePlan.ColumnSource]] = []
        for constraint in constraints {
            let owner = entity.constraintOwner(of: constraint)
            let found = constraint.compactMap { name in
                valueColumn { source, column in
                    guard case .value = source else { return false }
                    return column.property.name == name && column.property.entity.map(owner.isKindOf(entity:)) ?? false
                }
            }
            guard found.count == constraint.count else { continue }
            keys.append(found.map { table.columns[$0.column].name })
            sources.append(found.map(\.source))
        }
        guard !keys.isEmpty else { return nil }
        let constrained = Set(keys.joined())
        // Attributes only: relationships keep their destinations when a row is upserted.
        var update: [String] = []
        var updatedProperties: [String] = []
        for column in plan.insertColumns {
            let described = table.columns[column.column]
            switch described.role {
            case .attribute, .compositeElement: break
            default: continue
            }
            guard !constrained.contains(described.name) else { continue }
            update.append(described.name)
            updatedProperties.append(described.property.name)
        }
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + plan.insertColumns.map { table.columns[$0.column].name }
        // No RETURNING: SQLite runs a statement with RETURNING under a statement journal, which
        // under cache pressure spilled a page to a temporary file on almost every row (W12:
        // 2.5M pwrite calls for 1M rows, twice raw SQL's time). An updated row's key is looked
        // up instead (`conflictSelects`), through the unique index the conflict just used.
        let statement = SQLUpsert(into: table.name, columns: names, conflictKeys: keys, update: update, versionColumn: "Z_OPT", returning: [])
        let conflictSelects = keys.map { columns in
            var select = SQLSelect(from: Self.dialect.identifier(table.name))
            select.columns = [Self.dialect.identifier("Z_PK"), Self.dialect.identifier("Z_ENT")]
            select.conditions = columns.map { Self.dialect.equalsParameter($0) }
            return select.render(in: Self.dialect).sql(in: Self.dialect)
        }
        var selectExternal: String?
        if !plan.externalSlots.isEmpty, let first = keys.first {
            var select = SQLSelect(from: Self.dialect.identifier(table.name))
            select.columns = plan.externalSlots.compactMap { slot in
                valueColumn { source, _ in
                    if case .value(slot) = source { return true }
                    return false
                }.map { Self.dialect.identifier(table.columns[$0.column].name) }
            }
            select.conditions = first.map { Self.dialect.equalsParameter($0) }
            selectExternal = select.render(in: Self.dialect).sql(in: Self.dialect)
        }
        return BatchUpsert(statement: statement, updatedProperties: Array(Set(updatedProperties)).sorted(), constraintSources: sources,
                           conflictSelects: conflictSelects, selectExternalSQL: selectExternal)
    }

    /// The `Z_PK`, `Z_ENT` of the stored row an upsert updated: the first constraint, in the
    /// order of the statement's ON CONFLICT clauses, whose values match a stored row.
    private func updatedRow(_ selects: [(statement: Statement, sources: [SQLiteWritePlan.ColumnSource])], values: StoreValues,
                            plan: SQLiteWritePlan, db: Database) throws -> (Int64, Int64)? {
        for (statement, sources) in selects {
            let handle = statement.sqliteStatement
            SQLiteRawBinding.reset(handle)
            for (offset, source) in sources.enumerated() {
                plan.bind(source, in: values, schema: schema, to: handle, at: Int32(offset + 1))
            }
            if let row = try SQLiteRawBinding.stepReturningPair(statement, db: db) { return row }
        }
        return nil
    }

    /// Records the external files of the stored row a new row's first constraint matches.
    private func noteReplacedExternalFiles(_ select: String, constraintSources: [SQLiteWritePlan.ColumnSource], values: StoreValues,
                                           plan: SQLiteWritePlan, files: SQLiteExternalDataWrites, db: Database) throws {
        let arguments = StatementArguments(constraintSources.map { plan.value(of: $0, in: values, schema: schema) })
        Log.sql.debug("\(select)")
        guard let row = try Row.fetchOne(db.cachedStatement(sql: select), arguments: arguments) else { return }
        files.noteReplaced(row, db: db) { _ in true }
    }
}

/// The upsert of a batch insert into an entity with uniqueness constraints.
private struct BatchUpsert {
    let statement: SQLUpsert
    var sql: String { statement.sql(in: SQLiteStore.dialect) }
    /// The attributes an upserted row takes from the new one.
    let updatedProperties: [String]
    /// Where each constraint's values come from, for finding the row an upsert replaced.
    let constraintSources: [[SQLiteWritePlan.ColumnSource]]
    /// `SELECT Z_PK, Z_ENT FROM T WHERE <a constraint's columns> = ?`, one per constraint, in
    /// the order of the upsert's ON CONFLICT clauses.
    let conflictSelects: [String]
    /// `SELECT <external columns> FROM T WHERE <first constraint's columns> = ?`, when the entity stores data externally.
    let selectExternalSQL: String?

    /// The upsert with its updates limited to rows whose key is below `key` (those stored
    /// before the request): a row matching a newer one is then neither inserted nor updated.
    func sql(limitingUpdatesBelow key: Int64) -> String {
        var limited = statement
        let dialect = SQLiteStore.dialect
        limited.updateCondition = dialect.quote(statement.table) + "." + dialect.quote("Z_PK") + " < " + String(key)
        return limited.sql(in: dialect)
    }
}
