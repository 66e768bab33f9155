import Foundation
import GRDB

/// A SQLite store's `Z_MODELCACHE`: the model the store was written with, kept in the file so
/// tools (and a migration looking for the source model) can open the store without the app's
/// model (docs/StoreFormat.md).
///
/// One row, `Z_CONTENT` = raw DEFLATE of the model's keyed archive (``ModelCacheArchiver``).
/// A new store gets it in the transaction that creates its schema; a migration calls
/// ``write(_:in:)`` in its own transaction to replace it with the destination model.
package enum SQLiteModelCache {
    private static var bookkeeping: SQLBookkeepingStatements { SQLiteStore.bookkeeping }

    /// Replaces the store's cached model with `model`, creating `Z_MODELCACHE` if the store has
    /// none (stores from before framework 1xxx). Runs inside the caller's transaction on `db`.
    ///
    /// - Throws: GRDB's `DatabaseError` when the table can't be created or written.
    package static func write(_ model: NSManagedObjectModel, in db: Database) throws {
        let content = ModelCacheArchiver.modelCache(model)
        if try !db.tableExists("Z_MODELCACHE") {
            try SQLiteStore.execute(db, bookkeeping.createModelCacheTable)
        }
        try SQLiteStore.execute(db, bookkeeping.deleteModelCache)
        try SQLiteStore.execute(db, bookkeeping.insertModelCache, [content])
    }

    /// The store's cached model, or nil when the store has no `Z_MODELCACHE` row.
    ///
    /// - Throws: `NSFileReadCorruptFileError` when the row is not a valid archive.
    package static func read(in db: Database) throws -> NSManagedObjectModel? {
        guard try db.tableExists("Z_MODELCACHE"),
              let content = try Data.fetchOne(db, sql: bookkeeping.selectModelCache, arguments: [1])
        else { return nil }
        return try NSManagedObjectModel.fromModelCache(content)
    }
}
