import Foundation

// MARK: - Inserting, deleting and processing changes

extension NSManagedObjectContext {
    /// Registers a new object to be inserted into a store on the next save.
    public func insert(_ object: NSManagedObject) {
        if object._context === self, object.insertedFlag { return }
        if let other = object._context, other !== self {
            CoreDataError.programmerError("An object of entity '\(object.entity.name ?? "?")' cannot be inserted into a second context.")
        }
        undoWillInsert(object)
        if object.deletedFlag, object._context === self {
            // Re-inserting a deleted object undoes the deletion.
            object.deletedFlag = false
            deleted[ObjectIdentifier(object)] = nil
            pendingDeleted[ObjectIdentifier(object)] = nil
            return
        }
        if object.needsDefaults {
            object.slots = NSManagedObject.initialSlots(layout: object.layout)
            object.faulted = false
            object.needsDefaults = false
        }
        noteInserted(object)
        scheduleProcessingPendingChanges()
        object.awakeFromInsert()
    }

    /// Puts an object in the inserted set: flag, change sets and registry.
    package func noteInserted(_ object: NSManagedObject) {
        object._context = self
        object.insertedFlag = true
        let key = ObjectIdentifier(object)
        inserted[key] = object
        insertionOrder.append(object)
        pendingInserted[key] = object
        object.insertedChangeNoted = true
        registerObject(object)
    }

    /// Lists an unsaved object changed after its insertion was posted for the next `ObjectsDidChange`.
    package func noteInsertedObjectChanged(_ object: NSManagedObject) {
        object.insertedChangeNoted = true
        pendingUpdated[ObjectIdentifier(object)] = object
        scheduleProcessingPendingChanges()
    }

    /// Marks an object to be deleted on the next save; delete rules run on `processPendingChanges()`.
    public func delete(_ object: NSManagedObject) {
        guard object._context === self else {
            if object._context == nil { return }
            CoreDataError.programmerError("An object of entity '\(object.entity.name ?? "?")' cannot be deleted by a context it is not registered with.")
        }
        guard !object.deletedFlag else { return }
        object.fireFaultIfNeeded()
        undoWillDelete(object)
        noteDeleted(object)
        deletesToPropagate.append(object)
        scheduleProcessingPendingChanges()
    }

    /// Puts an object in the deleted set (its delete rules are the caller's business). Deleting
    /// an unsaved object just forgets it: it leaves the inserted set and is not saved.
    package func noteDeleted(_ object: NSManagedObject) {
        let key = ObjectIdentifier(object)
        object.deletedFlag = true
        pendingDeleted[key] = object
        if object.insertedFlag {
            object.insertedFlag = false
            inserted[key] = nil
            insertionOrder.removeAll { $0 === object }
            pendingInserted[key] = nil
            return
        }
        deleted[key] = object
        updated[key] = nil
        pendingUpdated[key] = nil
    }

