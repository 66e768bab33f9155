import Foundation

/// One recorded save or batch request: when, by whom, and its changes.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction>.
/// `@unchecked Sendable`: immutable once built; its changes are immutable too.
open class NSPersistentHistoryTransaction: NSObject, NSCopying, @unchecked Sendable {
    /// When the transaction was committed.
    public let timestamp: Date
    /// The changes, in the order they were recorded; nil when the request asked for transactions only.
    public let changes: [NSPersistentHistoryChange]?
    /// The transaction's number in its store, increasing with every transaction.
    public let transactionNumber: Int64
    /// The identifier (UUID) of the store the transaction was recorded in.
    public let storeID: String
    /// The bundle identifier of the process that wrote it (on Linux, see docs/History.md).
    public let bundleID: String
    /// The name of the process that wrote it.
    public let processID: String
    /// The name of the context that saved (`context.name`).
    public let contextName: String?
    /// The context's `transactionAuthor` when it saved.
    public let author: String?
    /// The token that marks this transaction (fetching after it returns later transactions only).
    public let token: NSPersistentHistoryToken

    package init(timestamp: Date, changes: [NSPersistentHistoryChange]?, transactionNumber: Int64, storeID: String,
                 bundleID: String, processID: String, contextName: String?, author: String?) {
        self.timestamp = timestamp
        self.changes = changes
        self.transactionNumber = transactionNumber
        self.storeID = storeID
        self.bundleID = bundleID
        self.processID = processID
        self.contextName = contextName
        self.author = author
        self.token = NSPersistentHistoryToken(transactionNumbers: [storeID: transactionNumber])
        super.init()
        for change in changes ?? [] { change.parent = self }
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// A DidSave notification of the transaction's changes (object IDs only), for
    /// `mergeChanges(fromContextDidSave:)`: merging it updates a context as merging the
    /// original save would have.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction/objectidnotification()>.
    open func objectIDNotification() -> Notification {
        var inserted = Set<NSManagedObjectID>(), updated = Set<NSManagedObjectID>(), deleted = Set<NSManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        // An object inserted or deleted in the same transaction is not also an update.
        updated.subtract(inserted)
        updated.subtract(deleted)
        return Notification(name: .NSManagedObjectContextDidSave, object: nil, userInfo: [
            NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted,
            NSPersistentHistoryTokenKey: token,
        ])
    }

    open override var description: String {
        "<NSPersistentHistoryTransaction: \(transactionNumber) \(timestamp) author: \(author ?? "nil") context: \(contextName ?? "nil") changes: \(changes?.count ?? 0)>"
    }

    // MARK: - Fetching transactions

    /// The entity that describes history transactions, for fetch requests on them.
    ///
    /// Its attributes are the keys a transaction predicate can use: `author`, `bundleID`,
    /// `contextName`, `processID`, `timestamp`, `transactionNumber`.
    open class var entityDescription: NSEntityDescription? { HistoryEntities.transaction }

    /// The entity that describes history transactions (the same for every context).
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { HistoryEntities.transaction }

    /// A fetch request on history transactions, to pass to `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`.
    open class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = HistoryEntities.transaction
        return request
    }
}

extension NSPersistentHistoryTransaction: KeyValueReading {
    /// The values transaction predicates evaluate in memory.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "author": author
        case "bundleID": bundleID
        case "contextName": contextName
        case "processID": processID
        case "timestamp": timestamp
        case "transactionNumber": NSNumber(value: transactionNumber)
        case "storeID": storeID
        case "changes": changes
        case "token": token
        default: nil
        }
    }
}
