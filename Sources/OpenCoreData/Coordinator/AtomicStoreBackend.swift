import Foundation
import Synchronization

/// How the coordinator talks to an `NSAtomicStore` subclass: its registered cache nodes are the
/// rows, and a save becomes Apple's sequence of calls on the store.
///
/// - Fetches: every node of the requested entities becomes a row snapshot; the context filters,
///   sorts and pages in memory, as for the in-memory store (`evaluatesNatively` is false).
/// - Permanent IDs: `newReferenceObject(for:)`, then `objectID(for:withReferenceObject:)`.
/// - Saves, one at a time: if another coordinator saved the file since this store loaded or
///   saved it, `load()` runs again first (`reloadIfChangedElsewhere`). Optimistic locking
///   against the nodes' versions and the uniqueness constraints are checked next; then
///   `newCacheNode(for:)` for each inserted object and
///   `addCacheNodes(_:)`, `updateCacheNode(_:from:)` for each updated one,
///   `willRemoveCacheNodes(_:)` for the deleted ones (which are then unregistered), and
///   `save()`. If anything throws, the nodes and their values are put back as they were and the
///   save fails: the file keeps its contents, since only `save()` writes it.
///
/// The store's calls get objects of a short-lived context on the coordinator, never the app's.
final class AtomicStoreBackend: CustomStoreBackend {
    typealias Store = NSAtomicStore

    /// Held for a whole save, so saves of several contexts do not interleave their node changes.
    private let writer = Mutex(())

    // MARK: - Reading

    func fetchSnapshots(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot] {
        try typed(store).cacheNodes(of: request.entities).map(snapshot(of:))
    }

    func fetchObjectIDs(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID] {
        typed(store).cacheNodes(of: request.entities).map(\.objectID)
    }

    func countRows(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> Int {
        typed(store).cacheNodes(of: request.entities).count
    }

    func snapshots(for objectIDs: [NSManagedObjectID], store: NSPersistentStore) throws -> [RowSnapshot] {
        let atomic = typed(store)
        return try objectIDs.compactMap { try atomic.registeredCacheNode(for: $0).map(snapshot(of:)) }
    }

    func destinations(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription, store: NSPersistentStore) throws -> [RowSnapshot] {
        let atomic = typed(store)
        guard let node = atomic.registeredCacheNode(for: objectID) else { return [] }
        return try CustomStoreValues.objectIDs(in: node.value(forKey: relationship.name), relationship: relationship).compactMap {
            try atomic.registeredCacheNode(for: $0).map(snapshot(of:))
        }
    }

    /// A row from a node's property cache.
    func snapshot(of node: NSAtomicStoreCacheNode) throws -> RowSnapshot {
        let entity = node.objectID.entity
        let layout = entity.layout
        var values = StoreValues()
        values.reserveCapacity(layout.slotCount)
        for index in 0..<layout.slotCount {
            let property = layout.properties[index]
            if property.isTransient {
                values.append(.null)
            } else if let relationship = property as? NSRelationshipDescription {
                let ids = try CustomStoreValues.objectIDs(in: node.value(forKey: relationship.name), relationship: relationship)
                values.append(relationship.isToMany ? .objectIDs(ids) : ids.first.map(StoreValue.objectID) ?? .null)
            } else {
                values.append(try CustomStoreValues.attributeValue(node.value(forKey: property.name), index: index, layout: layout, entity: entity))
            }
        }
        return RowSnapshot(objectID: node.objectID, version: node.version, values: values)
    }

    // MARK: - Permanent IDs

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int, store: NSPersistentStore) throws -> Int64 {
        // The coordinator asks `permanentObjectIDs` instead: reference objects are the store's to choose.
        CoreDataError.programmerError("An atomic store's IDs come from newReferenceObject(for:), not from primary keys.")
    }

    /// IDs from the store's `newReferenceObject(for:)` for new objects of these entities. The
    /// context's objects are not at hand here, so the store sees new objects of the same
    /// entities holding their default values (docs/Deviations.md); a save passes the real values.
    func permanentObjectIDs(for entities: [NSEntityDescription], store: NSPersistentStore) throws -> [NSManagedObjectID]? {
        let atomic = typed(store)
        let context = try CustomStoreValues.scratchContext(for: store)
        return try entities.map { try permanentID(for: NSManagedObject(entity: $0, insertInto: context), store: atomic) }
    }

