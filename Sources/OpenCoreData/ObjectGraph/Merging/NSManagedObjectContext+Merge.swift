import Foundation

// MARK: - Notification names and keys

extension Notification.Name {
    /// Posted by `processPendingChanges()` when objects were inserted, updated or deleted.
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")
    /// Posted before a context saves.
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagedObjectContextWillSaveNotification")
    /// Posted after a context saved, with the saved objects and their IDs.
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagedObjectContextDidSaveNotification")
}

extension NSManagedObjectContext {
    /// Posted after a context saved, with the saved objects' IDs only (iOS 14).
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted when objects change, with their IDs only (iOS 14).
    public static let didChangeObjectIDsNotification = Notification.Name("NSManagedObjectContextDidChangeObjectIDsNotification")
    /// The same as `Notification.Name.NSManagedObjectContextDidSave`.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
    /// The same as `Notification.Name.NSManagedObjectContextObjectsDidChange`.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange
    /// The same as `Notification.Name.NSManagedObjectContextWillSave`.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave
}

/// userInfo key: the inserted objects.
public let NSInsertedObjectsKey = "inserted"
/// userInfo key: the updated objects.
public let NSUpdatedObjectsKey = "updated"
/// userInfo key: the deleted objects.
public let NSDeletedObjectsKey = "deleted"
/// userInfo key: the refreshed objects.
public let NSRefreshedObjectsKey = "refreshed"
/// userInfo key: the invalidated objects.
public let NSInvalidatedObjectsKey = "invalidated"
/// userInfo key: all objects were invalidated.
public let NSInvalidatedAllObjectsKey = "invalidatedAll"
/// userInfo key: the inserted objects' IDs.
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// userInfo key: the updated objects' IDs.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// userInfo key: the deleted objects' IDs.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
/// userInfo key: the refreshed objects' IDs.
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// userInfo key: the invalidated objects' IDs.
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"

// MARK: - Merging saves of other contexts

