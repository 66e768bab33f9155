import Foundation

// MARK: - Deferred lightweight migration

extension NSPersistentStoreCoordinator {
    /// Runs every task a deferred lightweight migration left in the coordinator's stores (for
    /// SQLite stores: dropping the old tables), each store in one transaction. Stores with
    /// nothing pending are left alone; their metadata then no longer holds
    /// `NSPersistentStoreDeferredLightweightMigrationOptionKey`.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/finishdeferredlightweightmigration()>.
    public func finishDeferredLightweightMigration() throws {
        try finishDeferredMigration(limit: nil)
    }

    /// Runs one pending task of a deferred lightweight migration, if there is one.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/finishdeferredlightweightmigrationtask()>.
    public func finishDeferredLightweightMigrationTask() throws {
        try finishDeferredMigration(limit: 1)
    }

    private func finishDeferredMigration(limit: Int?) throws {
        for store in persistentStores {
            guard let sqlite = store.backend as? SQLiteStore, !sqlite.options.readOnly,
                  let written = try sqlite.finishDeferredMigration(limit: limit) else { continue }
            store.storeDidWriteMetadata { metadata in
                for key in [SQLiteDeferredCleanup.tablesKey, NSPersistentStoreDeferredLightweightMigrationOptionKey] {
                    metadata[key] = written[key]
                }
            }
            if limit != nil { return }
        }
    }
}
