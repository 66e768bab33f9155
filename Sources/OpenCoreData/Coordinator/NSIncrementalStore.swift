import Foundation

/// The base class of stores an app writes itself, which load and save records on demand.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsincrementalstore>. Subclass
/// it, register the subclass with `NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)`,
/// and override `loadMetadata()`, `execute(_:with:)`, `newValuesForObject(with:with:)`,
/// `newValue(forRelationship:forObjectWith:with:)` and `obtainPermanentIDs(for:)`. Name
/// records with `newObjectID(for:referenceObject:)` and read the name back with
/// `referenceObject(for:)`. The coordinator reaches the store through `IncrementalStoreBackend`;
/// docs/CustomStores.md shows a whole store.
///
/// `@unchecked Sendable`, restated from `NSPersistentStore`: the class adds only `references`,
/// which is `Sendable`. Subclasses restate it too and keep their own state behind a lock.
open class NSIncrementalStore: NSPersistentStore, ReferenceObjectStore, @unchecked Sendable {
    /// The reference objects behind this store's object IDs.
    package let references = ReferenceObjectTable()

    package override class func makeCustomStoreBackend() -> any PersistentStoreBackend { IncrementalStoreBackend() }

    // MARK: - Methods a subclass overrides

    /// Checks that the store's URL is usable and sets `metadata`, which must hold
    /// `NSStoreTypeKey` and `NSStoreUUIDKey`; the base class sets nothing, so adding a store
    /// whose class does not override it fails.
    open override func loadMetadata() throws {}

    /// Runs a fetch request (returning what its `resultType` asks: managed objects, object IDs,
    /// dictionaries, or one `NSNumber` count) or a save request (`NSSaveChangesRequest`,
    /// returning an empty array).
    ///
    /// The base class throws `NSPersistentStoreOperationError`.
    open func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        throw notOverridden("execute(_:with:)")
    }

    /// The persisted values of a record: a node with its attributes and, optionally, its to-one
    /// relationships (`NSManagedObjectID` or `NSNull`). Throws when the record does not exist.
    open func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        throw notOverridden("newValuesForObject(with:with:)")
    }

    /// The value of a relationship of a record: an `NSManagedObjectID` (or `NSNull` for none)
    /// for a to-one, a collection of `NSManagedObjectID`s for a to-many (in order for an
    /// ordered relationship).
    open func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                       with context: NSManagedObjectContext?) throws -> Any {
        throw notOverridden("newValue(forRelationship:forObjectWith:with:)")
    }

    /// Permanent IDs, made with `newObjectID(for:referenceObject:)`, for objects that have
    /// temporary ones, in the same order.
    open func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        throw notOverridden("obtainPermanentIDs(for:)")
    }

    /// Called when contexts register objects of this store; the base class does nothing.
    open func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Called when contexts no longer hold objects of this store; the base class does nothing.
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// A new identifier for a store about to be created at a URL: a UUID string.
    open class func identifierForNewStore(at storeURL: URL) -> Any {
        UUID().uuidString
    }

    // MARK: - Reference objects

    /// The object ID of the record an entity's instance is stored as, named by a reference
    /// object unique within the entity's hierarchy (a string, a number, a UUID).
    ///
    /// The same entity and reference always give equal IDs; the ID's URI is
    /// `x-coredata://<store UUID>/<Entity>/p<reference>`.
    public func newObjectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
        makeObjectID(for: entity, reference: data)
    }

    /// The reference object an object ID of this store was made with.
    ///
    /// Passing an ID of another store, or a temporary ID, is a programmer error (Apple raises).
    public func referenceObject(for objectID: NSManagedObjectID) -> Any {
        reference(of: objectID, method: "referenceObject(for:)")
    }

    // MARK: - URIs

    package override func uriReferenceComponent(for objectID: NSManagedObjectID) -> String? {
        referenceURIComponent(for: objectID)
    }

    package override func objectID(forURIReference component: String, entity: NSEntityDescription) -> NSManagedObjectID? {
        objectID(forReferenceURIComponent: component, entity: entity)
    }

    private func notOverridden(_ method: String) -> NSError {
        CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not override NSIncrementalStore.\(method).")
    }
}
