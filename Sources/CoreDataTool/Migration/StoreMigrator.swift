import Foundation
import OpenCoreData

/// Runs a `MigrationPlan` through the library's API: to a copy, or in place after a backup.
///
/// Lightweight (inferred) migrations open the store with `NSMigratePersistentStoresAutomaticallyOption`
/// and `NSInferMappingModelAutomaticallyOption`, as an app would, so the store is migrated in
/// place in one transaction by the SQLite store itself. Migrations through a mapping model go to a
/// new file (`NSMigrationManager` writes a destination store), which then replaces the store.
enum StoreMigrator {
    /// Where the migrated store goes.
    enum Target {
        /// A new store at this path; the original is not changed.
        case copy(String)
        /// The store itself, after a backup beside it.
        case inPlace
    }

    /// What a run did, for the summary line.
    struct Outcome {
        /// The migrated store's path.
        var migrated: String
        /// The backup written before an in-place migration.
        var backup: String?
    }

    /// The options an app opens a store of an older model version with.
    static var migrationOptions: [AnyHashable: Any] {
        [
            NSMigratePersistentStoresAutomaticallyOption: true,
            NSInferMappingModelAutomaticallyOption: true,
        ]
    }

    /// Migrates the plan's store to `target`.
    ///
    /// - Throws: `ToolError`; on failure the original store is unchanged and a copy being made is removed.
    static func run(_ plan: MigrationPlan, to target: Target) throws -> Outcome {
        let store = URL(fileURLWithPath: plan.storePath)
        switch target {
        case .copy(let path):
            let copy = URL(fileURLWithPath: path)
            try checkNewFile(copy, store: store)
            do {
                if plan.usesMappingModel {
                    try migrateWithMapping(plan, from: store, to: copy)
                } else {
                    try copyStore(store, to: copy)
                    try migrateInPlace(copy, plan: plan)
                }
            } catch {
                removeStoreFiles(copy)
                throw ToolError.wrapping(error, context: "migrating \(plan.storePath) to \(path) failed; the store was not changed and no copy was left")
            }
            return Outcome(migrated: path, backup: nil)
        case .inPlace:
            if plan.usesMappingModel {
                // The mapping model's migration writes a new store, which replaces the original
                // only once it is complete; the backup is made just before.
                let temporary = store.deletingLastPathComponent().appendingPathComponent(".\(store.deletingPathExtension().lastPathComponent)-migrating-\(UUID().uuidString).sqlite")
                defer { removeStoreFiles(temporary) }
                do {
                    try migrateWithMapping(plan, from: store, to: temporary)
                } catch {
                    throw ToolError.wrapping(error, context: "migrating \(plan.storePath) failed; the store was not changed")
                }
                let backup = try writeBackup(of: store)
                do {
                    try copyStore(temporary, to: store)
                } catch {
                    throw ToolError.wrapping(error, context: "replacing \(plan.storePath) with its migrated copy failed; the backup is \(backup.path)")
                }
                return Outcome(migrated: plan.storePath, backup: backup.path)
            }
            let backup = try writeBackup(of: store)
            do {
                try migrateInPlace(store, plan: plan)
            } catch {
                // The store's migration is one transaction: a failure leaves it as it was.
                throw ToolError.wrapping(error, context: "migrating \(plan.storePath) failed; the store was not changed (its backup \(backup.path) is not needed)")
            }
            return Outcome(migrated: plan.storePath, backup: backup.path)
        }
    }

    // MARK: - Lightweight

    /// Opens the store with the migration options, as an app would, and closes it again.
    private static func migrateInPlace(_ url: URL, plan: MigrationPlan) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: plan.destination.model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: migrationOptions)
        // Removing the store checkpoints its WAL into the file.
        try coordinator.remove(store)
    }

    // MARK: - Mapping models

    /// Migrates the store at `source` through the plan's mapping model into a new store at
    /// `destination`. A mapping that names a policy class this tool does not contain fails with
    /// the library's 134170 naming it: custom policies run only inside the app that defines them.
    private static func migrateWithMapping(_ plan: MigrationPlan, from source: URL, to destination: URL) throws {
        guard let mapping = plan.mapping, let sourceModel = plan.sourceModel else { throw ToolError("the plan has no mapping model") }
        try NSMigrationManager(sourceModel: sourceModel, destinationModel: plan.destination.model)
            .migrateStore(from: source, type: .sqlite, options: nil, mapping: mapping, to: destination, type: .sqlite, options: nil)
    }

    // MARK: - Files

    /// A copy of a store (rows still in its WAL included) through the library.
    private static func copyStore(_ source: URL, to destination: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
    }

    /// Copies the store to the first free `<Name>-before-migration[-n].<ext>` beside it.
    static func writeBackup(of store: URL) throws -> URL {
        let backup = backupURL(for: store)
        do {
            try copyStore(store, to: backup)
        } catch {
            throw ToolError("cannot write the backup \(backup.path); the store was not changed: \(ToolError.describe(error))")
        }
        return backup
    }

    /// `App.sqlite` → `App-before-migration.sqlite`, or `App-before-migration-2.sqlite` and so on
    /// when that exists: an earlier backup is never overwritten.
    static func backupURL(for store: URL) -> URL {
        let folder = store.deletingLastPathComponent()
        let stem = store.deletingPathExtension().lastPathComponent
        let suffix = store.pathExtension.isEmpty ? "" : "." + store.pathExtension
        var number = 1
        while true {
            let name = stem + "-before-migration" + (number == 1 ? "" : "-\(number)") + suffix
            let candidate = folder.appendingPathComponent(name)
            if !["", "-wal", "-shm"].contains(where: { FileManager.default.fileExists(atPath: candidate.path + $0) }) { return candidate }
            number += 1
        }
    }

    /// Refuses an output path that exists, is the store itself, or whose folder is missing.
    private static func checkNewFile(_ url: URL, store: URL) throws {
        if url.standardizedFileURL.path == store.standardizedFileURL.path {
            throw ToolError("--output \(url.path) is the store itself; use --in-place to migrate it in place")
        }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            throw ToolError("--output \(url.path + suffix) exists; choose a new path (the tool never overwrites a file)")
        }
        let folder = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ToolError("cannot write \(url.path): the folder \(folder.path) does not exist")
        }
    }

    /// Removes a store file and its companions, ignoring files that are not there.
    private static func removeStoreFiles(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}
