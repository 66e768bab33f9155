import Foundation

// MARK: - Parent and child contexts
//
// A child context reads through its parent: every row it loads (a fault, a fetch, a
// relationship fault, a refresh) is the parent's current state of that object — unsaved
// changes included — computed on the parent's queue, or, for objects the parent has not
// loaded, the parent's own source (its parent, or the stores). The parent never sees what a
// child has not saved. The calls below that run on the parent are made with
// `parent.performAndWait`, so a parent must never wait on its child's queue (it never does:
// it tells children of its saves with `perform`).

extension NSManagedObjectContext {
    func setParent(_ newParent: NSManagedObjectContext?) {
        if newParent === parentStorage { return }
        if newParent != nil, coordinatorStorage != nil {
            CoreDataError.programmerError("A context has a parent context or a persistent store coordinator, never both: this one already has a coordinator.")
        }
        if registry.count > 0 || hasChanges {
            CoreDataError.programmerError("Set a context's parent before using it: this one already has registered objects.")
        }
        var ancestor = newParent
        while let context = ancestor {
            if context === self { CoreDataError.programmerError("A context cannot be its own ancestor.") }
            ancestor = context.parentStorage
        }
        parentStorage?.childContexts.remove(self)
        parentStorage = newParent
        newParent?.childContexts.add(self)
    }

    // MARK: - Child side: reading through the parent

    /// Rows of objects as this context's source has them: its parent's current state, or the stores'.
    package func sourceSnapshots(for ids: [NSManagedObjectID]) throws -> [RowSnapshot] {
        if let parent = parentStorage {
            adoptPermanentIDs()
            let ids = ids.map(resolvedChildID)
            return try parent.performAndWait { try parent.snapshotsForChild(ids) }
        }
        guard let coordinator = persistentStoreCoordinator else { return [] }
        return try withQueryGeneration { try coordinator.snapshots(for: ids) }
    }

    /// An object's row as the parent has it now, under the ID this child knows it by.
    func parentSnapshot(for objectID: NSManagedObjectID, parent: NSManagedObjectContext) throws -> RowSnapshot? {
        adoptPermanentIDs()
        let id = resolvedChildID(objectID)
        guard var row = try parent.performAndWait({ try parent.snapshotForChild(id) }) else { return nil }
        row.objectID = objectID
        return row
    }

