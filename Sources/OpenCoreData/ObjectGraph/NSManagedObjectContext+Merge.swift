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
        func ids(_ idKey: String, _ objectKey: String) -> Set<NSManagedObjectID> {
            if let ids = info[idKey] as? Set<NSManagedObjectID> { return ids }
            if let objects = info[objectKey] as? Set<NSManagedObject> { return Set(objects.map(\.objectID)) }
            if let objects = info[objectKey] as? NSSet { return Set(objects.compactMap { ($0 as? NSManagedObject)?.objectID }) }
            return []
        }
        mergeSavedChanges(SavedChanges(inserted: ids(NSInsertedObjectIDsKey, NSInsertedObjectsKey),
                                       updated: ids(NSUpdatedObjectIDsKey, NSUpdatedObjectsKey),
                                       deleted: ids(NSDeletedObjectIDsKey, NSDeletedObjectsKey)))
    }

    /// Merges remote changes given as IDs (`NSInsertedObjectsKey` etc. mapping to object IDs or URIs) into contexts.
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]) {
        func ids(_ key: String) -> Set<NSManagedObjectID> {
            let values = (changeNotificationData[key] as? [Any]) ?? (changeNotificationData[key] as? Set<AnyHashable>).map { Array($0) as [Any] } ?? []
            return Set(values.compactMap { value -> NSManagedObjectID? in
                if let id = value as? NSManagedObjectID { return id }
                if let url = value as? URL { return contexts.first?.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) }
                return nil
            })
        }
        let changes = SavedChanges(inserted: ids(NSInsertedObjectsKey), updated: ids(NSUpdatedObjectsKey), deleted: ids(NSDeletedObjectsKey))
        for context in contexts {
            context.performAndWait { context.mergeSavedChanges(changes) }
        }
    }

    /// Applies another context's save to the registered objects and posts `ObjectsDidChange`.
    package func mergeSavedChanges(_ changes: SavedChanges) {
        var refreshed = Set<NSManagedObject>()
        var deletedNow = Set<NSManagedObject>()
        var insertedNow = Set<NSManagedObject>()
        // One store query for every registered object the save changed.
        let changed = changes.updated.compactMap { registeredObject(for: $0) }
        let latest = (try? persistentStoreCoordinator?.snapshots(for: changed.map(\.objectID))) ?? []
        persistentStoreCoordinator?.cacheSnapshots(latest, pinnedBy: self)
        var rows: [NSManagedObjectID: RowSnapshot] = [:]
        for row in latest { rows[row.objectID] = row }
        for object in changed {
            refreshInPlace(object, latest: rows[object.objectID])
            refreshed.insert(object)
        }
        for id in changes.deleted {
            guard let object = registeredObject(for: id) else { continue }
            let key = ObjectIdentifier(object)
            updated[key] = nil
            deleted[key] = nil
            object.deletedFlag = false
            // Relationships of other objects that still point at it are cleared.
            if let inverseTargets = Optional(object.faulted ? [] : object.layout.relationshipIndices) {
                for index in inverseTargets {
                    let relationship = object.layout.properties[index] as! NSRelationshipDescription
                    guard let inverse = relationship.inverseRelationship else { continue }
                    for destination in currentDestinations(of: object, at: index) where !destination.faulted {
                        if let slot = destination.layout.indexByName[inverse.name] {
                            if inverse.isToMany, case .toMany(let storage) = destination.slots[slot] {
                                storage.objects.remove(object)
                                storage.committedIDs?.removeAll { $0 == id }
                            } else if case .toOne(let target) = destination.slots[slot], target === object {
                                destination.slots[slot] = .value(.null)
                            }
                        }
                    }
                }
            }
            object.committed = nil
            object.slots = []
            object.faulted = false
            object.inaccessible = true
            unregister(object)
            deletedNow.insert(object)
        }
        for id in changes.inserted {
            if let object = registeredObject(for: id) { insertedNow.insert(object) }
        }
        persistentStoreCoordinator?.updateCachedSnapshots([], removing: Array(changes.deleted))
        var userInfo: [AnyHashable: Any] = [:]
        if !refreshed.isEmpty { userInfo[NSRefreshedObjectsKey] = refreshed; userInfo[NSUpdatedObjectsKey] = refreshed }
        if !deletedNow.isEmpty { userInfo[NSDeletedObjectsKey] = deletedNow }
        if !insertedNow.isEmpty { userInfo[NSInsertedObjectsKey] = insertedNow }
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: userInfo)
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