extension NSManagedObjectContext {
    /// Merges the changes another context saved: updated objects are refreshed, deleted ones removed.
    ///
    /// Call it on this context's queue, for example in `perform`. It reads only object IDs from
    /// the notification, so it is safe with a notification from a context on another thread.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        let info = notification.userInfo ?? [:]
        // A context of another coordinator (on the same store file) names rows by its own
        // stores' IDs: name them by ours, through their URIs, or nothing here would match.
        let stores = persistentStoreCoordinator?.persistentStores ?? []
        func local(_ id: NSManagedObjectID) -> NSManagedObjectID {
            guard !id.isTemporaryID, let store = id.persistentStore, !stores.contains(where: { $0 === store }),
                  registeredObject(for: id) == nil else { return id }  // an object registered under that very ID
            return persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation()) ?? id
        }
        func ids(_ idKey: String, _ objectKey: String) -> Set<NSManagedObjectID> {
            if let ids = info[idKey] as? Set<NSManagedObjectID> { return Set(ids.map(local)) }
            if let objects = info[objectKey] as? Set<NSManagedObject> { return Set(objects.map { local($0.objectID) }) }
            if let objects = info[objectKey] as? NSSet { return Set(objects.compactMap { ($0 as? NSManagedObject).map { local($0.objectID) } }) }
            return []
        }
        mergeSavedChanges(SavedChanges(inserted: ids(NSInsertedObjectIDsKey, NSInsertedObjectsKey),
                                       updated: ids(NSUpdatedObjectIDsKey, NSUpdatedObjectsKey),
                                       deleted: ids(NSDeletedObjectIDsKey, NSDeletedObjectsKey)))
    }

    /// Merges changes made outside the contexts (a batch request, another coordinator or
    /// process) into `contexts`: registered objects that were updated are refreshed from the
    /// store, deleted ones are deleted from each context, inserted ones become registered
    /// faults, and each context posts `ObjectsDidChange` for what it merged.
    ///
    /// Keys are `NSInsertedObjectsKey`, `NSUpdatedObjectsKey` and `NSDeletedObjectsKey` (the
    /// `…ObjectIDsKey` spellings work too); values are arrays or sets of `NSManagedObjectID`s or
    /// of their URI representations (`URL`, or `String`), as Apple accepts them.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/mergechanges(fromremotecontextsave:into:)>.
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]) {
        func elements(_ key: String) -> [Any] {
            switch changeNotificationData[key] {
            case let array as [Any]: return array
            case let set as Set<AnyHashable>: return set.map(\.base)
            case let set as NSSet: return set.allObjects
            case let ordered as NSOrderedSet: return ordered.array
            case let single?: return [single]
            case nil: return []
            }
        }
        func ids(_ objectsKey: String, _ idsKey: String, coordinator: NSPersistentStoreCoordinator?) -> Set<NSManagedObjectID> {
            var result = Set<NSManagedObjectID>()
            for value in elements(objectsKey) + elements(idsKey) {
                switch value {
                case let id as NSManagedObjectID: result.insert(id)
                case let object as NSManagedObject: result.insert(object.objectID)
                case let url as URL: coordinator?.managedObjectID(forURIRepresentation: url).map { _ = result.insert($0) }
                case let string as String: URL(string: string).flatMap { coordinator?.managedObjectID(forURIRepresentation: $0) }.map { _ = result.insert($0) }
                default: continue
                }
            }
            return result
        }
        // URIs resolve per coordinator: contexts of different coordinators may be given together.
        var byCoordinator: [ObjectIdentifier: SavedChanges] = [:]
        for context in contexts {
            let coordinator = context.persistentStoreCoordinator
            let key = coordinator.map(ObjectIdentifier.init) ?? ObjectIdentifier(context)
            let changes = byCoordinator[key] ?? SavedChanges(inserted: ids(NSInsertedObjectsKey, NSInsertedObjectIDsKey, coordinator: coordinator),
                                                              updated: ids(NSUpdatedObjectsKey, NSUpdatedObjectIDsKey, coordinator: coordinator),
                                                              deleted: ids(NSDeletedObjectsKey, NSDeletedObjectIDsKey, coordinator: coordinator))
            byCoordinator[key] = changes
            context.performAndWait { context.mergeSavedChanges(changes) }
        }
    }

    /// Applies another context's save to the registered objects and posts `ObjectsDidChange`
    /// (only when the merge changed something), as Apple reports a merge:
    ///
    /// - objects the save inserted are registered (as faults) and listed under `NSInsertedObjectsKey`;
    /// - registered objects it updated take the new row, keep their pending changes, and are
    ///   listed under `NSRefreshedObjectsKey` (not also as updated);
    /// - registered objects it deleted are deleted here: `prepareForDeletion()` runs, loaded
    ///   relationships of registered objects stop pointing at them, they leave the context and are
    ///   listed under `NSDeletedObjectsKey`. The rows are gone already, so nothing is left to save:
    ///   they are not in `deletedObjects`, and a relationship cleared this way is not a change.
    package func mergeSavedChanges(_ changes: SavedChanges) {
        // Changes made here so far are posted on their own, before the merge's notification.
        processPendingChanges()
        // A pinned context moves on to the generation that has the merged changes.
        advanceQueryGeneration()
        var refreshed = Set<NSManagedObject>()
        var deletedNow = Set<NSManagedObject>()
        var insertedNow = Set<NSManagedObject>()

        // Updates first, so objects that pointed at deleted ones already hold their new rows.
        // One store query for every registered object the save changed.
        var changed: [NSManagedObject] = []
        var unheld: [NSManagedObjectID] = []
        for id in changes.updated {
            if let object = registeredObject(for: id) { changed.append(object) } else { unheld.append(id) }
        }
        if parentStorage == nil, !unheld.isEmpty {
            // Rows this context does not hold may be cached from before the save (another
            // coordinator's commit): drop them, so an object made for one later reads the new row.
            persistentStoreCoordinator?.updateCachedSnapshots([], removing: unheld)
        }
        if !changed.isEmpty {
            let latest = (try? sourceSnapshots(for: changed.map(\.objectID))) ?? []
            if parentStorage == nil, case .unpinned = queryGenerationState { persistentStoreCoordinator?.cacheSnapshots(latest, pinnedBy: self) }
            var rows: [NSManagedObjectID: RowSnapshot] = [:]
            for row in latest { rows[row.objectID] = row }
            for object in changed {
                refreshInPlace(object, latest: rows[object.objectID])
                refreshed.insert(object)
            }
        }

        let gone = changes.deleted.compactMap { registeredObject(for: $0) }
        for object in gone {
            object.prepareForDeletion()
            refreshed.formUnion(nullifyRelationships(to: object))
        }
        for object in gone {
            let key = ObjectIdentifier(object)
            updated[key] = nil
            deleted[key] = nil
            pendingUpdated[key] = nil
            pendingDeleted[key] = nil
            object.deletedFlag = false
            object.committed = nil
            object.inaccessible = true
            unregister(object)
            deletedNow.insert(object)
        }
        refreshed.subtract(deletedNow)
        if !gone.isEmpty, parentStorage == nil { persistentStoreCoordinator?.updateCachedSnapshots([], removing: gone.map(\.objectID)) }

        for id in changes.inserted {
            insertedNow.insert(object(with: id))
        }
        var userInfo: [AnyHashable: Any] = [:]
        if !insertedNow.isEmpty { userInfo[NSInsertedObjectsKey] = insertedNow }
        if !refreshed.isEmpty { userInfo[NSRefreshedObjectsKey] = refreshed }
        if !deletedNow.isEmpty { userInfo[NSDeletedObjectsKey] = deletedNow }
        if !userInfo.isEmpty {
            NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: userInfo)
        }
        postDidMergeChangesObjectIDs(changes, refreshed: refreshed)
    }

    /// Posts `NSManagedObjectContextDidMergeChangesObjectIDs` after a merge: the IDs the merged
    /// save inserted, updated and deleted, and those of the objects refreshed here.
    private func postDidMergeChangesObjectIDs(_ changes: SavedChanges, refreshed: Set<NSManagedObject>) {
        guard !changes.inserted.isEmpty || !changes.updated.isEmpty || !changes.deleted.isEmpty else { return }
        var userInfo: [AnyHashable: Any] = [:]
        if !changes.inserted.isEmpty { userInfo[NSInsertedObjectIDsKey] = changes.inserted }
        if !changes.updated.isEmpty { userInfo[NSUpdatedObjectIDsKey] = changes.updated }
        if !changes.deleted.isEmpty { userInfo[NSDeletedObjectIDsKey] = changes.deleted }
        if !refreshed.isEmpty { userInfo[NSRefreshedObjectIDsKey] = Set(refreshed.map(\.objectID)) }
        NotificationCenter.default.post(name: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: self, userInfo: userInfo)
    }

    /// Makes the loaded relationships of registered, loaded objects stop pointing at `object`,
    /// whose row another context deleted; returns the objects changed.
    ///
    /// Their committed values drop it too: the store no longer has it, so this is not a change
    /// to save. Faults and relationships not loaded are left alone: they read the store, which
    /// has none of it, when they load.
    private func nullifyRelationships(to object: NSManagedObject) -> [NSManagedObject] {
        let id = object.objectID
        var touched: [NSManagedObject] = []
        for index in object.layout.relationshipIndices {
            let relationship = object.layout.relationship(at: index)
            guard let inverse = relationship.inverseRelationship else { continue }
            for destination in loadedDestinations(of: object, at: index) where destination._context === self && !destination.faulted {
                guard let slot = destination.layout.indexByName[inverse.name] else { continue }
                var changed = false
                switch destination.slots[slot] {
                case .toMany(let storage):
                    changed = storage.objects.remove(object) != nil
                    if let committedIDs = storage.committedIDs, committedIDs.contains(id) {
                        storage.committedIDs = committedIDs.filter { $0 != id }
                        changed = true
                    }
                case .toOne(let target) where target === object:
                    destination.slots[slot] = .toOne(nil)
                    changed = true
                case .value(.objectID(let target)) where target == id:
                    destination.slots[slot] = .value(.null)
                    changed = true
                default:
                    break
                }
                if destination.committed?.values[slot].objectIDValue == id {
                    destination.committed?.values[slot] = .null
                    changed = true
                }
                guard changed else { continue }
                touched.append(destination)
                // A pending change that only removed the deleted object now matches the store.
                let key = ObjectIdentifier(destination)
                if updated[key] != nil, !destination.hasStoredChanges {
                    updated[key] = nil
                    pendingUpdated[key] = nil
                }
            }
        }
        return touched
    }

    /// The registered destinations a relationship slot holds (a fault's as last read), without
    /// loading anything: the row is gone, so there is nothing left to load.
    private func loadedDestinations(of object: NSManagedObject, at index: Int) -> [NSManagedObject] {
        if object.faulted || object.readsCommitted {
            switch object.committed?.values[index] {
            case .objectID(let id)?: return registeredObject(for: id).map { [$0] } ?? []
            case .objectIDs(let ids)?: return ids.compactMap { registeredObject(for: $0) }
            default: return []
            }
        }
        switch object.storedSlots[index] {
        case .toOne(let destination?): return [destination]
        case .value(.objectID(let id)): return registeredObject(for: id).map { [$0] } ?? []
        case .toMany(let storage): return Array(storage.objects)
        default: return []
        }
    }

    /// Gives a registered object the row another context saved: a fault just takes the row; a
    /// loaded object takes its values at once, with its pending changes and transient values
    /// applied over them, so it stays loaded and observers see the new values.
    func refreshInPlace(_ object: NSManagedObject, latest: RowSnapshot?) {
        guard let latest else { return }
        if object.faulted {
            object.committed = latest
            return
        }
        var changes: [(Int, ObjectSlot)] = []
        for (index, property) in object.layout.properties.enumerated() where property.isTransient || object.slotDiffersFromCommitted(index) {
            changes.append((index, object.slots[index]))
        }
        object.committed = latest
        object.loadSlots()
        for (index, slot) in changes { object.slots[index] = slot }
    }
}

extension NSManagedObject {
    /// Whether a stored property differs from the row last read or saved.
    var hasStoredChanges: Bool {
        for index in 0..<layout.slotCount where layout.properties[index].isStored && slotDiffersFromCommitted(index) {
            return true
        }
        return false
    }
}
