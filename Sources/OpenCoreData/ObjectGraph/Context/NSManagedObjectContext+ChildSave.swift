import Foundation

// MARK: - Saving a child context into its parent

extension NSManagedObjectContext {
    /// The child's side of `save()`: delete rules, `willSave` and validation have run here; the
    /// changes are applied to the parent's objects in one step on the parent's queue (no store
    /// I/O), then this context's objects take their saved state and `DidSave` is posted.
    ///
    /// The child's values win over changes the parent made to the same properties since the
    /// child read them (Apple pushes the child's values); properties the child did not change
    /// keep the parent's values.
    func pushChanges(to parent: NSManagedObjectContext) throws {
        adoptPermanentIDs()
        let insertedObjects = insertionOrder
        let updatedObjects = Array(updated.values).filter { !$0.deletedFlag && !$0.insertedFlag }
        let deletedObjects = Array(deleted.values)
        // The parent reads the child's objects while the child's queue waits for it, so they are
        // never used from two threads at once.
        let push = UncheckedBox(ChildPush(inserted: insertedObjects, updated: updatedObjects, deleted: deletedObjects))
        try parent.performAndWait { try parent.receive(push.value, from: self) }

        for object in insertedObjects {
            object.insertedFlag = false
            object.committed = RowSnapshot(objectID: object.objectID, version: 0, values: object.currentStoreValues())
            object.markRelationshipsCommitted()
        }
        for object in updatedObjects {
            object.committed = RowSnapshot(objectID: object.objectID, version: object.committed?.version ?? 0, values: object.currentStoreValues())
            object.markRelationshipsCommitted()
        }
        clearChangeSets()
        for object in deletedObjects {
            object.deletedFlag = false
            unregister(object)
        }
        for object in [insertedObjects, updatedObjects, deletedObjects].joined() { object.didSave() }

        let changes = SavedChanges(inserted: Set(insertedObjects.map(\.objectID)), updated: Set(updatedObjects.map(\.objectID)),
                                   deleted: Set(deletedObjects.map(\.objectID)))
        let userInfo: [AnyHashable: Any] = [
            NSInsertedObjectsKey: Set(insertedObjects), NSUpdatedObjectsKey: Set(updatedObjects), NSDeletedObjectsKey: Set(deletedObjects),
            NSInsertedObjectIDsKey: changes.inserted, NSUpdatedObjectIDsKey: changes.updated, NSDeletedObjectIDsKey: changes.deleted,
        ]
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSave, object: self, userInfo: userInfo)
        NotificationCenter.default.post(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: self,
                                        userInfo: [NSInsertedObjectIDsKey: changes.inserted, NSUpdatedObjectIDsKey: changes.updated,
                                                   NSDeletedObjectIDsKey: changes.deleted])
        notifyChildren(of: changes)
    }

    /// The parent's side of a child's save, on the parent's queue. Checks first, so a push that
    /// cannot be applied changes nothing; then inserts, copies values, deletes, and posts
    /// `ObjectsDidChange` here.
    func receive(_ push: ChildPush, from child: NSManagedObjectContext) throws {
        processPendingChanges()
        let insertedIDs = Set(push.inserted.map(\.objectID))
        // An object the child knows by a temporary ID must still be here (a reset forgets it).
        func check(_ id: NSManagedObjectID) throws {
            guard id.isTemporaryID, !insertedIDs.contains(id), !hasObject(knownByChildAs: id) else { return }
            throw CoreDataError.make(NSManagedObjectReferentialIntegrityError,
                                     "The child context's save refers to the object \(id.uriRepresentation().absoluteString), which its parent context no longer has (the parent was reset, or deleted and saved it before the child saved).",
                                     userInfo: [NSAffectedObjectsErrorKey: [id]])
        }
        // Walked in place: concatenating the lists copied (and retained) every object.
        for object in [push.updated, push.deleted].joined() { try check(object.objectID) }
        for object in [push.inserted, push.updated].joined() {
            for index in object.layout.relationshipIndices where object.insertedFlag || object.slotDiffersFromCommitted(index) {
                for id in object.objectIDs(inSlot: index) { try check(id) }
            }
        }

        // The rows of changed objects not loaded here, read in one query per store (not one per
        // object as each fault fired); held until the push is applied.
        var missing: [NSManagedObjectID] = []
        for object in [push.updated, push.deleted].joined() {
            let id = resolvedChildID(object.objectID)
            if id.isTemporaryID && parentStorage == nil { continue }
            if let registered = registry[id]?.takeUnretainedValue(), !(registered.faulted && registered.committed == nil) { continue }
            missing.append(id)
        }
        let rows: [RowSnapshot]
        if parentStorage == nil, case .unpinned = queryGenerationState, let coordinator = persistentStoreCoordinator {
            rows = try coordinator.cachedSnapshots(for: missing, pinnedBy: self)
        } else {
            rows = try sourceSnapshots(for: missing)
        }
        let loaded = registeredObjects(for: rows, refresh: false)
        defer { withExtendedLifetime(loaded) {} }
        updated.reserveCapacity(updated.count + push.updated.count)
        pendingUpdated.reserveCapacity(pendingUpdated.count + push.updated.count)

        for object in push.inserted {
            if let existing = registry[object.objectID]?.takeUnretainedValue() {
                // The child undid a deletion it had pushed here: the object comes back, its values below.
                if existing.deletedFlag { restoreDeleted(existing) }
                continue
            }
            let copy = ClassRegistry.shared.objectClass(for: object.entity).init(entity: object.entity, insertInto: nil)
            copy._objectID = object.objectID
            copy.slots = NSManagedObject.initialSlots(layout: copy.layout)
            copy.faulted = false
            copy.needsDefaults = false
            noteInserted(copy)
        }
        func target(_ id: NSManagedObjectID) -> NSManagedObject {
            let id = resolvedChildID(id)
            return registry[id]?.takeUnretainedValue() ?? object(with: id)
        }
        for object in push.inserted {
            let copy = target(object.objectID)
            for index in 0..<object.layout.slotCount where object.layout.properties[index].isStored {
                copySlot(index, from: object, to: copy, resolve: target)
            }
        }
        var plainLayouts = PlainLayouts()
        for object in push.updated {
            let copy = target(object.objectID)
            let readsChildsRow = copy.faulted && copy.faultBatch == nil && !object.readsCommitted && plainLayouts.contains(object.layout)
                && copy.hasCommittedValues(of: object)
            copy.fireFaultIfNeeded()
            // The parent deleted it since the child read it: the deletion stands.
            guard !copy.deletedFlag, !copy.inaccessible else { continue }
            if readsChildsRow {
                // This context's values are the row the child read, and every slot is a stored
                // attribute: the child's slots are the result, taken whole (they are copied on write).
                guard object.plainSlotsDifferFromCommitted() else { continue }
                copy.markChanged()
                copy.slots = object.storedSlots
                continue
            }
            let changed = (0..<object.layout.slotCount).filter { object.layout.properties[$0].isStored && object.slotDiffersFromCommitted($0) }
            if changed.isEmpty { continue }
            // Noted before the values change, as a setter notes it (undo records the old values).
            copy.markChanged()
            for index in changed { copySlot(index, from: object, to: copy, resolve: target) }
        }
        for object in push.deleted {
            let copy = target(object.objectID)
            guard !copy.deletedFlag else { continue }
            // Delete rules ran in the child, whose changes to related objects came with this push.
            copy.fireFaultIfNeeded()
            noteDeleted(copy)
        }
        processPendingChanges()
        notifyChildren(of: SavedChanges(inserted: insertedIDs, updated: Set(push.updated.map(\.objectID)),
                                        deleted: Set(push.deleted.map(\.objectID))),
                       except: child)
    }


    /// Takes back an object deleted here and not saved: as it was before (inserted, or stored and now updated).
    private func restoreDeleted(_ object: NSManagedObject) {
        let key = ObjectIdentifier(object)
        object.deletedFlag = false
        pendingDeleted[key] = nil
        if deleted.removeValue(forKey: key) == nil {
            noteInserted(object)
        } else {
            object.markChanged()
        }
    }

    /// Sets slot `index` of `copy` (this context's object) to the child's value; related
    /// objects become this context's objects with the same IDs.
    private func copySlot(_ index: Int, from object: NSManagedObject, to copy: NSManagedObject,
                          resolve: (NSManagedObjectID) -> NSManagedObject) {
        switch object.slots[index] {
        case .value(let value):
            if object.layout.isRelationship[index] {
                copy.slots[index] = .toOne(value.objectIDValue.map(resolve))
            } else {
                copy.slots[index] = .value(value)
            }
        case .custom(let value):
            copy.slots[index] = .custom(value)
        case .toOne(let destination):
            copy.slots[index] = .toOne(destination.map { resolve($0.objectID) })
        case .toMany(let storage):
            // Loaded here first, so the destinations saved in the store stay known for the save.
            let mine = copy.loadedToMany(at: index)
            mine.objects = OrderedSetStorage(storage.objects.map { resolve($0.objectID) })
        case .unloadedToMany:
            break
        }
    }
}

