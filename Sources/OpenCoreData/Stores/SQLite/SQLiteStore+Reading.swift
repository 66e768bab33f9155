import Foundation
import GRDB

// MARK: - Reading

extension SQLiteStore {
    /// The most primary keys bound in one `Z_PK IN (…)` query.
    static let keyChunkSize = 500

    /// A fetch translated once into the statement its purpose runs, or taken from the plan cache
    /// when a request of its shape was translated before; nil when the predicate or sort
    /// descriptors have no SQL form (the coordinator then fetches every row).
    func planFetch(_ request: StoreFetchRequest, for purpose: StoreFetchPurpose, store: NSPersistentStore) throws -> (any StoreFetchPlan)? {
        // A failure to translate is the answer "not in SQL".
        guard let query = try? SQLFetchQuery(request, storeIdentifier: store.identifier) else { return nil }
        let sql: SQLFragment?
        let shape = SQLPlanShape.isWorthCaching(query) ? SQLPlanShape(query, purpose: purpose.planCode, dialect: Self.dialect) : nil
        if let shape, let cached = planCache.statement(for: shape) {
            guard case .sql(let statement) = cached else { return nil }
            sql = statement
        } else {
            sql = statement(for: query, purpose)
            if let shape {
                let template = SQLPlanTemplate(shape: shape, query: query, sql: sql, dialect: Self.dialect) { statement(for: $0, purpose) }
                planCache.insert(template, for: shape)
            }
        }
        guard let sql else { return nil }
        let decoder = purpose == .snapshots ? decoder(for: query.entity, includesSubentities: query.includesSubentities) : nil
        return SQLiteFetchPlan(request: request, purpose: purpose, entity: query.entity, sql: sql, decoder: decoder)
    }

    /// The statement a query runs for a purpose, translated now; nil when it has no SQL form.
    func statement(for query: SQLFetchQuery, _ purpose: StoreFetchPurpose) -> SQLFragment? {
        do {
            switch purpose {
            case .snapshots:
                let decoder = decoder(for: query.entity, includesSubentities: query.includesSubentities)
                return try builder.select(query, columns: decoder.selection).render(in: Self.dialect)
            case .objectIDs:
                return try builder.selectObjectIDs(query).render(in: Self.dialect)
            case .count:
                return try builder.count(query)
            }
        } catch {
            return nil
        }
    }

