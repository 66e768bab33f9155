import Foundation
import GRDB

/// Enables deferred lightweight migrations when a store is added; afterwards, a store's metadata
/// holds it (true) while some of its migration's clean-up is still to do.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstoredeferredlightweightmigrationoptionkey>.
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"

/// The clean-up a deferred lightweight migration leaves for later: dropping the old tables, whose
/// rows were copied into the new ones. Dropping a large table frees every page it used, which is
/// the slow part of a migration that Apple's option lets an app postpone.
///
/// The old tables stay in the file renamed with ``tablePrefix`` (the model never reads them), and
/// the store's metadata lists them under ``tablesKey`` with
/// `NSPersistentStoreDeferredLightweightMigrationOptionKey` set to true. A later migration
/// finishes what is pending first, in its own transaction.
enum SQLiteDeferredCleanup {
    /// Prefix of an old table whose drop is deferred.
    static let tablePrefix = "_OCD_DEFERRED_"
    /// The metadata key listing the tables still to drop.
    static let tablesKey = "OCDDeferredMigrationTables"

    /// The tables a store's metadata lists as still to drop.
    static func pendingTables(in metadata: [String: Any]) -> [String] {
        (metadata[tablesKey] as? [String] ?? []).filter { $0.hasPrefix(tablePrefix) }
    }

    /// `metadata` listing `tables` as pending (none: the keys removed).
    static func metadata(_ metadata: [String: Any], pending tables: [String]) -> [String: Any] {
        var updated = metadata
        if tables.isEmpty {
            updated[tablesKey] = nil
            updated[NSPersistentStoreDeferredLightweightMigrationOptionKey] = nil
        } else {
            updated[tablesKey] = tables
            updated[NSPersistentStoreDeferredLightweightMigrationOptionKey] = true
        }
        return updated
    }

    /// Drops up to `limit` pending tables (all of them when nil) inside the caller's transaction
    /// and returns the tables still pending.
    static func drop(_ tables: [String], limit: Int?, dialect: any SQLDialect, _ db: Database) throws -> [String] {
        let count = min(limit ?? tables.count, tables.count)
        // A table already gone (metadata an app saved from before the clean-up) is done.
        for table in tables.prefix(count) where try db.tableExists(table) {
            try SQLiteStore.execute(db, SQLSchemaChange.dropTable(table).sql(in: dialect))
        }
        return Array(tables.dropFirst(count))
    }
}

extension SQLiteStore {
    /// Runs pending clean-up of a deferred lightweight migration: every task, or one when
    /// `limit` is 1. Returns the store's metadata afterwards, or nil when nothing was pending.
    func finishDeferredMigration(limit: Int?) throws -> [String: Any]? {
        try writeTransaction { db -> [String: Any]? in
            let inspection = try SQLiteStoreFile.inspect(db, url: url)
            let pending = SQLiteDeferredCleanup.pendingTables(in: inspection.metadata)
            guard !pending.isEmpty else { return nil }
            let left = try SQLiteDeferredCleanup.drop(pending, limit: limit, dialect: Self.dialect, db)
            let metadata = SQLiteDeferredCleanup.metadata(inspection.metadata, pending: left)
            try Self.writeMetadata(metadata, in: db)
            return metadata
        }
    }
}
