import Foundation
import GRDB

/// The description of one history transaction, for `SQLiteHistoryRecorder`.
package struct HistoryTransactionInfo: Sendable {
    /// `context.transactionAuthor`.
    package var author: String?
    /// `context.name`.
    package var contextName: String?
    package var bundleID: String?
    package var processID: String?
    package var timestamp: Date

    package init(author: String?, contextName: String?, bundleID: String? = HistoryProcessIdentity.bundleID,
                 processID: String? = HistoryProcessIdentity.processID, timestamp: Date = Date()) {
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.timestamp = timestamp
    }
}

/// One changed row, for `SQLiteHistoryRecorder`.
package struct HistoryChangeRow: Sendable {
    /// The row's concrete entity's `Z_ENT` (never an abstract parent's).
    package var entityNumber: Int64
    /// The row's `Z_PK`.
    package var primaryKey: Int64
    package var kind: StoreHistoryChangeKind
    /// For updates: the names of the changed persistent properties (nil: unknown).
    package var updatedProperties: [String]?
    /// For deletes: the values of the attributes that preserve theirs in history.
    package var tombstone: [String: StoreValue]?

    package init(entityNumber: Int64, primaryKey: Int64, kind: StoreHistoryChangeKind,
                 updatedProperties: [String]? = nil, tombstone: [String: StoreValue]? = nil) {
        self.entityNumber = entityNumber
        self.primaryKey = primaryKey
        self.kind = kind
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}

/// Writes persistent history: one `ATRANSACTION` row, its `ACHANGE` rows and any new
/// `ATRANSACTIONSTRING` names, inside the caller's write transaction.
///
/// The one entry point for everything that changes rows: context saves
/// (`SQLiteStore.save`) and batch requests. Rows are written as Apple writes them (§ "Persistent
/// history" of docs/StoreFormat.md): `Z_OPT` NULL, strings interned through the `…TS` columns,
/// `ZTIMESTAMP` in seconds since 2001, keys reserved in `Z_PRIMARYKEY` (16001–16003) once per
/// transaction.
package enum SQLiteHistoryRecorder {
    static let statements = SQLHistoryStatements(dialect: SQLiteStore.dialect)

    /// Records one transaction and returns its number (the token's), or nil when `changes` is
    /// empty: a save without changes leaves no transaction.
    /// - Precondition: `db` is in a write transaction and the history tables exist.
    package static func record(_ info: HistoryTransactionInfo, changes: [HistoryChangeRow], db: Database) throws -> Int64? {
        guard !changes.isEmpty else { return nil }
        let sql = statements
        let number = try reserveKeys(db, entity: SQLHistoryStatements.transactionEntityNumber, name: "TRANSACTION", count: 1)
        let author = try intern(info.author, db: db)
        let bundle = try intern(info.bundleID, db: db)
        let context = try intern(info.contextName, db: db)
        let process = try intern(info.processID, db: db)
        try SQLiteStore.execute(db, sql.insertTransaction, [
            number, SQLHistoryStatements.transactionEntityNumber, author, bundle, context, process, info.timestamp.timeIntervalSinceReferenceDate,
        ])
        var key = try reserveKeys(db, entity: SQLHistoryStatements.changeEntityNumber, name: "CHANGE", count: changes.count)
        Log.sql.debug("\(sql.insertChange)")
        let statement = try db.cachedStatement(sql: sql.insertChange)
        for change in changes {
            var columns: Data?
            switch change.kind {
            case .insert: columns = nil
            case .update: columns = change.updatedProperties.flatMap(SQLiteHistoryColumns.encode(updated:))
            case .delete: columns = change.tombstone.flatMap(SQLiteHistoryColumns.encode(tombstone:))
            }
            try statement.execute(arguments: [key, SQLHistoryStatements.changeEntityNumber, change.kind.rawValue, change.entityNumber,
                                              change.primaryKey, number, columns])
            key += 1
        }
        return number
    }

    /// The `Z_PK` of a name in `ATRANSACTIONSTRING`, added when new; nil for no name.
    private static func intern(_ name: String?, db: Database) throws -> Int64? {
        guard let name else { return nil }
        if let key = try Int64.fetchOne(db.cachedStatement(sql: statements.selectString), arguments: [name]) { return key }
        let key = try reserveKeys(db, entity: SQLHistoryStatements.stringEntityNumber, name: "TRANSACTIONSTRING", count: 1)
        try SQLiteStore.execute(db, statements.insertString, [key, SQLHistoryStatements.stringEntityNumber, name])
        return key
    }

    /// Adds `count` to a history entity's `Z_MAX` and returns the first reserved key; the
    /// `Z_PRIMARYKEY` row is added when a store lacks it.
    private static func reserveKeys(_ db: Database, entity: Int64, name: String, count: Int) throws -> Int64 {
        let bookkeeping = SQLiteStore.bookkeeping
        guard let stored = try Row.fetchOne(db, sql: bookkeeping.selectMaxKey, arguments: [entity]) else {
            try SQLiteStore.execute(db, bookkeeping.insertEntity, [entity, name, 0, Int64(count)])
            return 1
        }
        let current: Int64
        switch (stored[0] as DatabaseValue).storage {
        case .null: current = 0
        case .int64(let value) where value >= 0 && value < Int64.max - Int64(count): current = value
        default:
            throw CoreDataError.make(NSSQLiteError, "Z_PRIMARYKEY.Z_MAX of the history entity \(name) (\(stored[0] as DatabaseValue)) is damaged; nothing was saved.")
        }
        try SQLiteStore.execute(db, bookkeeping.setMaxKey, [current + Int64(count), entity])
        return current + 1
    }
}