    /// A fetch request as the parent runs it for this child: the parent's unsaved changes are
    /// always included (they are the child's "store"); the child's own are merged by the child.
    private func requestForParent<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription,
                                     resultType: NSFetchRequestResultType, paged: Bool) -> NSFetchRequest<NSFetchRequestResult> {
        let copy = request.retyped(NSFetchRequestResult.self)
        copy.entity = entity
        copy.includesPendingChanges = true
        copy.resultType = resultType
        copy.fetchBatchSize = 0
        copy.relationshipKeyPathsForPrefetching = nil
        if !paged {
            copy.fetchLimit = 0
            copy.fetchOffset = 0
        }
        return copy
    }

    /// The rows of the objects the parent matches for `request`, in the parent's order.
    func parentRows<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription, paged: Bool, parent: NSManagedObjectContext) throws -> [RowSnapshot] {
        adoptPermanentIDs()
        let copy = requestForParent(request, entity: entity, resultType: .managedObjectResultType, paged: paged)
        return try parent.performAndWait { try parent.rowsForChild(copy, entity: entity) }
    }

    /// The parent's answer to an ID, count or dictionary fetch, with its unsaved changes.
    func parentResults<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription, resultType: NSFetchRequestResultType,
                          parent: NSManagedObjectContext) throws -> [NSFetchRequestResult] {
        adoptPermanentIDs()
        let copy = requestForParent(request, entity: entity, resultType: resultType, paged: true)
        return try parent.performAndWait { try parent.fetch(copy) }
    }

    // MARK: - Parent side: answering a child (on this context's queue)

    /// The root of this context's tree (itself when it has no parent).
    package var treeRoot: NSManagedObjectContext {
        var context = self
        while let parent = context.parentStorage { context = parent }
        return context
    }

    /// The ID an object has now, for an ID a context of the tree may have kept from before an
    /// ancestor saved the object (or obtained its permanent ID).
    func resolvedChildID(_ id: NSManagedObjectID) -> NSManagedObjectID {
        guard id.isTemporaryID else { return id }
        return treeRoot.permanentIDLog.permanentID(for: id) ?? id
    }

    /// Gives this child's objects the permanent IDs an ancestor gave them since the child last
    /// looked (Apple's children keep temporary IDs, so a later fetch there can register a second
    /// object for the row; here the child's object takes the row's ID at its next read or save).
    package func adoptPermanentIDs() {
        guard parentStorage != nil else { return }
        let log = treeRoot.permanentIDLog
        guard let (entries, count) = log.entries(after: appliedPermanentIDs) else { return }
        appliedPermanentIDs = count
        var assignments: [(object: NSManagedObject, id: NSManagedObjectID)] = []
        for (temporary, permanent) in entries {
            guard let object = registry[temporary]?.takeUnretainedValue(), registry[permanent] == nil else { continue }
            assignments.append((object, permanent))
        }
        if !assignments.isEmpty { rekey(assignments) }
    }

    /// Whether this context or an ancestor still has an object a child knows by a temporary ID.
    func hasObject(knownByChildAs id: NSManagedObjectID) -> Bool {
        let id = resolvedChildID(id)
        if !id.isTemporaryID || registry[id] != nil { return true }
        guard let parent = parentStorage else { return false }
        return parent.performAndWait { parent.hasObject(knownByChildAs: id) }
    }

    /// An object's row as this context has it now, under the ID the child asked for; nil when
    /// it is deleted here or its row is gone.
    func childRow(of object: NSManagedObject, as id: NSManagedObjectID) throws -> RowSnapshot? {
        if object.deletedFlag { return nil }
        // A row this context could not read is an error for the child too, never empty values.
        try object.fireFaultOrThrow()
        if object.inaccessible { return nil }
        if !object.insertedFlag, updated[ObjectIdentifier(object)] == nil, var committed = object.committed {
            committed.objectID = id
            return committed
        }
        return RowSnapshot(objectID: id, version: object.committed?.version ?? 0, values: object.currentStoreValues())
    }

    /// The row of one object for a child.
    func snapshotForChild(_ requested: NSManagedObjectID) throws -> RowSnapshot? {
        let id = resolvedChildID(requested)
        if let object = registry[id]?.takeUnretainedValue() { return try childRow(of: object, as: requested) }
        // An unsaved object this context does not have may be its parent's.
        if id.isTemporaryID && parentStorage == nil { return nil }
        guard var row = try coordinatorSnapshot(for: id) else { return nil }
        row.objectID = requested
        return row
    }

    /// The rows of objects for a child; objects this context has not loaded are read from its
    /// source together.
    func snapshotsForChild(_ ids: [NSManagedObjectID]) throws -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(ids.count)
        var missing: [NSManagedObjectID] = []
        var requestedIDs: [NSManagedObjectID: NSManagedObjectID] = [:]
        for requested in ids {
            let id = resolvedChildID(requested)
            if id != requested { requestedIDs[id] = requested }
            if let object = registry[id]?.takeUnretainedValue(),
               !(object.faulted && object.committed == nil && !object.insertedFlag && !object.deletedFlag) {
                if let row = try childRow(of: object, as: requested) { rows.append(row) }
            } else if !id.isTemporaryID || parentStorage != nil {
                missing.append(id)
            }
        }
        if !missing.isEmpty {
            for var row in try sourceSnapshots(for: missing) {
                if let requested = requestedIDs[row.objectID] { row.objectID = requested }
                rows.append(row)
            }
        }
        return rows
    }

    /// The destinations of a to-many relationship of an object, as this context has them now.
    /// Destinations not loaded here come as ID-only rows (version -1), which the child faults.
    func destinationsForChild(of requested: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [RowSnapshot] {
        let id = resolvedChildID(requested)
        let object: NSManagedObject
        if let registered = registry[id]?.takeUnretainedValue() {
            object = registered
        } else if id.isTemporaryID && parentStorage == nil {
            return []
        } else {
            object = self.object(with: id)
        }
        guard !object.deletedFlag, let index = object.layout.indexByName[relationship.name], object.layout.isRelationship[index] else { return [] }
        try object.fireFaultOrThrow()
        if object.inaccessible { return [] }
        let storage = object.loadedToMany(at: index)
        if let error = readFailure(of: object.objectID, relationship: relationship.name) { throw error }
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(storage.objects.count)
        for destination in storage.objects where !destination.deletedFlag {
            if destination.faulted && destination.committed == nil && !destination.insertedFlag {
                rows.append(RowSnapshot(objectID: destination.objectID, version: -1, values: []))
            } else if let row = try childRow(of: destination, as: destination.objectID) {
                rows.append(row)
            }
        }
        return rows
    }

    /// The rows of the objects this context matches for a child's fetch.
    func rowsForChild(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription) throws -> [RowSnapshot] {
        processPendingChanges()
        // A root keeps the stored rows it serves in the row cache: the child's save will want
        // the same rows here again, for objects this context does not hold.
        let caching = parentStorage == nil && { if case .unpinned = queryGenerationState { return true } else { return false } }()
        var storeRows: StoreFetchResult<RowSnapshot>?
        if parentStorage == nil, !hasPendingChanges(affecting: entity), let coordinator = persistentStoreCoordinator {
            // No change here can alter the answer: the stores' rows are this context's state,
            // except for the objects it holds, which answer for their own rows. No object is
            // made for the others (the child makes its own).
            var fetched = try withQueryGeneration {
                try coordinator.fetchRows(StoreFetchRequest(request, entity: entity, paging: true),
                                          affectedStores: request.affectedStores, mergingPendingChanges: false)
            }
            if fetched.isComplete {
                let rows = try overlayingRegisteredObjects(on: fetched.takeRows(), refresh: request.shouldRefreshRefetchedObjects)
                if caching { persistentStoreCoordinator?.cacheSnapshots(rows, pinnedBy: self) }
                return rows
            }
            // The stores could not evaluate the request: it is matched in memory, from these rows.
            storeRows = fetched
        }
        let objects = try withQueryGeneration { try matchingObjects(request, entity: entity, storeRows: storeRows) }
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(objects.count)
        var stored: [RowSnapshot] = []
        for object in objects {
            guard let row = try childRow(of: object, as: object.objectID) else { continue }
            rows.append(row)
            if caching, !object.insertedFlag, updated[ObjectIdentifier(object)] == nil, !row.objectID.isTemporaryID { stored.append(row) }
        }
        if !stored.isEmpty { persistentStoreCoordinator?.cacheSnapshots(stored, pinnedBy: self) }
        return rows
    }

    /// Stored rows as this context has them: a row of an object registered here is replaced by
    /// the object's (this context has no unsaved change to their entity), or dropped when the
    /// object is a tombstone. Registered faults take the row, as a fetch here would give it them.
    private func overlayingRegisteredObjects(on rows: consuming [RowSnapshot], refresh: Bool) throws -> [RowSnapshot] {
        var rows = rows
        guard registry.count > 0 else { return rows }
        var dropped: [Int] = []
        for index in rows.indices {
            guard let object = registry[rows[index].objectID]?.takeUnretainedValue() else { continue }
            if object.faulted {
                object.committed = rows[index]
                continue
            }
            if refresh, !object.hasChanges {
                object.committed = rows[index]
                object.loadSlots()
            }
            if let row = try childRow(of: object, as: rows[index].objectID) { rows[index] = row } else { dropped.append(index) }
        }
        for index in dropped.reversed() { rows.remove(at: index) }
        return rows
    }

    // MARK: - Telling children of saves

    /// Merges a save of this context (to the stores, or pushed in by one of its children) into
    /// its children that merge automatically, on their queues; `except` pushed it.
    /// The changes are only gathered when a child is there to take them.
    func notifyChildren(of changes: @autoclosure () -> SavedChanges, except source: NSManagedObjectContext? = nil) {
        let children = childContexts.contexts.filter { $0 !== source && $0.automaticallyMergesChangesFromParent }
        guard !children.isEmpty else { return }
        let changes = changes()
        guard !changes.inserted.isEmpty || !changes.updated.isEmpty || !changes.deleted.isEmpty else { return }
        for child in children {
            child.perform { child.mergeSavedChanges(changes) }
        }
    }
}

