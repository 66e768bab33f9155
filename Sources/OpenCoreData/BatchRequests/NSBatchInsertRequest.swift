import Foundation

/// What an `NSBatchInsertRequest` returns.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchinsertrequestresulttype>.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// `result` is `true` (an `NSNumber`) when the rows were written.
    case statusOnly = 0
    /// `result` is an array of the `NSManagedObjectID`s of the rows inserted or updated.
    case objectIDs = 1
    /// `result` is the number of rows inserted or updated (an `NSNumber`).
    case count = 2
}

/// Inserts rows of one entity straight into a SQLite store, without creating managed objects.
///
/// ```swift
/// let request = NSBatchInsertRequest(entityName: "Item", objects: [["name": "a"], ["name": "b"]])
/// request.resultType = .objectIDs
/// let ids = (try context.execute(request) as! NSBatchInsertResult).result as! [NSManagedObjectID]
/// ```
///
/// Keys the rows leave out take the model's default values. Relationships cannot be set. With a
/// uniqueness constraint a row that matches a stored one updates it (see docs/BatchRequests.md).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchinsertrequest>.
open class NSBatchInsertRequest: NSPersistentStoreRequest {
    private var _entity: NSEntityDescription?
    private var _entityName: String

    /// The name of the entity to insert into.
    open var entityName: String { _entity?.name ?? _entityName }
    /// The entity to insert into, when the request was made with one (else resolved when it runs).
    open var entity: NSEntityDescription? { _entity }
    /// The rows to insert, keyed by attribute name.
    open var objectsToInsert: [[String: Any]]?
    /// Fills a new dictionary per row; returns true when there are no more rows (that dictionary is not inserted).
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Sets the attributes of a new object per row; returns true when there are no more rows (that object is not inserted).
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// What `execute(_:)` returns; `.statusOnly` by default.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// Creates a request that inserts `dictionaries` into the entity named `entityName`.
    /// (`required` so that `batchInsertRequest(withEntityName:objects:)` can return `Self`.)
    public required init(entityName: String, objects dictionaries: [[String: Any]]) {
        _entityName = entityName
        objectsToInsert = dictionaries
        super.init()
    }

    /// Creates a request that inserts `dictionaries` into `entity`.
    public init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        _entity = entity
        _entityName = entity.name ?? ""
        objectsToInsert = dictionaries
        super.init()
    }

    /// Creates a request whose rows `handler` fills in, one dictionary per call, until it returns true.
    public init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        _entity = entity
        _entityName = entity.name ?? ""
        dictionaryHandler = handler
        super.init()
    }

    /// Creates a request for the entity named `entityName` whose rows `handler` fills in until it returns true.
    public init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        _entityName = entityName
        dictionaryHandler = handler
        super.init()
    }

    /// Creates a request whose rows `handler` sets on one new object per call, until it returns true.
    public init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        _entity = entity
        _entityName = entity.name ?? ""
        managedObjectHandler = handler
        super.init()
    }

    /// Creates a request for the entity named `entityName` whose rows `handler` sets on new objects until it returns true.
    public init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        _entityName = entityName
        managedObjectHandler = handler
        super.init()
    }

    /// Creates a request with no entity and no rows (deprecated by Apple in iOS 14).
    @available(*, deprecated, message: "Use init(entityName:objects:) or another initializer that names the entity.")
    public override init() {
        _entityName = ""
        super.init()
    }

    /// Creates a request that inserts `dictionaries` into the entity named `entityName`.
    open class func batchInsertRequest(withEntityName entityName: String, objects dictionaries: [[String: Any]]) -> Self {
        Self(entityName: entityName, objects: dictionaries)
    }

    /// Always `.batchInsertRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }
}