    private func permanentID(for object: NSManagedObject, store: NSAtomicStore) throws -> NSManagedObjectID {
        let id = store.objectID(for: object.entity, withReferenceObject: store.newReferenceObject(for: object))
        if store.registeredCacheNode(for: id) != nil {
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "\(type(of: store)).newReferenceObject(for:) returned \(store.referenceObject(for: id)), which already names a record of entity '\(object.entity.name ?? "?")'.")
        }
        return id
    }

    // MARK: - Saving

    func save(_ request: StoreSaveRequest, store: NSPersistentStore) throws -> StoreSaveResult {
        let atomic = typed(store)
        return try writer.withLock { _ in
            try reloadIfChangedElsewhere(atomic)
            try checkConflicts(request, store: atomic)

            // Apple names new objects while they still have their temporary IDs.
            var result = StoreSaveResult()
            let temporary = request.inserted.filter(\.objectID.isTemporaryID)
            if !temporary.isEmpty {
                let naming = try CustomStoreValues.scratchContext(for: store)
                for row in temporary {
                    result.permanentIDs.assign(try permanentID(for: CustomStoreValues.stagedObject(for: row, in: naming), store: atomic), to: row.objectID)
                }
            }

            // The request's objects, with permanent IDs everywhere, in a context of their own.
            let map = result.permanentIDs
            let saving = try CustomStoreValues.scratchContext(for: store)
            func staged(_ row: RowSnapshot) -> NSManagedObject {
                CustomStoreValues.stagedObject(for: RowSnapshot(objectID: map.resolve(row.objectID), version: row.version,
                                                                values: map.remapped(row.values)), in: saving)
            }
            let inserted = request.inserted.map(staged)
            let updated = zip(request.updated, request.updated.map { staged($0.snapshot) })

            let backup = atomic.cacheBackup()
            do {
                try apply(inserted: inserted, updated: updated, deleted: request.deleted, to: atomic)
                try atomic.save()
                atomic.loadedFile.withLock { $0 = atomic.url.flatMap(AtomicStoreFileState.init(of:)) }
            } catch {
                atomic.restoreCache(backup)
                throw error
            }
            return result
        }
    }

    /// Apple's order: new nodes, then updated nodes, then the removal of deleted ones.
    private func apply(inserted: [NSManagedObject], updated: Zip2Sequence<[StoreUpdate], [NSManagedObject]>,
                       deleted: [StoreDelete], to store: NSAtomicStore) throws {
        var newNodes: [NSAtomicStoreCacheNode] = []
        newNodes.reserveCapacity(inserted.count)
        for object in inserted {
            let node = store.newCacheNode(for: object)
            guard node.objectID == object.objectID else {
                throw CoreDataError.make(NSPersistentStoreOperationError,
                                         "\(type(of: store)).newCacheNode(for:) returned a node for \(node.objectID), not for \(object.objectID).")
            }
            node.version = 1
            newNodes.append(node)
        }
        store.addCacheNodes(Set(newNodes))
        for (update, object) in updated {
            guard let node = store.cacheNode(for: object.objectID) else {
                throw CoreDataError.make(NSPersistentStoreSaveError, "The store \(store.type) holds no record for \(object.objectID).")
            }
            store.updateCacheNode(node, from: object)
            node.version = update.snapshot.version
        }
        let removed = Set(deleted.compactMap { store.cacheNode(for: $0.objectID) })
        if !removed.isEmpty {
            store.willRemoveCacheNodes(removed)
            store.removeCacheNodes(removed)
        }
    }

    /// Optimistic locking against the nodes' versions, then uniqueness.
    private func checkConflicts(_ request: StoreSaveRequest, store: NSAtomicStore) throws {
        var conflicts = StoreSaveConflicts()
        for update in request.updated {
            let id = update.snapshot.objectID
            let current = try store.cacheNode(for: id).map(snapshot(of:))
            if current?.version != update.expectedVersion {
                conflicts.optimistic.append(StoreOptimisticConflict(objectID: id, expectedVersion: update.expectedVersion, current: current))
            }
        }
        for delete in request.deleted {
            if let current = try store.cacheNode(for: delete.objectID).map(snapshot(of:)), current.version != delete.expectedVersion {
                conflicts.optimistic.append(StoreOptimisticConflict(objectID: delete.objectID, expectedVersion: delete.expectedVersion, current: current))
            }
        }
        conflicts.constraints = try UniquenessCheck.violations(request) { entity in
            try store.cacheNodes(of: entity.selfAndDescendants).map(snapshot(of:))
        }
        if !conflicts.optimistic.isEmpty || !conflicts.constraints.isEmpty { throw conflicts }
    }

    func close() {}
}