    func fetchSnapshots(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> [RowSnapshot] {
        guard let plan = plan as? SQLiteFetchPlan, let decoder = plan.decoder else { return try fetchSnapshots(plan.request, store: store) }
        return try fetchSnapshots(plan.sql, decoder: decoder, store: store)
    }

    func fetchObjectIDs(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> [NSManagedObjectID] {
        guard let plan = plan as? SQLiteFetchPlan, plan.purpose == .objectIDs else { return try fetchObjectIDs(plan.request, store: store) }
        return try fetchObjectIDs(plan.sql, entity: plan.entity, store: store)
    }

    func countRows(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> Int {
        guard let plan = plan as? SQLiteFetchPlan, plan.purpose == .count else { return try countRows(plan.request, store: store) }
        return try count(plan.sql)
    }

    func fetchSnapshots(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot] {
        try fetchSnapshots(try query(request, store: store), store: store)
    }

    /// The rows of a query, decoded straight into snapshots.
    func fetchSnapshots(_ request: SQLFetchQuery, store: NSPersistentStore) throws -> [RowSnapshot] {
        let decoder = decoder(for: request.entity, includesSubentities: request.includesSubentities)
        let sql = try translated(request) { try builder.select(request, columns: decoder.selection).render(in: Self.dialect) }
        return try fetchSnapshots(sql, decoder: decoder, store: store)
    }

    private func fetchSnapshots(_ sql: SQLFragment, decoder: SQLiteRowDecoder, store: NSPersistentStore) throws -> [RowSnapshot] {
        try readStatement { db in
            var result: [RowSnapshot] = []
            try run(db, sql) { statement, arguments in
                try decoder.decodeAll(statement, arguments: arguments, store: store, db: db, into: &result)
            }
            return result
        }
    }

    func fetchObjectIDs(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID] {
        let request = try query(request, store: store)
        return try fetchObjectIDs(try translated(request) { try builder.selectObjectIDs(request).render(in: Self.dialect) }, entity: request.entity, store: store)
    }

    /// The IDs of the rows a `SELECT Z_PK, Z_ENT` returns; `fallback` for rows of unknown `Z_ENT`.
    private func fetchObjectIDs(_ sql: SQLFragment, entity fallback: NSEntityDescription, store: NSPersistentStore) throws -> [NSManagedObjectID] {
        try readStatement { db in
            var ids: [NSManagedObjectID] = []
            try run(db, sql) { statement, arguments in
                let cursor = try Row.fetchCursor(statement, arguments: arguments)
                let handle = statement.sqliteStatement
                let reference = store.handle
                while try cursor.next() != nil {
                    guard let key = SQLiteValueCoding.integer(DatabaseValue(sqliteStatement: handle, index: 0)) else { continue }
                    let number = SQLiteValueCoding.integer(DatabaseValue(sqliteStatement: handle, index: 1)).map(Int.init)
                    let entity = number.flatMap(schema.entity(number:)) ?? fallback
                    ids.append(NSManagedObjectID(entity: entity, primaryKey: key, handle: reference))
                }
            }
            return ids
        }
    }

    func countRows(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> Int {
        let request = try query(request, store: store)
        return try count(try translated(request) { try builder.count(request) })
    }

    /// The number a `SELECT COUNT(*)` statement gives.
    private func count(_ sql: SQLFragment) throws -> Int {
        try readStatement { db in
            var count = 0
            try run(db, sql) { statement, arguments in
                count = try Int.fetchOne(statement, arguments: arguments) ?? 0
            }
            return count
        }
    }

    func fetchDictionaries(_ request: StoreDictionaryRequest, store: NSPersistentStore) throws -> [NSDictionary]? {
        let query: SQLDictionaryQuery
        do {
            query = try SQLDictionaryQuery(request, builder: builder, storeIdentifier: store.identifier)
        } catch {
            Log.sql.debug("Dictionary results computed in memory: \(error)")
            return nil
        }
        return try readStatement { db in
            var rows: [NSDictionary] = []
            try run(db, query.sql) { statement, arguments in
                rows = try query.rows(statement, arguments: arguments, store: store, schema: schema, externalData: externalData, db: db)
            }
            return rows
        }
    }

    func snapshots(for objectIDs: [NSManagedObjectID], store: NSPersistentStore) throws -> [RowSnapshot] {
        // One decoder (root entity with subentities) and chunked IN lists per table.
        let chunks = keyChunks(of: objectIDs)
        guard !chunks.isEmpty else { return [] }
        return try read { db in
            var result: [RowSnapshot] = []
            result.reserveCapacity(objectIDs.count)
            for (table, keys) in chunks {
                let decoder = decoder(for: table.root, includesSubentities: true)
                try run(db, builder.rows(in: table, columns: decoder.selection, keys: keys)) { statement, arguments in
                    try decoder.decodeAll(statement, arguments: arguments, store: store, db: db, into: &result)
                }
            }
            return result
        }
    }

    /// The primary keys of stored objects grouped by table, in lists of at most `keyChunkSize`
    /// for `Z_PK IN (…)` queries; temporary IDs and entities without a table are left out.
    func keyChunks(of objectIDs: [NSManagedObjectID]) -> [(table: SQLTable, keys: [Int64])] {
        var keysByTable: [ObjectIdentifier: (table: SQLTable, keys: [Int64])] = [:]
        for id in objectIDs where !id.isTemporaryID {
            guard let table = schema.table(for: id.entity) else { continue }
            keysByTable[ObjectIdentifier(table), default: (table, [])].keys.append(id.primaryKey)
        }
        var chunks: [(table: SQLTable, keys: [Int64])] = []
        for (table, keys) in keysByTable.values {
            for start in stride(from: 0, to: keys.count, by: Self.keyChunkSize) {
                chunks.append((table, Array(keys[start..<min(start + Self.keyChunkSize, keys.count)])))
            }
        }
        return chunks
    }

    func destinations(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription, store: NSPersistentStore) throws -> [RowSnapshot] {
        guard !objectID.isTemporaryID, let destination = relationship.destinationEntity else { return [] }
        let decoder = decoder(for: destination, includesSubentities: true)
        let sql = try translated(nil) { try builder.destinations(of: relationship, sourceKey: objectID.primaryKey, columns: decoder.selection) }
        return try readStatement { db in
            var result: [RowSnapshot] = []
            try run(db, sql) { statement, arguments in
                try decoder.decodeAll(statement, arguments: arguments, store: store, db: db, into: &result)
            }
            return result
        }
    }

    // MARK: - Helpers

    /// The store query of a fetch request.
    private func query(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> SQLFetchQuery {
        do {
            return try SQLFetchQuery(request, storeIdentifier: store.identifier)
        } catch {
            throw CoreDataError.make(NSCoreDataError, "The SQLite store cannot evaluate this request in SQL: \(error.description)")
        }
    }

    /// Translates a request, turning a translation failure into a Core Data error.
    private func translated(_ request: SQLFetchQuery?, _ body: () throws -> SQLFragment) throws -> SQLFragment {
        do {
            return try body()
        } catch let error as SQLTranslationError {
            throw CoreDataError.make(NSCoreDataError, "The SQLite store cannot evaluate this request in SQL: \(error.description)")
        }
    }

    /// Prepares (from the connection's statement cache) and runs a statement, logging its SQL.
    func run(_ db: Database, _ sql: SQLFragment, _ body: (Statement, StatementArguments) throws -> Void) throws {
        let text = sql.sql(in: Self.dialect)
        Log.sql.debug("\(text) \(sql.arguments.isEmpty ? "" : "\(sql.arguments)")")
        let statement = try db.cachedStatement(sql: text)
        try body(statement, sql.statementArguments)
    }
}

extension StoreFetchPurpose {
    /// The purpose's part of a plan's shape.
    var planCode: Int {
        switch self {
        case .snapshots: 0
        case .objectIDs: 1
        case .count: 2
        }
    }
}