/// The child contexts of a context, held weakly.
package final class ChildContextList: @unchecked Sendable {
    // @unchecked: `entries` is only read and written under `lock` (children are added from the
    // thread that sets `parent`, and read on the parent's queue).
    private let lock = NSLock()
    private var entries: [(id: ObjectIdentifier, context: WeakContext)] = []

    private struct WeakContext {
        weak var context: NSManagedObjectContext?
    }

    package init() {}

    /// Whether the context has ever had a child that is still alive.
    package var isEmpty: Bool {
        lock.withLock { entries.allSatisfy { $0.context.context == nil } }
    }

    package var contexts: [NSManagedObjectContext] {
        lock.withLock { entries.compactMap(\.context.context) }
    }

    package func add(_ context: NSManagedObjectContext) {
        lock.withLock {
            entries.removeAll { $0.context.context == nil }
            entries.append((ObjectIdentifier(context), WeakContext(context: context)))
        }
    }

    /// Removes a child; called from its `deinit` too, when its weak references already read nil.
    package func remove(_ context: NSManagedObjectContext) {
        let id = ObjectIdentifier(context)
        lock.withLock { entries.removeAll { $0.id == id || $0.context.context == nil } }
    }
}

/// The permanent IDs a context tree gave objects while it had children, in order, shared by the
/// tree's contexts (which run on different queues): each child applies the entries it has not
/// seen to its registered objects, and any of them resolves an old temporary ID through it.
/// Cleared when the root assigns IDs with no child left.
package final class PermanentIDLog: @unchecked Sendable {
    // @unchecked: `entries` and `permanentIDs` are only read and written under `lock`.
    private let lock = NSLock()
    private var entries: [(NSManagedObjectID, NSManagedObjectID)] = []
    private var permanentIDs: [NSManagedObjectID: NSManagedObjectID] = [:]
    /// The number of entries ever appended (entries before a clear are gone).
    private var total = 0

    package init() {}

    package func append(_ pairs: [(NSManagedObjectID, NSManagedObjectID)]) {
        guard !pairs.isEmpty else { return }
        lock.withLock {
            entries.append(contentsOf: pairs)
            total += pairs.count
            for (temporary, permanent) in pairs { permanentIDs[temporary] = permanent }
        }
    }

    package func permanentID(for temporary: NSManagedObjectID) -> NSManagedObjectID? {
        lock.withLock { permanentIDs.isEmpty ? nil : permanentIDs[temporary] }
    }

    /// The entries after the first `count`, and the new count; nil when there are none.
    package func entries(after count: Int) -> ([(NSManagedObjectID, NSManagedObjectID)], Int)? {
        lock.withLock {
            guard total > count else { return nil }
            let kept = entries.count
            let new = min(total - count, kept)
            return (Array(entries[(kept - new)...]), total)
        }
    }

    package func clearIfNotEmpty() {
        lock.withLock {
            guard !entries.isEmpty else { return }
            entries = []
            permanentIDs = [:]
        }
    }
}
