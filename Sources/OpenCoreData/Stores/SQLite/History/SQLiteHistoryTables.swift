import Foundation
import GRDB

/// Finding and creating Apple's persistent-history tables in a store file.
enum SQLiteHistoryTables {
    /// Whether the store has `ATRANSACTION`, `ACHANGE` and `ATRANSACTIONSTRING`.
    static func exist(_ db: Database) throws -> Bool {
        let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)",
                                        arguments: [SQLHistoryStatements.changeTable, SQLHistoryStatements.transactionTable, SQLHistoryStatements.stringTable])
        return names.count == 3
    }

    /// Creates the tables, their eleven indexes and their `Z_PRIMARYKEY` rows (16001–16003,
    /// `Z_MAX` 0), as Apple does when a store is first opened with `NSPersistentHistoryTrackingKey`.
    /// A store that has the tables already is left as it is.
    static func create(_ db: Database) throws {
        guard try !exist(db) else { return }
        for statement in SQLiteHistoryRecorder.statements.creationStatements {
            try SQLiteStore.execute(db, statement)
        }
        for (number, name) in SQLHistoryStatements.entityNames
        where try Row.fetchOne(db, sql: SQLiteStore.bookkeeping.selectMaxKey, arguments: [number]) == nil {
            try SQLiteStore.execute(db, SQLiteStore.bookkeeping.insertEntity, [number, name, 0, 0])
        }
    }
}
