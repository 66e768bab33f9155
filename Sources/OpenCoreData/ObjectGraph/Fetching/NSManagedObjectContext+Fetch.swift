import Foundation

// MARK: - Fetching

extension NSManagedObjectContext {
    /// Runs a fetch request and returns objects, object IDs, dictionaries or a count, per `resultType`.
    ///
    /// Unsaved changes are included unless `includesPendingChanges` is false: inserted objects that
    /// match appear, changed objects are matched on their current values, deleted objects do not appear.
    /// - Throws: an `NSError` when the request names no known entity, its predicate reads a key
    ///   the entity does not have or runs a `MATCHES` past its time bound, or a store fails.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        try RegexBudget.enforce { try withQueryGeneration { try fetchWithinRegexBudget(request) } }
    }

    private func fetchWithinRegexBudget<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        // A fault that could not be fulfilled since the last fetch or save is reported first.
        try throwPendingReadFailure()
        processPendingChanges()
        let entity = try resolveEntity(of: request)
        if let type = T.self as? NSManagedObject.Type, type != NSManagedObject.self {
            ClassRegistry.shared.registerIfNeeded(type, for: entity)
        }
        let resultType = request.resultType
        if resultType == .countResultType {
            let count = try countMatching(request, entity: entity)
            return [NSNumber(value: count) as! T]
        }
        if resultType == .dictionaryResultType {
            // The store computes the rows when no unsaved change can alter them and it can do so exactly.
            if !(request.includesPendingChanges && hasPendingChanges(affecting: entity)) {
                if let parent = parentStorage {
                    return try parentResults(for: request, entity: entity, resultType: .dictionaryResultType, parent: parent).map { $0 as! T }
                }
                if let rows = try persistentStoreCoordinator?.fetchDictionaries(StoreDictionaryRequest(request, entity: entity),
                                                                                affectedStores: request.affectedStores) {
                    return rows.map { $0 as! T }
                }
            }
            let objects = try matchingObjects(request, entity: entity)
            return try DictionaryResults.make(from: objects, request: request, entity: entity).map { $0 as! T }
        }
        if resultType == .managedObjectIDResultType {
            // The store lists the IDs when no unsaved change can alter them; no object is
            // registered, so an ID fetch of a million rows costs a million IDs, not objects.
            if !(request.includesPendingChanges && hasPendingChanges(affecting: entity)),
               let ids = try storeObjectIDs(request, entity: entity) {
                return ids.map { $0 as! T }
            }
            return try matchingObjects(request, entity: entity).map { $0.objectID as! T }
        }
        let objects = try matchingObjects(request, entity: entity)
        if !request.returnsObjectsAsFaults && request.fetchBatchSize == 0 {
            for object in objects { object.fireFaultIfNeeded() }
        }
        if let keyPaths = request.relationshipKeyPathsForPrefetching, !keyPaths.isEmpty {
            prefetch(keyPaths, of: objects)
        }
        // A row or relationship this fetch fired and could not read fails the fetch.
        try throwPendingReadFailure()
        return Self.typedResults(objects)
    }

    /// The fetched objects as `[T]`. A dynamic cast per object (`as! T`) costs a conformance
    /// lookup for `NSFetchRequestResult`; when the types are known to match, the array is
    /// reinterpreted instead.
    static func typedResults<T>(_ objects: [NSManagedObject]) -> [T] {
        if T.self == NSManagedObject.self {
            return unsafeBitCast(objects, to: [T].self)
        }
        if T.self == NSFetchRequestResult.self {
            return unsafeBitCast(objects.map { $0 as NSFetchRequestResult }, to: [T].self)
        }
        if T.self is NSManagedObject.Type,
           objects.allSatisfy({ ObjectIdentifier(Swift.type(of: $0)) == ObjectIdentifier(T.self) }) {
            return unsafeBitCast(objects, to: [T].self)
        }
        return objects.map { $0 as! T }
    }

    /// The number of objects a fetch request would return.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        try RegexBudget.enforce {
            try throwPendingReadFailure()
            processPendingChanges()
            let entity = try resolveEntity(of: request)
            return try withQueryGeneration { try countMatching(request, entity: entity) }
        }
    }

    // MARK: - Matching

    /// Checks the request's key paths against the entity, so a bad key throws rather than traps.
    func validateKeys<T>(of request: NSFetchRequest<T>, entity: NSEntityDescription) throws {
        if let predicate = request.predicate { try PredicateModelCheck.validate(predicate, entity: entity) }
        for descriptor in request.sortDescriptors ?? [] {
            if let key = descriptor.key {
                try PredicateModelCheck.validate(keyPath: key, entity: entity)
            } else if let keyPath = descriptor.keyPath {
                // Never ignore a sort silently: a key path still without a name cannot be fetched by.
                CoreDataError.programmerError("The sort descriptor's key path \(keyPath) has no key-value coding name: it is not a @Managed property of entity '\(entity.name ?? "?")' (computed properties and subscripts have none).")
            }
        }
    }

    func resolveEntity<T>(of request: NSFetchRequest<T>) throws -> NSEntityDescription {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator; a fetch needs one.")
        }
        let model = coordinator.managedObjectModel
        if let entity = request.entity {
            let resolved = entity.name.flatMap { model.entitiesByName[$0] } ?? entity
            try validateKeys(of: request, entity: resolved)
            return resolved
        }
        guard let name = request.entityName else {
            throw CoreDataError.make(NSCoreDataError, "A fetch request must have an entity.")
        }
        guard let entity = model.entitiesByName[name] else {
            throw CoreDataError.make(NSCoreDataError, "The fetch request's entity '\(name)' is not in the model (entities: \(model.entitiesByName.keys.sorted().joined(separator: ", "))).")
        }
        try validateKeys(of: request, entity: entity)
        return entity
    }

    /// Whether the context has unsaved changes to objects of `entity`'s hierarchy.
    func hasPendingChanges(affecting entity: NSEntityDescription) -> Bool {
        let root = entity.rootEntity
        for object in inserted.values where object.entity.rootEntity === root { return true }
        for object in updated.values where object.entity.rootEntity === root { return true }
        for object in deleted.values where object.entity.rootEntity === root { return true }
        return false
    }

    func countMatching<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> Int {
        let pending = request.includesPendingChanges && hasPendingChanges(affecting: entity)
        if !pending {
            if let parent = parentStorage {
                let counts = try parentResults(for: request, entity: entity, resultType: .countResultType, parent: parent)
                return (counts.first as? NSNumber)?.intValue ?? 0
            }
            guard let coordinator = persistentStoreCoordinator else { return 0 }
            if let count = try coordinator.countRowsIfEvaluated(StoreFetchRequest(request, entity: entity, paging: true),
                                                                affectedStores: request.affectedStores) {
                return count
            }
        }
        return try matchingObjects(request, entity: entity).count
    }

    /// The IDs a request matches in the context's source (its parent's current state, or the
    /// stores), when the source can list them; nil when the objects must be matched in memory.
    func storeObjectIDs<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [NSManagedObjectID]? {
        if let parent = parentStorage {
            return try parentResults(for: request, entity: entity, resultType: .managedObjectIDResultType, parent: parent)
                .compactMap { $0 as? NSManagedObjectID }
        }
        guard let coordinator = persistentStoreCoordinator else { return nil }
        return try coordinator.fetchCompleteObjectIDs(StoreFetchRequest(request, entity: entity, paging: true),
                                                      affectedStores: request.affectedStores)
    }

    /// The objects a request matches, registered in this context, sorted and paged.
    ///
    /// The coordinator plans and runs the fetch on the stores; the context only merges its
    /// unsaved changes into what they return (and filters rows a store could not evaluate).
    /// `storeRows`: the stores' rows for the request, when the caller has read them already
    /// (a root context serving a child).
    func matchingObjects<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription,
                            storeRows: StoreFetchResult<RowSnapshot>? = nil) throws -> [NSManagedObject] {
        let includePending = request.includesPendingChanges
        let pending = includePending && hasPendingChanges(affecting: entity)
        if request.fetchBatchSize > 0, !pending, let ids = try storeObjectIDs(request, entity: entity) {
            return registerBatched(ids, batchSize: request.fetchBatchSize)
        }
        let native: Bool
        let objects: [NSManagedObject]
        if let parent = parentStorage {
            // The parent matched, sorted (and, with no change here to merge, paged) its state.
            let rows = try parentRows(for: request, entity: entity, paged: !pending, parent: parent)
            objects = registeredObjects(for: rows, refresh: request.shouldRefreshRefetchedObjects)
            if !pending { return objects }
            native = true
        } else {
            guard let coordinator = persistentStoreCoordinator else { return [] }
            let storeRequest = StoreFetchRequest(request, entity: entity, paging: true)
            var fetched = try storeRows ?? coordinator.fetchRows(storeRequest, affectedStores: request.affectedStores, mergingPendingChanges: pending)
            native = fetched.isEvaluated
            objects = registeredObjects(for: fetched.takeRows(), refresh: request.shouldRefreshRefetchedObjects)
            if fetched.isComplete { return objects }
        }

        // Filter and page in memory: the store either could not evaluate the request, or the
        // context's unsaved changes must be taken into account.
        let predicate = request.predicate
        func matches(_ object: NSManagedObject) -> Bool {
            guard object.entity === entity || (request.includesSubentities && object.entity.isKindOf(entity: entity)) else { return false }
            guard let predicate else { return true }
            return predicate.evaluate(with: object)
        }
        var seen = Set<ObjectIdentifier>()
        var result: [NSManagedObject] = []
        result.reserveCapacity(objects.count)
        for object in objects {
            seen.insert(ObjectIdentifier(object))
            if includePending && object.deletedFlag { continue }
            let mustEvaluate = !native || (includePending && updated[ObjectIdentifier(object)] != nil)
            if mustEvaluate && !matches(object) { continue }
            result.append(object)
        }
        if includePending {
            for object in insertionOrder where matches(object) {
                result.append(object)
            }
            if native {
                for object in updated.values where !seen.contains(ObjectIdentifier(object)) && matches(object) {
                    result.append(object)
                }
            }
        }
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty {
            ObjectSorting.sort(&result, by: descriptors)
        }
        return ObjectSorting.page(result, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    /// The registered objects for fetched rows, in order.
    func registeredObjects(for snapshots: consuming [RowSnapshot], refresh: Bool) -> [NSManagedObject] {
        let count = snapshots.count
        // Array(unsafeUninitializedCapacity: 0) stores its count (0) into the standard library's
        // shared empty-array storage, a write that ThreadSanitizer reports as a race with every
        // thread reading an empty array; an empty fetch needs no buffer anyway.
        guard count > 0 else { return [] }
        registry.reserveCapacity(registry.count + count)
        // Snapshots are moved out of the array from its end (popLast moves; iterating would
        // copy each one, retaining its ID and values), and objects are placed back to front.
        var snapshots = snapshots
        // Look the class up when the entity changes, not once per row (rows of one fetch are
        // nearly always of one entity).
        var lastEntity: NSEntityDescription?
        var type: NSManagedObject.Type = NSManagedObject.self
        return [NSManagedObject](unsafeUninitializedCapacity: count) { buffer, initialized in
            var index = count
            while let snapshot = snapshots.popLast() {
                index -= 1
                let entity = snapshot.objectID.entity
                if entity !== lastEntity {
                    lastEntity = entity
                    type = ClassRegistry.shared.objectClass(for: entity)
                }
                (buffer.baseAddress.unsafelyUnwrapped + index).initialize(to: registeredObject(for: snapshot, refresh: refresh, type: type))
            }
            initialized = count
        }
    }

    /// The registered object for a fetched row, creating a fault that holds the row's values.
    package func registeredObject(for snapshot: consuming RowSnapshot, refresh: Bool, type: NSManagedObject.Type? = nil) -> NSManagedObject {
        if let object = registry[snapshot.objectID]?.takeUnretainedValue() {
            if object.faulted {
                object.committed = snapshot
            } else if refresh, !object.hasChanges {
                object.committed = snapshot
                object.loadSlots()
            }
            return object
        }
        return makeObject(for: snapshot.objectID, snapshot: snapshot, type: type)
    }

    /// Registers faults for batched results: firing one loads its whole batch in one query.
    func registerBatched(_ ids: [NSManagedObjectID], batchSize: Int) -> [NSManagedObject] {
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(ids.count)
        registry.reserveCapacity(registry.count + ids.count)
        let window = BatchWindow()
        var start = 0
        while start < ids.count {
            let end = min(start + batchSize, ids.count)
            let batch = FaultBatch(ids: Array(ids[start..<end]), window: window)
            for id in ids[start..<end] {
                let object = registry[id]?.takeUnretainedValue() ?? makeObject(for: id, snapshot: nil)
                if object.faulted && object.committed == nil { object.faultBatch = batch }
                objects.append(object)
            }
            start = end
        }
        return objects
    }

    /// Loads the rows of a batch of faults with one store query.
    package func loadBatch(_ batch: FaultBatch) {
        guard !batch.isLoaded else { return }
        batch.isLoaded = true
        do {
            let snapshots = try sourceSnapshots(for: batch.ids)
            for snapshot in snapshots {
                if let object = registry[snapshot.objectID]?.takeUnretainedValue(), object.faulted, object.committed == nil {
                    object.committed = snapshot
                }
            }
        } catch {
            // Each fault then reads its own row, and reports its own failure if it has one.
            Log.objectGraph.debug("Could not load a batch of \(batch.ids.count) faults at once: \(error)")
        }
        if let window = batch.window {
            for ids in window.loaded(batch.ids) { unloadBatch(ids, window: window) }
        }
    }

    /// Turns the unchanged objects of a batch that fell out of its window back into faults, as
    /// `refresh(_:mergeChanges: false)` would: iterating a large batched result then holds the
    /// rows of the last few batches, not of every batch seen. Reading such an object again
    /// loads its batch again, as Apple's batched results fault batches on demand.
    private func unloadBatch(_ ids: [NSManagedObjectID], window: BatchWindow) {
        var batch: FaultBatch?
        for id in ids {
            // hasChanges covers inserted and deleted objects too.
            guard let object = registry[id]?.takeUnretainedValue(), !object.faulted, !object.hasChanges else { continue }
            object.committed = nil
            object.turnIntoFault()
            if batch == nil { batch = FaultBatch(ids: ids, window: window) }
            object.faultBatch = batch
        }
    }

    /// Fires the relationship faults along key paths so later access needs no query.
    func prefetch(_ keyPaths: [String], of objects: [NSManagedObject]) {
        for keyPath in keyPaths {
            var level = objects
            for component in keyPath.split(separator: ".").map(String.init) {
                var next: [NSManagedObject] = []
                for object in level {
                    guard let index = object.layout.indexByName[component], object.layout.isRelationship[index] else { continue }
                    let relationship = object.layout.relationship(at: index)
                    if relationship.isToMany {
                        next.append(contentsOf: object.loadedToMany(at: index).objects)
                    } else if let destination = object.resolveToOne(at: index) {
                        next.append(destination)
                    }
                }
                for object in next { object.fireFaultIfNeeded() }
                level = next
            }
        }
    }
}

/// A group of faults from one batched fetch; the first to fire loads all of them.
package final class FaultBatch {
    package let ids: [NSManagedObjectID]
    package var isLoaded = false
    /// The window of the fetch this batch came from; nil when rows are never released.
    let window: BatchWindow?

    init(ids: [NSManagedObjectID], window: BatchWindow? = nil) {
        self.ids = ids
        self.window = window
    }
}

/// The batches one batched fetch loaded last, oldest first: their rows are kept, at least
/// `minimumBatches` batches and about `rowBudget` rows; the rows of older batches are released.
///
/// It holds batches by their ID lists only (a batch holds its window, so holding batches would
/// be a cycle); the faults of batches not loaded yet keep it alive.
final class BatchWindow {
    static let rowBudget = 2_000
    static let minimumBatches = 2
    private var loaded: [[NSManagedObjectID]] = []
    private var first = 0
    private var rows = 0

    /// Records that a batch was loaded; returns the ID lists of the batches that fell out.
    func loaded(_ ids: [NSManagedObjectID]) -> [[NSManagedObjectID]] {
        loaded.append(ids)
        rows += ids.count
        var dropped: [[NSManagedObjectID]] = []
        while loaded.count - first > Self.minimumBatches, rows - loaded[first].count >= Self.rowBudget {
            dropped.append(loaded[first])
            rows -= loaded[first].count
            loaded[first] = []
            first += 1
        }
        if first > 64 && first * 2 > loaded.count {
            loaded.removeFirst(first)
            first = 0
        }
        return dropped
    }
}

/// Sorting and paging of managed objects in memory.
package enum ObjectSorting {
    package static func sort(_ objects: inout [NSManagedObject], by descriptors: [NSSortDescriptor]) {
        guard !descriptors.isEmpty else { return }
        // A stable sort keeps store order among equal keys, as a SQL ORDER BY on the primary key would.
        let indexed = objects.enumerated().map { ($0.offset, $0.element) }
        let sorted = indexed.sorted { lhs, rhs in
            for descriptor in descriptors {
                switch descriptor.compare(lhs.1, to: rhs.1) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return lhs.0 < rhs.0
        }
        objects = sorted.map(\.1)
    }

    package static func page<Element>(_ items: [Element], offset: Int, limit: Int) -> [Element] {
        let start = min(max(offset, 0), items.count)
        let end = limit > 0 ? min(start + limit, items.count) : items.count
        return Array(items[start..<end])
    }
}
