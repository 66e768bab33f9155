import Dispatch
import Foundation

/// A scratch pad of managed objects: it fetches, tracks changes, and saves them to its coordinator.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext>.
/// Each context owns a serial queue; whatever touches its objects runs in `perform`,
/// `performAndWait` or the async `perform`, or on the main thread for a main-queue context.
///
/// `@unchecked Sendable`: the context may be passed between threads, but all of its graph state
/// (registered objects and change sets) is only touched on its own queue — the invariant Apple
/// documents for `perform` — so no lock is needed around it.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// How a context's queue is chosen.
    public enum ConcurrencyType: UInt, Sendable {
        /// Deprecated by Apple; treated as a private queue here.
        case confinementConcurrencyType = 0
        /// The context owns a private serial queue.
        case privateQueueConcurrencyType = 1
        /// The context runs on the main queue.
        case mainQueueConcurrencyType = 2
    }

    /// The context's concurrency type.
    public let concurrencyType: ConcurrencyType
    package let queue: DispatchQueue
    /// The marker `queue` carries, which `isOnQueue` looks for: the context's own identity, or the
    /// identity of the context whose queue it shares.
    private let queueIdentity: ObjectIdentifier
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// The coordinator the context fetches from and saves to; a child context's is its root's.
    ///
    /// A context has a coordinator or a parent, never both: setting one when the other is set
    /// stops with a message, as Apple raises.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { parentStorage?.persistentStoreCoordinator ?? coordinatorStorage }
        set {
            if parentStorage != nil, newValue != nil {
                CoreDataError.programmerError("A context has a parent context or a persistent store coordinator, never both: this one already has a parent.")
            }
            let old = coordinatorStorage
            coordinatorStorage = newValue
            old?.unregister(self)
            newValue?.register(self)
        }
    }
    package private(set) var coordinatorStorage: NSPersistentStoreCoordinator?

    /// The context this one reads from and saves into, instead of a coordinator (a child context).
    ///
    /// Set it before the context is first used. A child sees its parent's current state,
    /// unsaved changes included; its `save()` pushes its changes into the parent, and only the
    /// parent's save writes to the stores. The child keeps its parent alive (Apple's property
    /// is strong). Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/parent>.
    open var parent: NSManagedObjectContext? {
        get { parentStorage }
        set { setParent(newValue) }
    }
    package var parentStorage: NSManagedObjectContext?
    /// Run when the context is deallocated (results streams end then); keyed for removal.
    package var deinitHandlers: [Int: @Sendable () -> Void] = [:]
    /// The children of this context, held weakly, for `automaticallyMergesChangesFromParent`.
    package let childContexts = ChildContextList()
    /// For a root context with children: the permanent IDs its tree gave objects that contexts of
    /// the tree may know by temporary IDs (see `PermanentIDLog`).
    package let permanentIDLog = PermanentIDLog()
    /// How many entries of the root's `permanentIDLog` this child has applied to its objects.
    package var appliedPermanentIDs = 0

    /// A name for debugging and persistent history.
    open var name: String?
    /// The author recorded with the context's saves in persistent history.
    open var transactionAuthor: String?
    /// How save conflicts are resolved; `NSErrorMergePolicy` (report them) by default.
    open var mergePolicy: Any = NSMergePolicy.error
    /// Whether saves of other contexts on the same coordinator are merged in automatically.
    open var automaticallyMergesChangesFromParent = false
    /// Whether the context keeps strong references to all registered objects.
    open var retainsRegisteredObjects = false {
        didSet {
            guard retainsRegisteredObjects else { retained = [:]; return }
            var retaining: [NSManagedObjectID: NSManagedObject] = [:]
            for object in registry.objects { retaining[object.objectID] = object }
            retained = retaining
        }
    }
    /// Whether a fault whose row is gone is treated as deleted instead of failing.
    open var shouldDeleteInaccessibleFaults = true
    /// How long cached snapshots are considered fresh (not used: fetches always read the store).
    open var stalenessInterval: TimeInterval = -1
    /// Free-form storage for the context's users.
    public let userInfo = NSMutableDictionary()
    /// Records the context's changes for undo; nil by default, as on iOS (NSManagedObjectContext+Undo.swift).
    open var undoManager: UndoManager? { didSet { undoManagerDidChange() } }
    /// The undo bookkeeping, present while `undoManager` is set; nil keeps undo free.
    package var undoTracker: ContextUndoTracker?

    // MARK: Graph state (queue-confined)

    /// Registered objects by ID. Not retained: an object removes itself when it is deallocated.
    @exclusivity(unchecked) package var registry = IdentityMap()
    package var retained: [NSManagedObjectID: NSManagedObject] = [:]
    package var inserted: [ObjectIdentifier: NSManagedObject] = [:]
    package var insertionOrder: [NSManagedObject] = []
    package var updated: [ObjectIdentifier: NSManagedObject] = [:]
    package var deleted: [ObjectIdentifier: NSManagedObject] = [:]
    /// Changes since the last `processPendingChanges()`, for `ObjectsDidChange`.
    package var pendingInserted: [ObjectIdentifier: NSManagedObject] = [:]
    package var pendingUpdated: [ObjectIdentifier: NSManagedObject] = [:]
    package var pendingDeleted: [ObjectIdentifier: NSManagedObject] = [:]
    package var deletesToPropagate: [NSManagedObject] = []
    package var isProcessingChanges = false
    /// Set while a main-queue context has a `processPendingChanges()` enqueued on the main queue.
    package var isProcessingScheduled = false
    /// Rows this context holds in the coordinator's row cache, by their IDs' keys.
    package var pinnedRows = Set<ObjectKey>()
    /// Fetched-property results by object and property name, kept until the object is refreshed
    /// (here rather than on the object: most objects never have any, and each object stays small).
    package var fetchedPropertyResults: [ObjectIdentifier: [String: [Any]]] = [:]
    package var isSaving = false
    /// Reads that failed and have not surfaced yet (`ContextReadFailures`).
    package var readFailures = ContextReadFailures()
    /// The query generation the context reads from (`setQueryGenerationFrom(_:)`).
    package var queryGenerationState = QueryGenerationState.unpinned
    /// Saves skip validation: the migration manager saves its destination in batches, while
    /// relationships are still being set, and validates every object once it is complete.
    package var defersValidation = false
    /// The observers of this context's objects (`NSManagedObject.changes`); nil until the first.
    package var objectObservationHub: ObjectObservationHub?

    // MARK: - Initializers

    /// Creates a context with a concurrency type.
    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        if concurrencyType == .mainQueueConcurrencyType {
            queue = DispatchQueue.main
        } else {
            queue = DispatchQueue(label: "OpenCoreData.NSManagedObjectContext")
        }
        queueIdentity = ObjectIdentifier(queue)
        super.init()
        if concurrencyType == .mainQueueConcurrencyType {
            // Main-queue contexts share one marker: any block running on the main queue (on the
            // main thread, or on a caller's thread inside `DispatchQueue.main.sync`) is "on queue".
            DispatchQueue.main.setSpecific(key: Self.mainQueueKey, value: true)
        } else {
            queue.setSpecific(key: Self.queueKey, value: queueIdentity)
        }
    }

    /// A private-queue context that runs on `other`'s queue, so code on that queue may use both
    /// without nesting `performAndWait` calls (which would deadlock on two serial queues). The
    /// migration manager's source and destination contexts are made this way: a policy works
    /// with both in one callback, as on Apple platforms.
    package init(sharingQueueWith other: NSManagedObjectContext) {
        concurrencyType = other.concurrencyType
        queue = other.queue
        queueIdentity = other.queueIdentity
        super.init()
    }

    private static let mainQueueKey = DispatchSpecificKey<Bool>()

    deinit {
        for handler in deinitHandlers.values { handler() }
        coordinatorStorage?.unpin(pinnedRows)
        coordinatorStorage?.unregister(self)
        parentStorage?.childContexts.remove(self)
        for object in registry.objects {
            object._context = nil
        }
    }

    // MARK: - Running on the context's queue

    /// Whether the caller is already on this context's queue.
    package var isOnQueue: Bool {
        if concurrencyType == .mainQueueConcurrencyType {
            return Thread.isMainThread || DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
        }
        return DispatchQueue.getSpecific(key: Self.queueKey) == queueIdentity
    }

    /// Runs a block asynchronously on the context's queue.
    open func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            block()
            processPendingChanges()
        }
    }

    /// Runs a block on the context's queue, waits for it, and returns its value; reentrant.
    @discardableResult
    open func performAndWait<T, E: Error>(_ block: () throws(E) -> T) throws(E) -> T {
        if isOnQueue { return try block() }
        let result: Result<T, E> = withoutActuallyEscaping(block) { escapable in
            let box = UncheckedBox(escapable)
            let result: UncheckedBox<Result<T, E>> = queue.sync {
                defer { self.processPendingChanges() }
                do throws(E) {
                    return UncheckedBox(.success(try box.value()))
                } catch {
                    return UncheckedBox(.failure(error))
                }
            }
            return result.value
        }
        return try result.get()
    }

    /// How an async `perform` schedules its block.
    public enum ScheduledTaskType: Sendable {
        /// Run at once when already on the context's queue, else enqueue.
        case immediate
        /// Always enqueue.
        case enqueued
    }

    /// Runs a block on the context's queue and returns its value asynchronously.
    ///
    /// As Apple's, `T` need not be `Sendable`: the value is made in the block and handed back
    /// once, so the caller owns it (for managed objects, use them on the context's queue only).
    open func perform<T, E: Error>(schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        if schedule == .immediate, isOnQueue {
            return try block()
        }
        let result: UncheckedBox<Result<T, E>> = await withCheckedContinuation { continuation in
            queue.async {
                let result: Result<T, E>
                do throws(E) { result = .success(try block()) } catch { result = .failure(error) }
                self.processPendingChanges()
                continuation.resume(returning: UncheckedBox(result))
            }
        }
        return try result.value.get()
    }

    // MARK: - Registered objects

    /// All objects registered with the context.
    open var registeredObjects: Set<NSManagedObject> {
        Set(registry.objects)
    }

    /// The registered object with an ID, or nil.
    open func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
        registry[objectID]?.takeUnretainedValue()
    }

    /// The object with an ID: a registered object, or a fault that loads the row on first access.
    open func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        if let object = registry[objectID]?.takeUnretainedValue() { return object }
        // A temporary ID an ancestor has since made permanent names the object under its new ID.
        if objectID.isTemporaryID, parentStorage != nil {
            let id = resolvedChildID(objectID)
            if id != objectID { return object(with: id) }
        }
        let object = makeObject(for: objectID, snapshot: nil)
        return object
    }

    /// The object with an ID, loading it from the store; throws if the row does not exist.
    open func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        if let object = registry[objectID]?.takeUnretainedValue() {
            if object.inaccessible {
                throw Self.missingObjectError(objectID)
            }
            if !object.faulted || objectID.isTemporaryID { return object }
            let snapshot: RowSnapshot?
            do {
                snapshot = try coordinatorSnapshot(for: objectID)
            } catch {
                throw noteReadFailure(error, objectID: objectID, thrown: true)
            }
            if let snapshot {
                object.fulfill(with: snapshot)
                noteReadSucceeded(objectID)
                return object
            }
            throw Self.missingObjectError(objectID)
        }
        // A child may load an object its parent inserted (and knows by its temporary ID).
        guard !objectID.isTemporaryID || parentStorage != nil, let snapshot = try coordinatorSnapshot(for: objectID) else {
            throw Self.missingObjectError(objectID)
        }
        let object = makeObject(for: objectID, snapshot: snapshot)
        object.fireFaultIfNeeded()
        return object
    }

    static func missingObjectError(_ objectID: NSManagedObjectID) -> NSError {
        CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                           "The object with ID \(objectID.uriRepresentation().absoluteString) does not exist in the store.",
                           userInfo: [NSAffectedObjectsErrorKey: [objectID]])
    }

    /// Creates and registers an object for a stored row, as a fault holding `snapshot` if given.
    package func makeObject(for objectID: NSManagedObjectID, snapshot: consuming RowSnapshot?, type knownType: NSManagedObject.Type? = nil) -> NSManagedObject {
        let type = knownType ?? ClassRegistry.shared.objectClass(for: objectID.entity)
        let object = type.init(entity: objectID.entity, insertInto: nil)
        object._objectID = objectID
        object._context = self
        object.needsDefaults = false
        object.faulted = true
        object.committed = snapshot
        registerObject(object)
        return object
    }

    package func registerObject(_ object: NSManagedObject) {
        registry[object._objectID] = Unmanaged.passUnretained(object)
        if retainsRegisteredObjects { retained[object._objectID] = object }
    }

    /// Removes a deallocating object from the registry.
    package func forget(_ object: NSManagedObject) {
        // One hash lookup: every fetched object passes here when it is freed.
        registry.remove(object._objectID, ifItIs: object)
        // Another object may later live at this address.
        forgetFetchedProperties(of: object)
    }

    /// Makes an object no longer registered (after its deletion was saved, or on reset).
    package func unregister(_ object: NSManagedObject) {
        forget(object)
        retained[object._objectID] = nil
        object._context = nil
    }

    /// The row of an object as this context's source has it: its parent's current state, or the store's.
    package func coordinatorSnapshot(for objectID: NSManagedObjectID) throws -> RowSnapshot? {
        if let parent = parentStorage { return try parentSnapshot(for: objectID, parent: parent) }
        guard let coordinator = persistentStoreCoordinator else { return nil }
        if case .unpinned = queryGenerationState { return try coordinator.snapshot(for: objectID, pinnedBy: self) }
        return try withQueryGeneration { try coordinator.uncachedSnapshot(for: objectID) }
    }

    /// A relationship's destinations as stored, for a relationship fault: their IDs in order
    /// and their registered objects, read in one query; nil when they could not be read (the
    /// failure is recorded, `ContextReadFailures`, and the relationship stays a fault).
    package func destinations(of object: NSManagedObject, relationship: NSRelationshipDescription) -> (ids: [NSManagedObjectID], objects: [NSManagedObject])? {
        do {
            let snapshots: [RowSnapshot]
            if let parent = parentStorage {
                let id = object.objectID
                snapshots = try parent.performAndWait { try parent.destinationsForChild(of: id, relationship: relationship) }
            } else {
                guard let coordinator = persistentStoreCoordinator else { return ([], []) }
                snapshots = try withQueryGeneration { try coordinator.destinations(of: object.objectID, relationship: relationship) }
            }
            var ids: [NSManagedObjectID] = []
            var objects: [NSManagedObject] = []
            ids.reserveCapacity(snapshots.count)
            objects.reserveCapacity(snapshots.count)
            for snapshot in snapshots {
                ids.append(snapshot.objectID)
                // The fetched rows become the destinations' snapshots. The objects are returned,
                // not only registered: the registry does not retain them, so an object made here
                // and dropped would be freed with its row, and each destination would then fire
                // its own fault with one query.
                objects.append(snapshot.version >= 0 ? registeredObject(for: snapshot, refresh: false) : self.object(with: snapshot.objectID))
            }
            noteReadSucceeded(object.objectID, relationship: relationship.name)
            return (ids, objects)
        } catch {
            noteReadFailure(error, objectID: object.objectID, relationship: relationship.name)
            return nil
        }
    }

    // MARK: - Change sets

    /// Objects inserted and not yet saved.
    open var insertedObjects: Set<NSManagedObject> { Set(inserted.values) }
    /// Objects changed and not yet saved.
    open var updatedObjects: Set<NSManagedObject> { Set(updated.values) }
    /// Objects deleted and not yet saved.
    open var deletedObjects: Set<NSManagedObject> { Set(deleted.values) }

    /// Whether the context has unsaved changes.
    open var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }

    package func noteUpdated(_ object: NSManagedObject) {
        let key = ObjectIdentifier(object)
        // Listed with one hash lookup when new (a lookup, then an insertion, cost two). An
        // object changed again after its update was posted is listed for the next
        // ObjectsDidChange too, as Apple reports it (each event lists the objects changed during it).
        if updated.updateValue(object, forKey: key) == nil || pendingUpdated[key] == nil {
            pendingUpdated[key] = object
            scheduleProcessingPendingChanges()
        }
    }

    /// On a main-queue context, enqueues one `processPendingChanges()` on the main queue, so
    /// changes made in this main-queue turn are posted when it ends, as Apple's main-queue
    /// contexts post them at the end of the run loop's event. Private-queue contexts post at
    /// the end of each `perform` block instead.
    ///
    /// Linux has no end-of-event hook to use: a main queue is often drained by `dispatchMain()`
    /// or Swift concurrency without any run loop, so the next main-queue turn stands in for it
    /// (docs/Deviations.md). One block is enqueued per batch of changes, whatever their number.
    @inline(__always)
    package func scheduleProcessingPendingChanges() {
        guard concurrencyType == .mainQueueConcurrencyType, !isProcessingScheduled else { return }
        isProcessingScheduled = true
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            self.isProcessingScheduled = false
            self.processPendingChanges()
        }
    }
}

/// Carries a non-Sendable value across a synchronous queue hop whose caller waits for it.
package struct UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked: used only where the caller blocks until the other side is done with the value.
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
