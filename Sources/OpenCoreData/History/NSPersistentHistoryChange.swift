import Foundation

/// The kind of change a history change records.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistorychangetype>.
public enum NSPersistentHistoryChangeType: Int, Sendable {
    /// The object was inserted.
    case insert = 0
    /// The object was updated.
    case update = 1
    /// The object was deleted.
    case delete = 2
}

/// One inserted, updated or deleted object of a history transaction.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistorychange>.
/// `@unchecked Sendable`: immutable once built (`transaction` is set once, before the change is
/// handed out); the tombstone holds property-list values.
open class NSPersistentHistoryChange: NSObject, NSCopying, @unchecked Sendable {
    /// The change's number in its store (`ACHANGE.Z_PK`).
    public let changeID: Int64
    /// The object that changed.
    public let changedObjectID: NSManagedObjectID
    /// Insert, update or delete.
    public let changeType: NSPersistentHistoryChangeType
    /// For deletes: the values of the attributes marked "preserve after deletion", by name.
    public let tombstone: [AnyHashable: Any]?
    /// The transaction the change belongs to.
    open var transaction: NSPersistentHistoryTransaction? { owner ?? parent }
    /// The transaction whose `changes` hold this change (weak: it holds the change).
    weak var parent: NSPersistentHistoryTransaction?
    /// The transaction of a change fetched on its own (`.changesOnly`), which holds no changes.
    var owner: NSPersistentHistoryTransaction?
    /// For updates: the properties that changed; nil for inserts and deletes, and for updates
    /// whose record this library cannot read (another writer's encoding).
    public let updatedProperties: Set<NSPropertyDescription>?

    package init(changeID: Int64, changedObjectID: NSManagedObjectID, changeType: NSPersistentHistoryChangeType,
                 tombstone: [AnyHashable: Any]?, updatedProperties: Set<NSPropertyDescription>?) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.tombstone = tombstone
        self.updatedProperties = updatedProperties
        super.init()
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String {
        "<NSPersistentHistoryChange: \(changeID) \(changeType) \(changedObjectID.uriRepresentation())>"
    }

    // MARK: - Fetching changes

    /// The entity that describes history changes, for fetch requests on them.
    ///
    /// Its attributes are the keys a change predicate can use: `changeID`, `changeType`,
    /// `changedEntity`, `changedObjectID`, `tombstone`.
    open class var entityDescription: NSEntityDescription? { HistoryEntities.change }

    /// The entity that describes history changes (the same for every context).
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { HistoryEntities.change }

    /// A fetch request on history changes, to pass to `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`.
    open class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = HistoryEntities.change
        return request
    }
}

extension NSPersistentHistoryChange: KeyValueReading {
    /// The values change predicates evaluate in memory.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "changeID": NSNumber(value: changeID)
        case "changeType": NSNumber(value: changeType.rawValue)
        case "changedObjectID": changedObjectID
        case "changedEntity": changedObjectID.entity
        case "tombstone": tombstone
        case "transaction": transaction
        case "updatedProperties": updatedProperties
        default: nil
        }
    }
}
