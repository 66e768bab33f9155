import Foundation

/// What an `NSBatchDeleteRequest` returns.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchdeleterequestresulttype>.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// `result` is `true` (an `NSNumber`) when the rows were deleted.
    case resultTypeStatusOnly = 0
    /// `result` is an array of the `NSManagedObjectID`s of the deleted rows, rows deleted by
    /// Cascade rules included.
    case resultTypeObjectIDs = 1
    /// `result` is the number of deleted rows, rows deleted by Cascade rules included (an `NSNumber`).
    case resultTypeCount = 2
}

/// Deletes the rows a fetch request matches, or the rows with given IDs, in the store, without
/// loading objects; delete rules are applied in SQL.
///
/// ```swift
/// let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Item"))
/// request.resultType = .resultTypeObjectIDs
/// let result = try context.execute(request) as! NSBatchDeleteResult
/// let ids = result.result as! [NSManagedObjectID]
/// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [context])
/// ```
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchdeleterequest>.
open class NSBatchDeleteRequest: NSPersistentStoreRequest {
    /// The rows to delete: its entity (with subentities unless `includesSubentities` is false)
    /// and predicate. For `init(objectIDs:)`, a request for the IDs' entity.
    public let fetchRequest: NSFetchRequest<any NSFetchRequestResult>
    /// What `execute(_:)` returns; `.resultTypeStatusOnly` by default.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly
    /// The IDs given to `init(objectIDs:)`.
    let objectIDs: [NSManagedObjectID]?

    /// Creates a request that deletes the rows `fetch` matches (its sort and paging are ignored).
    public init(fetchRequest fetch: NSFetchRequest<any NSFetchRequestResult>) {
        fetchRequest = fetch
        objectIDs = nil
        super.init()
    }

    /// Creates a request that deletes the rows `fetch` matches.
    public convenience init<T>(fetchRequest fetch: NSFetchRequest<T>) {
        self.init(fetchRequest: fetch.retyped((any NSFetchRequestResult).self))
    }

    /// Creates a request that deletes the rows with these IDs, which must all be of one entity;
    /// IDs of several entities make `execute(_:)` throw.
    public init(objectIDs: [NSManagedObjectID]) {
        let request = NSFetchRequest<any NSFetchRequestResult>()
        if let entity = objectIDs.first?.entity { request.entity = entity }
        fetchRequest = request
        self.objectIDs = objectIDs
        super.init()
    }

    /// Always `.batchDeleteRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }
}
