import Foundation
import GRDB

// MARK: - Migrating on open through a mapping model

extension SQLiteStore {
    /// Migrates the store at `url` through a mapping model made for its model and `model`, when
    /// one is found: Apple prefers a mapping model to inference. Looks beside the model's bundle
    /// (where an app's resources keep both), then in the app's bundles.
    ///
    /// The migration writes a new store beside the old one and moves it into place with one
    /// rename, after the old store's WAL is checkpointed: a crash leaves the old store or the
    /// new one, and a failure leaves the old store as it was.
    ///
    /// - Returns: Whether a mapping model was found and the store migrated.
    static func migrateThroughMappingModel(url: URL, inspection: SQLiteStoreInspection, to model: NSManagedObjectModel,
                                           options: SQLiteStoreOptions) throws -> Bool {
        let source = try MigrationSourceModel.find(forStoreMetadata: inspection.metadata, destination: model,
                                                   modelCache: readModelCache(url, timeout: options.busyTimeout), url: url)
        var folders = ModelLocator.searchFolders(bundles: nil)
        if let bundle = model.versionBundleURL { folders.insert(bundle.deletingLastPathComponent().standardizedFileURL, at: 0) }
        guard let mapping = NSMappingModel.find(in: folders, sourceModel: source, destinationModel: model) else { return false }

        try checkpoint(url, timeout: options.busyTimeout)
        let migrated = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migrated-\(UUID().uuidString)")
        defer { SQLiteStoreFiles.removeTemporaryStore(at: migrated) }
        do {
            try NSMigrationManager(sourceModel: source, destinationModel: model)
                .migrateStore(from: url, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: migrated, destinationType: NSSQLiteStoreType)
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw CoreDataError.make(NSMigrationError, "Migrating the store at \(url.path) through its mapping model failed: \(error). The store was not changed.",
                                     userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error as NSError])
        }
        try copyUnmodelledTables(from: url, sourceModel: source, into: migrated, timeout: options.busyTimeout)
        try SQLiteStoreFiles.replace(url, with: migrated, timeout: options.busyTimeout)
        Log.store.info("Migrated the SQLite store \(url.path) through a mapping model")
        return true
    }

    /// Copies the tables of the old store that its model does not describe (Apple's persistent
    /// history: `ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`; an app's own tables), with their
    /// indexes, into the migrated store, as they are: they survive a migration untouched, as they
    /// do in an in-place one. History rows keep the old primary keys.
    static func copyUnmodelledTables(from old: URL, sourceModel: NSManagedObjectModel, into new: URL, timeout: TimeInterval) throws {
        sourceModel.freeze()
        let schema = SQLStoreSchema(model: sourceModel)
        // A to-many without an inverse is modelled in its owner column or, in a store an earlier
        // OpenCoreData wrote, in a join table: neither is carried over as it is.
        let legacyJoins = schema.ownerColumns.map(\.legacyJoinTableName)
        let modelled = Set((schema.tables.map(\.name) + schema.joinTables.map(\.name) + legacyJoins + ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]).map { $0.uppercased() })
        var configuration = Configuration()
        configuration.busyMode = .timeout(timeout)
        do {
            let queue = try DatabaseQueue(path: new.path, configuration: configuration)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [old.path])
                defer { try? db.execute(sql: "DETACH DATABASE old") }
                try db.inTransaction {
                    let objects = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM old.sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') ORDER BY type = 'index', rowid")
                    let present = Set(try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_master WHERE type = 'table'").map { $0.uppercased() })
                    var copied = Set<String>()
                    for object in objects {
                        let type: String = object["type"], name: String = object["name"], table: String = object["tbl_name"], sql: String = object["sql"]
                        let upper = table.uppercased()
                        // Old tables a deferred migration has not dropped yet are not carried over.
                        guard !upper.hasPrefix("SQLITE_"), !upper.hasPrefix(SQLiteDeferredCleanup.tablePrefix), !modelled.contains(upper),
                              !present.contains(upper) else { continue }
                        if type == "table" {
                            try db.execute(sql: sql)
                            try db.execute(sql: "INSERT INTO main.\(name.quotedDatabaseIdentifier) SELECT * FROM old.\(name.quotedDatabaseIdentifier)")
                            copied.insert(upper)
                        } else if copied.contains(upper) {
                            try db.execute(sql: sql)
                        }
                    }
                    return .commit
                }
            }
        } catch {
            throw CoreDataError.make(NSMigrationError, "Copying the tables the model does not describe from \(old.path) failed: \(error). The store was not changed.",
                                     userInfo: [NSFilePathErrorKey: old.path, NSUnderlyingErrorKey: error as NSError])
        }
    }

    /// The store's `Z_MODELCACHE` content, or nil; an unreadable cache only removes one place to
    /// look for the source model.
    static func readModelCache(_ reader: any DatabaseReader, url: URL) -> Data? {
        do {
            return try reader.read { db -> Data? in
                guard try db.tableExists("Z_MODELCACHE") else { return nil }
                return try Data.fetchOne(db, sql: bookkeeping.selectModelCache, arguments: [1])
            }
        } catch {
            Log.store.error("Reading Z_MODELCACHE of \(url.path) failed: \(error)")
            return nil
        }
    }

    private static func readModelCache(_ url: URL, timeout: TimeInterval) -> Data? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(timeout)
        guard let queue = try? DatabaseQueue(path: url.path, configuration: configuration) else { return nil }
        defer { try? queue.close() }
        return readModelCache(queue, url: url)
    }

    /// Moves every committed row from the WAL into the database file, so the file alone is the
    /// whole store before it is replaced.
    private static func checkpoint(_ url: URL, timeout: TimeInterval) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(timeout)
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw SQLiteStoreErrors.openError(error, url: url)
        }
    }
}

