import Foundation
import GRDB
import Synchronization

/// The SQLite store (`NSSQLiteStoreType`), in the file layout Apple's Core Data writes.
///
/// One GRDB `DatabasePool` per store: a single writer and concurrent readers in WAL mode
/// (`synchronous=NORMAL`, a busy timeout), so contexts on different queues read in parallel.
/// Each context save is one SQLite transaction. See docs/StoreFormat.md for the layout.
///
/// `@unchecked Sendable`: the pool is thread-safe; the schema and decoders are immutable; the
/// caches are behind `caches`' Mutex.
final class SQLiteStore: PersistentStoreBackend, @unchecked Sendable {
    let url: URL
    let schema: SQLStoreSchema
    let builder: SQLQueryBuilder
    let options: SQLiteStoreOptions
    /// Rows the derived-attribute triggers changed on the writer connection.
    let derivedReports: SQLiteDerivedValueReports
    /// The folder of values stored outside their rows, and the threshold for writing there.
    let externalData: SQLiteExternalData
    /// Whether the file has Apple's persistent-history tables: every save then records a
    /// transaction in them, whether or not `NSPersistentHistoryTrackingKey` was given.
    let keepsHistory: Bool
    private let poolState: Mutex<DatabasePool?>
    /// Where a read-only store is read from; its private copy, if any, is removed on close.
    let readOnlyLocation: SQLiteReadOnlyLocation?

    struct Caches: @unchecked Sendable {
        // @unchecked: the values are immutable decoders/plans built from a frozen model.
        var decoders: [DecoderKey: SQLiteRowDecoder] = [:]
        var writePlans: [ObjectIdentifier: SQLiteWritePlan] = [:]
    }
    struct DecoderKey: Hashable {
        let entity: ObjectIdentifier
        let includesSubentities: Bool
    }
    let caches = Mutex(Caches())
    /// Fetch statements by request shape (`planFetch`).
    let planCache = SQLPlanCache()

    /// The SQL dialect of every statement the store runs.
    static let dialect: any SQLDialect = SQLiteDialect()
    /// The statements of `Z_PRIMARYKEY`, `Z_METADATA` and `Z_MODELCACHE`, built once.
    static let bookkeeping = SQLBookkeepingStatements(dialect: dialect)

    /// The result of opening a store: the backend and what the coordinator records about it.
    struct Opened {
        let store: SQLiteStore
        let uuid: String
        let metadata: [String: Any]
    }

    private init(url: URL, schema: SQLStoreSchema, options: SQLiteStoreOptions, pool: DatabasePool, readOnlyLocation: SQLiteReadOnlyLocation?,
                 derivedReports: SQLiteDerivedValueReports, keepsHistory: Bool, metadata: [String: Any]) {
        self.url = url
        self.keepsHistory = keepsHistory
        self.derivedReports = derivedReports
        self.readOnlyLocation = readOnlyLocation
        self.schema = schema
        self.builder = SQLQueryBuilder(schema: schema, dialect: Self.dialect)
        self.options = options
        // The metadata at open says whose bookkeeping the store follows (it is set only on creation).
        self.externalData = SQLiteExternalData(storeURL: url, threshold: options.externalDataThreshold, metadata: metadata, schema: schema)
        self.poolState = Mutex(pool)
    }

    deinit {
        // A store read from a private copy and never closed still removes its copy.
        guard readOnlyLocation?.privateCopy != nil else { return }
        if let pool = poolState.withLock({ $0 }) { try? pool.close() }
        readOnlyLocation?.remove()
    }

    // MARK: - Opening