    /// Applies delete rules and posts `NSManagedObjectContextObjectsDidChange` for the changes so far.
    ///
    /// A private-queue context calls it at the end of each `perform` block; a main-queue context
    /// at the end of the main-queue turn in which a change was made (see
    /// `scheduleProcessingPendingChanges()`). Call it to post the changes at once.
    public func processPendingChanges() {
        guard !isProcessingChanges else { return }
        isProcessingChanges = true
        defer { isProcessingChanges = false }
        propagateDeletes()
        if undoTracker != nil { registerPendingUndo() }
        guard !pendingInserted.isEmpty || !pendingUpdated.isEmpty || !pendingDeleted.isEmpty else { return }
        let insertedNow = Set(pendingInserted.values.filter { $0.insertedFlag })
        // An unsaved object inserted by an earlier pass and changed since is listed as updated,
        // as Apple lists it (a fetched results controller moves it); one inserted in this pass is
        // only inserted.
        for object in pendingInserted.values { object.insertedChangeNoted = false }
        // Built in place: filtering into an array first retained and released every object once more.
        var updatedNow = Set<NSManagedObject>(minimumCapacity: pendingUpdated.count)
        for object in pendingUpdated.values {
            object.insertedChangeNoted = false
            if !object.deletedFlag && (!object.insertedFlag || !insertedNow.contains(object)) { updatedNow.insert(object) }
        }
        let deletedNow = Set(pendingDeleted.values)
        pendingInserted = [:]
        pendingUpdated = [:]
        pendingDeleted = [:]
        var userInfo: [AnyHashable: Any] = [:]
        if !insertedNow.isEmpty { userInfo[NSInsertedObjectsKey] = insertedNow }
        if !updatedNow.isEmpty { userInfo[NSUpdatedObjectsKey] = updatedNow }
        if !deletedNow.isEmpty { userInfo[NSDeletedObjectsKey] = deletedNow }
        if userInfo.isEmpty { return }
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: userInfo)
    }

    /// Runs `prepareForDeletion` and the delete rules for objects deleted since the last pass.
    func propagateDeletes() {
        // Walked by index and emptied at the end: removeFirst() moved the whole queue per
        // object, quadratic in a cascade's size. Delete rules append to the queue as it runs.
        var next = 0
        defer { deletesToPropagate.removeAll() }
        while next < deletesToPropagate.count {
            let object = deletesToPropagate[next]
            next += 1
            object.prepareForDeletion()
            for index in object.layout.relationshipIndices {
                let relationship = object.layout.relationship(at: index)
                let destinations = currentDestinations(of: object, at: index)
                switch relationship.deleteRule {
                case .noActionDeleteRule, .denyDeleteRule:
                    // Deny is checked when saving (NSValidationRelationshipDeniedDeleteError).
                    continue
                case .nullifyDeleteRule:
                    guard let inverse = relationship.inverseRelationship else { continue }
                    for destination in destinations where destination._context === self {
                        destination.primitiveRemoveInverse(object, inverse: inverse)
                    }
                case .cascadeDeleteRule:
                    if let inverse = relationship.inverseRelationship {
                        for destination in destinations where destination._context === self && !destination.deletedFlag {
                            destination.primitiveRemoveInverse(object, inverse: inverse)
                        }
                    }
                    for destination in destinations where destination._context === self && !destination.deletedFlag {
                        delete(destination)
                    }
                }
            }
        }
    }

    /// The destinations of a relationship slot, loading them if needed.
    func currentDestinations(of object: NSManagedObject, at index: Int) -> [NSManagedObject] {
        let relationship = object.layout.relationship(at: index)
        if relationship.isToMany {
            return Array(object.loadedToMany(at: index).objects)
        }
        return object.resolveToOne(at: index).map { [$0] } ?? []
    }

    // MARK: - Discarding changes

    /// Discards all unsaved changes: inserted objects are forgotten, others return to their saved values.
    public func rollback() {
        processPendingChanges()
        // The changed objects become faults again: nothing of theirs is left to save.
        for object in Array(updated.values) + Array(deleted.values) { forgetReadFailures(of: object.objectID) }
        let discarded = insertionOrder
        for object in discarded {
            object.insertedFlag = false
            unregister(object)
        }
        let changed = Array(updated.values) + Array(deleted.values)
        clearChangeSets()
        for object in changed {
            object.deletedFlag = false
            object.turnIntoFault()
        }
        // Objects related to rolled-back ones may hold relationship values that changed with them.
        // Retained for the walk: resetting a relationship may free the objects it held.
        for object in registry.objects where !object.faulted {
            object.resetRelationshipsToCommitted()
        }
        discardUndoHistory()
        // As Apple's rollback does, tell observers (a fetched results controller): discarded
        // inserts are gone, updated and deleted objects are back to their saved state.
        var userInfo: [AnyHashable: Any] = [:]
        if !discarded.isEmpty { userInfo[NSDeletedObjectsKey] = Set(discarded) }
        if !changed.isEmpty { userInfo[NSRefreshedObjectsKey] = Set(changed) }
        if !userInfo.isEmpty {
            NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: userInfo)
        }
    }

    /// Forgets every pending change (the objects themselves are handled by the caller).
    package func clearChangeSets() {
        for object in pendingInserted.values { object.insertedChangeNoted = false }
        for object in pendingUpdated.values { object.insertedChangeNoted = false }
        inserted = [:]
        insertionOrder = []
        updated = [:]
        deleted = [:]
        deletesToPropagate = []
        pendingInserted = [:]
        pendingUpdated = [:]
        pendingDeleted = [:]
    }

    // MARK: - Permanent IDs

    /// Gives objects permanent IDs before they are saved.
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        let temporary = objects.filter { $0._objectID.isTemporaryID }
        guard !temporary.isEmpty else { return }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The context has no persistent store coordinator.")
        }
        let ids = try coordinator.permanentIDs(for: temporary.map(\.entity))
        assignPermanentIDs(Array(zip(temporary, ids)))
    }

    package func assignPermanentID(_ id: NSManagedObjectID, to object: NSManagedObject) {
        assignPermanentIDs([(object, id)])
    }

    /// Re-registers objects under their permanent IDs: every temporary ID leaves the registry
    /// before the first permanent one enters. Interleaved, a run of consecutive temporary keys
    /// and the run of permanent keys replacing it could share home slots in the identity map,
    /// and each insert would then walk the rest of the other run.
    package func assignPermanentIDs(_ assignments: [(object: NSManagedObject, id: NSManagedObjectID)]) {
        // Other contexts of a tree with children may know these objects by their temporary IDs.
        let root = treeRoot
        if root.childContexts.isEmpty {
            root.permanentIDLog.clearIfNotEmpty()
        } else {
            root.permanentIDLog.append(assignments.compactMap { $0.object._objectID.isTemporaryID ? ($0.object._objectID, $0.id) : nil })
        }
        rekey(assignments)
    }

    /// Re-registers objects under new IDs, without logging them for other contexts.
    package func rekey(_ assignments: [(object: NSManagedObject, id: NSManagedObjectID)]) {
        for (object, _) in assignments {
            let old = object._objectID
            registry.remove(old, ifItIs: object)
            if !retained.isEmpty { retained[old] = nil }
        }
        registry.reserveCapacity(registry.count + assignments.count)
        for (object, id) in assignments {
            object._objectID = id
            registerObject(object)
        }
    }
}

