import Foundation

// MARK: - Persistent history at the store seam

/// A store that keeps persistent history (Apple's `ATRANSACTION`/`ACHANGE` tables in SQLite).
///
/// Kept apart from `PersistentStoreBackend` so stores without history need nothing; the
/// coordinator asks `store.backend as? HistoryStoreBackend`.
package protocol HistoryStoreBackend: PersistentStoreBackend {
    /// Whether the store records and holds history (its tables exist).
    var keepsHistory: Bool { get }

    /// The number of the store's last history transaction, or nil when it has none.
    func lastHistoryTransactionNumber() throws -> Int64?

    /// Fetches or deletes history as the request says.
    func executeHistory(_ request: StoreHistoryRequest, store: NSPersistentStore) throws -> StoreHistoryOutcome
}

/// The kind of a recorded change (Apple's `NSPersistentHistoryChangeType` raw values, which are
/// also `ACHANGE.ZCHANGETYPE`).
package enum StoreHistoryChangeKind: Int64, Sendable {
    case insert = 0
    case update = 1
    case delete = 2
}

/// What a history request asks of one store.
package struct StoreHistoryRequest {
    /// Where the requested history starts (fetch) or ends (delete).
    package enum Bound {
        /// All of it.
        case all
        /// Transactions whose timestamp is after (fetch) or before (delete) the date.
        case date(Date)
        /// Transactions numbered after (fetch) or up to and including (delete) the number.
        case transaction(Int64)
    }

    /// Whether the request deletes instead of fetching.
    package var isDelete = false
    package var bound: Bound = .all
    /// A predicate on transactions (`NSPersistentHistoryTransaction.fetchRequest`), evaluated in
    /// SQL where it lowers, in memory otherwise.
    package var transactionPredicate: NSPredicate?
    /// A predicate on changes (`NSPersistentHistoryChange.fetchRequest`).
    package var changePredicate: NSPredicate?
    /// Whether transactions are read with their changes.
    package var includesChanges = true
    /// The most transactions to return (0: no limit) and how many to skip.
    package var fetchLimit = 0
    package var fetchOffset = 0

    package init() {}
}

/// A transaction as a store reads it.
package struct StoreHistoryTransaction {
    package var number: Int64
    package var timestamp: Date
    package var author: String?
    package var bundleID: String?
    package var contextName: String?
    package var processID: String?
    /// nil when the request did not ask for changes.
    package var changes: [StoreHistoryChange]?
}

/// A change as a store reads it.
package struct StoreHistoryChange {
    package var changeID: Int64
    /// The concrete entity of the changed row.
    package var entity: NSEntityDescription
    package var primaryKey: Int64
    package var kind: StoreHistoryChangeKind
    /// The names of the updated properties; nil when unknown (inserts, deletes, or an encoding
    /// this store cannot read).
    package var updatedPropertyNames: [String]?
    /// The preserved values of a deleted row, by attribute name.
    package var tombstone: [String: Any]?
    /// The number of the transaction that holds the change.
    package var transactionNumber: Int64
}

/// What a history request produced.
package enum StoreHistoryOutcome {
    /// Fetched transactions (changes attached when asked), ascending by number.
    case transactions([StoreHistoryTransaction])
    /// The number of transactions deleted.
    case deleted(Int)
}