    /// Opens (or creates) the store at `url` for a model.
    ///
    /// The file is inspected read-only first, and everything that can fail is checked before
    /// anything is written: a damaged file throws 259, a store whose version hashes differ from
    /// the model's `NSPersistentStoreIncompatibleVersionHashError`, one that lacks a table or
    /// column the model maps to `NSPersistentStoreIncompatibleSchemaError` (`SQLiteSchemaCheck`;
    /// unless migration, which rebuilds the tables, runs), and the file and its companions are
    /// left byte-identical. A read-only open never creates or changes a file
    /// (see `SQLiteReadOnlyLocation`).
    static func open(url: URL, options rawOptions: [AnyHashable: Any]?, model: NSManagedObjectModel, configuration: String?) throws -> Opened {
        guard url.isFileURL else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "The SQLite store URL \(url) is not a file URL.")
        }
        let options = try SQLiteStoreOptions(rawOptions)
        let configurationEntities = model.entities(forConfigurationName: configuration)
        // A derived attribute SQL cannot compute fails the add before any file is touched.
        _ = try SQLiteDerivation.all(in: SQLStoreSchema(model: model, configurationEntities: configurationEntities))
        var inspection = try SQLiteStoreFile.inspect(url, timeout: options.busyTimeout, readingTables: true)
        let staged = rawOptions?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager
        var needsMigration = false
        if let inspection, !inspection.isEmpty {
            if !options.ignoresVersionHashes {
                do {
                    try checkCompatible(inspection.metadata, model: model, configuration: configuration, url: url)
                } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError
                            && (options.migratesAutomatically || staged != nil) && !options.readOnly {
                    needsMigration = true
                }
            }
        } else if options.readOnly {
            throw CoreDataError.make(NSPersistentStoreOpenError,
                                     "The read-only store at \(url.path) does not exist or is empty; there is nothing to open.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        } else {
            try checkCreatable(url)
        }
        if let inspection, !inspection.isEmpty, !options.readOnly {
            try SQLiteStoreFileCheck.trialWrite(inspection.header, url: url, timeout: options.busyTimeout)
        }
        if needsMigration, let staged, let current = inspection {
            try staged.migrateStore(at: url, metadata: current.metadata, to: model, options: rawOptions)
            inspection = try SQLiteStoreFile.inspect(url, timeout: options.busyTimeout, readingTables: true)
            do {
                try checkCompatible(inspection?.metadata ?? [:], model: model, configuration: configuration, url: url)
                needsMigration = false
            } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError && options.migratesAutomatically {
                // The stages ended before the current model: the usual migration takes it on from there.
            }
        }
        if needsMigration, let current = inspection,
           try migrateThroughMappingModel(url: url, inspection: current, to: model, options: options) {
            inspection = try SQLiteStoreFile.inspect(url, timeout: options.busyTimeout, readingTables: true)
            needsMigration = false
        }

        // A store that needs no migration must have what the model maps to; one that is migrated
        // below gets its tables rebuilt for the model.
        if !needsMigration, let inspection, !inspection.isEmpty {
            // The schema the store will use: an earlier join table of a to-many without an
            // inverse is expected as such, Apple's owner column otherwise.
            let expected = SQLStoreSchema(model: model, configurationEntities: configurationEntities, storedNumbers: inspection.entityNumbers,
                                          storedTables: inspection.tableNames)
            try SQLiteSchemaCheck.check(expected, tables: inspection.tables ?? [:], url: url, writable: !options.readOnly)
        }
        let readOnlyLocation = options.readOnly ? try SQLiteReadOnlyLocation.forReading(url) : nil
        let reports = SQLiteDerivedValueReports()
        let pool: DatabasePool
        do {
            pool = try openPool(url: url, options: options, location: readOnlyLocation, reports: reports)
        } catch {
            readOnlyLocation?.remove()
            throw error
        }
        do {
            var numbers = inspection?.entityNumbers ?? [:]
            var metadata = inspection?.metadata ?? [:]
            var uuid = inspection?.uuid
            // Join tables of to-many relationships without an inverse that an earlier OpenCoreData
            // wrote keep being used; a migration or a new store uses Apple's owner columns.
            var tables = inspection?.tableNames ?? []
            if needsMigration, let inspection {
                (numbers, metadata) = try migrate(pool, inspection, to: model, options: options, url: url)
                tables = []
            }
            if inspection?.isEmpty ?? true {
                let created = try create(in: pool, model: model, configurationEntities: configurationEntities, url: url)
                (numbers, metadata, uuid) = (created.entityNumbers, created.metadata, created.uuid)
                tables = []
            }
            let schema = SQLStoreSchema(model: model, configurationEntities: configurationEntities, storedNumbers: numbers, storedTables: tables)
            if !options.readOnly, let inspection, !inspection.isEmpty {
                try installMissingDerivedTriggers(pool, schema: schema)
            }
            let keepsHistory = try preparedHistoryTables(pool, options: options)
            let store = SQLiteStore(url: url, schema: schema, options: options, pool: pool, readOnlyLocation: readOnlyLocation,
                                    derivedReports: reports, keepsHistory: keepsHistory, metadata: metadata)
            let identifier = uuid ?? UUID().uuidString
            metadata[NSStoreUUIDKey] = identifier
            metadata[NSStoreTypeKey] = NSSQLiteStoreType
            Log.store.debug("Opened SQLite store \(url.path) (\(options.readOnly ? "read-only" : "read-write"))")
            return Opened(store: store, uuid: identifier, metadata: metadata)
        } catch {
            try? pool.close()
            readOnlyLocation?.remove()
            throw SQLiteStoreErrors.openError(error, url: url)
        }
    }

    private static func openPool(url: URL, options: SQLiteStoreOptions, location: SQLiteReadOnlyLocation?,
                                 reports: SQLiteDerivedValueReports) throws -> DatabasePool {
        let configuration = options.configuration(label: "OpenCoreData.SQLiteStore", reports: reports)
        do {
            return try DatabasePool(path: location?.path ?? url.path, configuration: configuration)
        } catch {
            throw SQLiteStoreErrors.openError(error, url: url)
        }
    }

    /// Fails early, with a clear error, when a new store cannot be created at `url`.
    private static func checkCreatable(_ url: URL) throws {
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "Cannot create the store \(url.path): the folder \(directory) does not exist.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        let exists = FileManager.default.fileExists(atPath: url.path)
        if (!exists && !FileManager.default.isWritableFile(atPath: directory)) || (exists && !FileManager.default.isWritableFile(atPath: url.path)) {
            throw CoreDataError.make(NSPersistentStoreOpenError, "Cannot create the store \(url.path): the location is not writable.",
                                     userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileWriteNoPermission.rawValue)])
        }
    }

    /// Creates Apple's schema, `Z_PRIMARYKEY` rows, `Z_METADATA` and `Z_MODELCACHE` in one transaction.
    private static func create(in pool: DatabasePool, model: NSManagedObjectModel, configurationEntities: [NSEntityDescription]?,
                               url: URL) throws -> (entityNumbers: [String: Int], metadata: [String: Any], uuid: String) {
        try pool.write { db in
            // Another process may have created the store meanwhile.
            let existing = try SQLiteStoreFile.inspect(db, url: url)
            if !existing.isEmpty {
                try checkCompatible(existing.metadata, model: model, configuration: nil, url: url)
                return (existing.entityNumbers, existing.metadata, existing.uuid ?? UUID().uuidString)
            }
            let schema = SQLStoreSchema(model: model, configurationEntities: configurationEntities)
            for statement in schema.creationStatements(in: dialect) {
                try execute(db, statement)
            }
            var numbers: [String: Int] = [:]
            for entity in model.orderedEntities() {
                let number = entity.entityNumber
                let parent = entity.superentity?.entityNumber ?? 0
                try execute(db, bookkeeping.insertEntity, [number, entity.name ?? "", parent, 0])
                numbers[entity.name ?? ""] = number
            }
            let uuid = UUID().uuidString
            var metadata = SQLiteMetadata.initial(for: model)
            // Only a store created here follows OpenCoreData's external-data bookkeeping (every
            // BLOB a value); migrations keep the key as they found it, present or absent.
            metadata[SQLiteExternalData.bookkeepingKey] = SQLiteExternalData.bookkeepingVersion
            try execute(db, bookkeeping.insertMetadata, [SQLBookkeepingStatements.metadataVersion, uuid, try SQLiteMetadata.encode(metadata)])
            // The model travels with the store, as in Apple's stores (the table is in the schema).
            try execute(db, bookkeeping.insertModelCache, [ModelCacheArchiver.modelCache(model)])
            return (numbers, metadata, uuid)
        }
    }

    /// Migrates the store in place to `model`, in one transaction: finds the model it was written
    /// with, infers the mapping, and rebuilds its tables (`SQLiteLightweightMigration`). Runs when
    /// no mapping model was found (`migrateThroughMappingModel`).
    ///
    /// - Throws: `NSMigrationMissingSourceModelError` when no source model is found,
    ///   `NSMigrationMissingMappingModelError` without `NSInferMappingModelAutomaticallyOption`,
    ///   `NSInferredMappingModelError` when the change cannot be inferred, `NSMigrationError`
    ///   when a step fails; the store is then unchanged.
    private static func migrate(_ pool: DatabasePool, _ inspection: SQLiteStoreInspection, to model: NSManagedObjectModel,
                                options: SQLiteStoreOptions, url: URL) throws -> (entityNumbers: [String: Int], metadata: [String: Any]) {
        let cache = readModelCache(pool, url: url)
        let source = try MigrationSourceModel.find(forStoreMetadata: inspection.metadata, destination: model, modelCache: cache, url: url)
        guard options.infersMappingModel else {
            throw CoreDataError.make(NSMigrationMissingMappingModelError,
                                     "The store at \(url.path) needs migrating and NSInferMappingModelAutomaticallyOption is off; no mapping model was found. The store was not changed.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        let result = try runLightweight(ModelMatch(source: source, destination: model), inspection, url: url, options: options) { pool }
        Log.store.info("Migrated the SQLite store \(url.path) to the current model")
        return (result.entityNumbers, result.metadata)
    }

    /// Gives a store whose derived attributes have no triggers (written by OpenCoreData before it
    /// computed them in SQL) the triggers and the values, in one transaction. An attribute that
    /// has any `Z_DA_…_<Entity>_<attribute>_…` trigger (Apple's or ours) is left alone.
    private static func installMissingDerivedTriggers(_ pool: DatabasePool, schema: SQLStoreSchema) throws {
        let derivations = schema.derivations
        guard !derivations.isEmpty else { return }
        func missing(_ db: Database) throws -> [SQLiteDerivation] {
            let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, 5) = 'Z_DA_'")
            return derivations.filter { derivation in !names.contains { $0.contains("_" + derivation.namePart + "_") } }
        }
        guard try !pool.read(missing).isEmpty else { return }
        // Checked again under the write lock: another process may have added them meanwhile.
        let added = try pool.write { db -> [SQLiteDerivation] in
            let missing = try missing(db)
            for derivation in missing {
                for trigger in derivation.triggers(in: schema, dialect: dialect) { try execute(db, trigger.sql) }
            }
            for derivation in missing {
                if let fill = derivation.fillStatement(in: schema, dialect: dialect) { try execute(db, fill) }
            }
            return missing
        }
        guard !added.isEmpty else { return }
        Log.store.info("Added the derived-attribute triggers of \(added.map { "\($0.entity.name ?? "?").\($0.attribute.name)" }.joined(separator: ", "))")
    }

    /// Throws `NSPersistentStoreIncompatibleVersionHashError` naming the entities whose hashes differ.
    static func checkCompatible(_ metadata: [String: Any], model: NSManagedObjectModel, configuration: String?, url: URL) throws {
        if let type = metadata[NSStoreTypeKey] as? String, type != NSSQLiteStoreType {
            throw CoreDataError.make(NSPersistentStoreTypeMismatchError, "The store at \(url.path) has type '\(type)', not SQLite.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        let differing = model.entitiesDiffering(fromStoreMetadata: metadata, configuration: configuration)
        guard !differing.isEmpty else { return }
        throw CoreDataError.make(NSPersistentStoreIncompatibleVersionHashError,
                                 "The model used to open the store at \(url.path) is incompatible with the one used to create it: the version hashes of \(differing.joined(separator: ", ")) differ. Migration is needed; the store was not changed.",
                                 userInfo: [NSFilePathErrorKey: url.path, OCDMismatchedEntitiesErrorKey: differing, "metadata": metadata])
    }

    // MARK: - Connections

    private func pool() throws -> DatabasePool {
        guard let pool = poolState.withLock({ $0 }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The SQLite store at \(url.path) was removed from its coordinator.")
        }
        return pool
    }

    /// Runs a read on a reader connection (concurrently with other reads and with the writer).
    /// Reads of a context pinned to a query generation run on the generation's snapshot instead.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        if let snapshot = generationSnapshot() { return try read(snapshot, body) }
        let pool = try pool()
        do { return try pool.read(body) } catch { throw SQLiteStoreErrors.readError(error, url: url) }
    }

    /// Runs one statement on a reader connection, outside an explicit transaction: a single
    /// statement reads one consistent state of the database on its own, and a `BEGIN`/`COMMIT`
    /// pair around it cost more than many small queries themselves. Reads of several statements
    /// that must agree use `read`.
    func readStatement<T>(_ body: (Database) throws -> T) throws -> T {
        if let snapshot = generationSnapshot() { return try read(snapshot, body) }
        let pool = try pool()
        do { return try pool.unsafeRead(body) } catch { throw SQLiteStoreErrors.readError(error, url: url) }
    }

    // MARK: - Query generations

    /// The snapshot of this store in the query generation the current call is pinned to, if any:
    /// one task-local read per statement, none per row.
    @inline(__always)
    private func generationSnapshot() -> DatabaseSnapshot? {
        guard let generation = StoreReadGeneration.current else { return nil }
        return generation.snapshot(for: self) as? DatabaseSnapshot
    }

    /// Runs a read in a query generation's snapshot (a held WAL read transaction); contexts
    /// sharing the generation take turns on its one connection.
    private func read<T>(_ snapshot: DatabaseSnapshot, _ body: (Database) throws -> T) throws -> T {
        do { return try snapshot.read(body) } catch { throw SQLiteStoreErrors.readError(error, url: url) }
    }

    /// A read transaction begun now and held until the snapshot is released: the store's
    /// state for a query generation. WAL lets the writer go on committing meanwhile; the WAL
    /// file cannot be checkpointed past the snapshot until it is released.
    var supportsReadSnapshots: Bool { true }

    func makeReadSnapshot(store: NSPersistentStore) throws -> any Sendable {
        let pool = try pool()
        do { return try pool.makeSnapshot() } catch { throw SQLiteStoreErrors.readError(error, url: url) }
    }

    /// Runs a write transaction on the writer connection; it commits when `body` returns.
    func writeTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        let pool = try pool()
        if options.readOnly {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store \(url.path) was opened read-only; it cannot be written.")
        }
        do { return try pool.write(body) } catch { throw SQLiteStoreErrors.saveError(error, url: url) }
    }

    /// Runs one statement with a debug log line.
    static func execute(_ db: Database, _ sql: String, _ arguments: StatementArguments = []) throws {
        Log.sql.debug("\(sql)")
        try db.execute(sql: sql, arguments: arguments)
    }

    func close() {
        let pool = poolState.withLock { state -> DatabasePool? in
            defer { state = nil }
            return state
        }
        // Move the WAL into the main file first, so a copy of the .sqlite alone has every row.
        // A query generation still holding a snapshot keeps the WAL busy: the file is closed anyway.
        if let pool, !options.readOnly {
            do {
                try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            } catch {
                Log.store.error("Checkpointing the SQLite store \(url.path) before closing it failed: \(error)")
            }
        }
        do {
            try pool?.close()
        } catch {
            Log.store.error("Closing the SQLite store \(url.path) failed: \(error)")
        }
        if pool != nil { readOnlyLocation?.remove() }
    }

    // MARK: - Metadata

    /// Writes the metadata of a store file that no coordinator has open.
    static func writeMetadata(_ metadata: [String: Any], at url: URL, options: [AnyHashable: Any]?) throws {
        let options = try SQLiteStoreOptions(options)
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: options.configuration(label: "OpenCoreData.metadata"))
            defer { try? queue.close() }
            try queue.write { db in try writeMetadata(metadata, in: db) }
        } catch {
            throw SQLiteStoreErrors.openError(error, url: url, action: "write the metadata of")
        }
    }

    /// Replaces `Z_METADATA`'s plist in the caller's transaction (the UUID column stays).
    static func writeMetadata(_ metadata: [String: Any], in db: Database) throws {
        try execute(db, bookkeeping.updateMetadata, [try SQLiteMetadata.encode(metadata), SQLBookkeepingStatements.metadataVersion])
    }

    // MARK: - Caches

    func decoder(for entity: NSEntityDescription, includesSubentities: Bool) -> SQLiteRowDecoder {
        let key = DecoderKey(entity: ObjectIdentifier(entity), includesSubentities: includesSubentities)
        if let decoder = caches.withLock({ $0.decoders[key] }) { return decoder }
        let decoder = SQLiteRowDecoder(schema: schema, dialect: Self.dialect, entity: entity, includesSubentities: includesSubentities,
                                       externalData: externalData)
        caches.withLock { $0.decoders[key] = decoder }
        return decoder
    }
}