// MARK: - Faults

extension NSManagedObject {
    /// Loads the object's values if it is a fault: from its snapshot, the row cache or the store.
    @inline(__always)
    package func fireFaultIfNeeded() {
        if faulted { fireFault() }
    }

    private func fireFault() {
        if needsDefaults {
            slots = Self.initialSlots(layout: layout)
            faulted = false
            needsDefaults = false
            return
        }
        if let batch = faultBatch {
            // A fired object no longer belongs to its batch (its row may have come with another's).
            faultBatch = nil
            if committed == nil, let context = _context { context.loadBatch(batch) }
        }
        if committed == nil, let context = _context {
            do {
                committed = try context.coordinatorSnapshot(for: objectID)
            } catch {
                // Not a row that is gone: a read that failed. The object stays a fault, its
                // values are not replaced (the slots below hold none, so this access reads no
                // value), and the error surfaces from the context's next fetch or save
                // (`ContextReadFailures`); the next access reads the row again. Slots set
                // since an earlier failure are dropped too: nothing but the row may be shown.
                context.noteReadFailure(error, objectID: objectID)
                storedSlots = Self.unreadSlots(layout: layout)
                return
            }
            if committed != nil { context.noteReadSucceeded(objectID) }
        }
        guard committed != nil else {
            // The row is gone: the object becomes an inaccessible tombstone instead of crashing.
            faulted = false
            inaccessible = true
            slots = Self.initialSlots(layout: layout)
            Log.objectGraph.warning("CoreData could not fulfill a fault for \(objectID.uriRepresentation().absoluteString): its row is gone; its values read as nil.")
            return
        }
        realizeFromCommitted()
        awakeFromFetch()
    }