/// Which entity layouts have only stored attributes kept in store form (no relationships,
/// transformables or transient properties), remembered for the last layout asked about.
private struct PlainLayouts {
    private var last: (layout: EntityLayout, isPlain: Bool)?

    mutating func contains(_ layout: EntityLayout) -> Bool {
        if let last, last.layout === layout { return last.isPlain }
        let isPlain = layout.readsCommittedValues && layout.properties.allSatisfy(\.isStored)
        last = (layout, isPlain)
        return isPlain
    }
}

/// The objects a child context saves into its parent.
struct ChildPush {
    let inserted: [NSManagedObject]
    let updated: [NSManagedObject]
    let deleted: [NSManagedObject]
}

extension NSManagedObject {
    /// Whether both objects have committed rows with the same values (the same storage, when
    /// one was handed down from the other); the rows are compared in place, not copied out.
    func hasCommittedValues(of other: NSManagedObject) -> Bool {
        guard committed != nil, other.committed != nil else { return false }
        // Both `committed` are non-nil (the guard above).
        return committed.unsafelyUnwrapped.values == other.committed.unsafelyUnwrapped.values
    }

    /// The IDs a relationship slot holds, without loading anything.
    func objectIDs(inSlot index: Int) -> [NSManagedObjectID] {
        switch slots[index] {
        case .value(let value): return value.objectIDValue.map { [$0] } ?? []
        case .toOne(let object): return object.map { [$0.objectID] } ?? []
        case .toMany(let storage): return storage.objects.map(\.objectID)
        case .custom, .unloadedToMany: return []
        }
    }
}