// MARK: - One lightweight step between two given models

extension SQLiteStore {
    /// Migrates the store at `url` in place from `source` to `destination` by inference, in one
    /// transaction: one lightweight step of a staged migration, whose models are known.
    ///
    /// - Throws: `NSInferredMappingModelError` when the step cannot be inferred, `NSMigrationError`
    ///   when it fails; the store is then unchanged.
    package static func migrateInPlace(url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel,
                                       options rawOptions: [AnyHashable: Any]?) throws {
        let options = try SQLiteStoreOptions(rawOptions)
        guard let inspection = try SQLiteStoreFile.inspect(url, timeout: options.busyTimeout), !inspection.isEmpty else {
            throw CoreDataError.make(NSMigrationManagerSourceStoreError, "There is no store at \(url.path) to migrate.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        // Entity numbers (Z_ENT) are given when a model is frozen, as a coordinator does.
        source.freeze()
        destination.freeze()
        let queue = { try DatabaseQueue(path: url.path, configuration: options.configuration(label: "OpenCoreData.Migration")) }
        _ = try runLightweight(ModelMatch(source: source, destination: destination), inspection, url: url, options: options, on: queue)
    }

    /// Runs one inferred lightweight migration of the store at `url` in one transaction on the
    /// writer `open` gives, then removes the external-data files no row refers to any more (only
    /// after the commit: a failed migration leaves every file the old rows refer to). A queue the
    /// call opened is closed again; the store's own pool is left open.
    ///
    /// - Throws: the migration's Cocoa errors as they are, anything else as `NSMigrationError`;
    ///   the store is then unchanged.
    static func runLightweight<Writer: DatabaseWriter>(_ match: ModelMatch, _ inspection: SQLiteStoreInspection, url: URL,
                                                       options: SQLiteStoreOptions, on open: () throws -> Writer) throws
        -> (entityNumbers: [String: Int], metadata: [String: Any], obsoleteFiles: Set<URL>) {
        let migration = try SQLiteLightweightMigration(match: match, storedNumbers: inspection.entityNumbers, storedTables: inspection.tableNames,
                                                       dialect: dialect)
        do {
            let writer = try open()
            defer { if let queue = writer as? DatabaseQueue { try? queue.close() } }
            // The migration moves markers only (a BLOB is copied as it is), so it needs no schema.
            let externalData = SQLiteExternalData(storeURL: url, threshold: options.externalDataThreshold, metadata: inspection.metadata, schema: nil)
            let result = try writer.write { db in try migration.run(db, metadata: inspection.metadata, externalData: externalData,
                                                                          defersCleanup: options.defersLightweightCleanup) }
            SQLiteExternalDataWrites(externalData).removeAfterCommit(result.obsoleteFiles)
            return result
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw CoreDataError.make(NSMigrationError, "Migrating the store at \(url.path) failed: \(error). The store was not changed.",
                                     userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error as NSError])
        }
    }
}