    /// The slots of a fault whose row could not be read: no value anywhere (not the model's
    /// defaults), and to-many relationships still faults.
    static func unreadSlots(layout: EntityLayout) -> ContiguousArray<ObjectSlot> {
        ContiguousArray(layout.properties.map { property -> ObjectSlot in
            if let relationship = property as? NSRelationshipDescription { return relationship.isToMany ? .unloadedToMany : .value(.null) }
            if let attribute = property as? NSAttributeDescription, !AttributeConversion.isCustom(attribute.attributeType) { return .value(.null) }
            return .custom(nil)
        })
    }

    /// Fires the fault, throwing the error of a fault that could not be fulfilled.
    package func fireFaultOrThrow() throws {
        guard faulted else { return }
        fireFault()
        if faulted, let error = _context?.readFailure(of: objectID) { throw error }
    }

    /// Fills the slots from a snapshot and clears the fault.
    package func fulfill(with snapshot: RowSnapshot) {
        committed = snapshot
        if faulted {
            realizeFromCommitted()
            awakeFromFetch()
        }
    }

    /// Clears the fault from the committed snapshot: plain entities keep reading the snapshot,
    /// the others get their slots built.
    private func realizeFromCommitted() {
        if layout.readsCommittedValues {
            storedSlots = []
            readsCommitted = true
            faulted = false
            inaccessible = false
        } else {
            loadSlots()
        }
    }

    /// Builds the slots of an object that was reading its committed values.
    package func materializeSlots() {
        readsCommitted = false
        if committed == nil {
            // The row went away (a conflict found it deleted): the values read as defaults.
            storedSlots = Self.initialSlots(layout: layout)
        } else {
            loadSlots()
        }
    }

    /// The committed value of slot `index` of an object in the `readsCommitted` state.
    @inline(__always)
    package func committedStoreValue(at index: Int) -> StoreValue {
        // Read in place: binding `committed?.values` to a local copies (and retains) the buffer,
        // and typed accessors of a fired object come through here on every read.
        guard index < committed?.values.count ?? 0 else { return .null }
        return committed.unsafelyUnwrapped.values[index]
    }

    /// Builds the slots from the committed snapshot.
    package func loadSlots() {
        guard let committed else { return }
        var newSlots = ContiguousArray<ObjectSlot>()
        newSlots.reserveCapacity(layout.slotCount)
        let values = committed.values
        for index in 0..<layout.slotCount {
            let value = index < values.count ? values[index] : .null
            if layout.isRelationship[index] {
                switch value {
                case .objectIDs(let ids):
                    var objects = OrderedSetStorage()
                    if let context = _context {
                        for id in ids { objects.append(context.object(with: id)) }
                        newSlots.append(.toMany(RelationshipStorage(objects: objects, committedIDs: ids)))
                    } else {
                        newSlots.append(.unloadedToMany)
                    }
                case .unloaded:
                    newSlots.append(.unloadedToMany)
                default:
                    let relationship = layout.relationship(at: index)
                    newSlots.append(relationship.isToMany ? .unloadedToMany : .value(value))
                }
            } else if AttributeConversion.isCustom(layout.attributeTypes[index]) {
                if case .data(let data) = value {
                    newSlots.append(.custom(TransformableCoding.decode(data, attribute: layout.properties[index] as? NSAttributeDescription)))
                } else {
                    newSlots.append(.custom(nil))
                }
            } else {
                newSlots.append(.value(value))
            }
        }
        slots = newSlots
        faulted = false
        inaccessible = false
    }

    /// Drops the values; the next access loads them again.
    package func turnIntoFault() {
        guard !faulted else { return }
        willTurnIntoFault()
        slots = []
        faulted = true
        didTurnIntoFault()
    }

    /// Reverts relationship slots whose destinations were rolled back.
    package func resetRelationshipsToCommitted() {
        guard committed != nil else { return }
        for index in layout.relationshipIndices where slotDiffersFromCommitted(index) {
            let relationship = layout.relationship(at: index)
            if relationship.isToMany {
                slots[index] = .unloadedToMany
                if case .objectIDs(let ids)? = committed?.values[index], let context = _context {
                    slots[index] = .toMany(RelationshipStorage(objects: OrderedSetStorage(ids.map { context.object(with: $0) }), committedIDs: ids))
                }
            } else {
                slots[index] = .value(committed?.values[index] ?? .null)
            }
        }
    }
}
