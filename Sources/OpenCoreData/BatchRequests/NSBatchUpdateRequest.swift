import Foundation

/// What an `NSBatchUpdateRequest` returns.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchupdaterequestresulttype>.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// `result` is `true` (an `NSNumber`) when the rows were updated.
    case statusOnlyResultType = 0
    /// `result` is an array of the `NSManagedObjectID`s of the updated rows.
    case updatedObjectIDsResultType = 1
    /// `result` is the number of updated rows (an `NSNumber`).
    case updatedObjectsCountResultType = 2
}

/// Sets attributes of every row of an entity that matches a predicate, in the store, in one
/// SQL statement, without loading objects.
///
/// ```swift
/// let request = NSBatchUpdateRequest(entityName: "Item")
/// request.predicate = NSPredicate(format: "done == NO")
/// request.propertiesToUpdate = ["done": true, "count": NSExpression(format: "count + 1")]
/// try context.execute(request)
/// ```
///
/// Registered objects keep their old values until they are refreshed or the changes are merged
/// (`NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchupdaterequest>.
open class NSBatchUpdateRequest: NSPersistentStoreRequest {
    private var _entity: NSEntityDescription?
    private let _entityName: String
    /// What `entity` reads before a request made with a name has run (Apple's is never nil).
    private static let unresolvedEntity = NSEntityDescription()

    /// The name of the entity whose rows are updated.
    open var entityName: String { _entity?.name ?? _entityName }
    /// The entity whose rows are updated: the one given, or the one `entityName` named when the
    /// request ran (an empty description before that).
    open var entity: NSEntityDescription { _entity ?? Self.unresolvedEntity }
    /// Which rows to update; nil updates every row.
    open var predicate: NSPredicate?
    /// Whether rows of subentities are updated too (true by default).
    open var includesSubentities = true
    /// What `execute(_:)` returns; `.statusOnlyResultType` by default.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    /// The new values, keyed by attribute name or `NSAttributeDescription`: constants, or
    /// `NSExpression`s evaluated per row (`NSExpression(format: "count + 1")`).
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// Creates a request for the entity named `entityName`.
    public init(entityName: String) {
        _entityName = entityName
        super.init()
    }

    /// Creates a request for `entity`.
    public init(entity: NSEntityDescription) {
        _entity = entity
        _entityName = entity.name ?? ""
        super.init()
    }

    /// Creates a request for the entity named `entityName`.
    public class func batchUpdateRequest(withEntityName entityName: String) -> NSBatchUpdateRequest {
        NSBatchUpdateRequest(entityName: entityName)
    }

    /// The entity given at creation or resolved by a run, if any.
    var resolvedEntity: NSEntityDescription? {
        get { _entity }
        set { _entity = newValue }
    }

    /// Always `.batchUpdateRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }
}
