import Foundation

/// How the coordinator talks to an `NSIncrementalStore` subclass: each seam call becomes calls
/// of Apple's public incremental-store API, and the store's nodes become row snapshots.
///
/// - Fetches: the store runs a fetch request for the entity with `.managedObjectIDResultType`,
///   then `newValuesForObject(with:with:)` gives each row. The store is not asked to evaluate
///   predicates, sorts or paging: the context does that in memory, as for the in-memory store
///   (docs/Deviations.md).
/// - Relationships: to-one values come from the node (or `newValue(forRelationship:…)` when the
///   node leaves them out); to-many ones are left unloaded and asked of
///   `newValue(forRelationship:…)` when their fault fires.
/// - Saves: the coordinator checks optimistic locking against the nodes' versions and the
///   uniqueness constraints, gets permanent IDs from `obtainPermanentIDs(for:)`, then hands the
///   store an `NSSaveChangesRequest`.
///
/// Object IDs carry `Int64` keys that stand for the store's reference objects
/// (`NSIncrementalStore.references`). The store's own calls are made with a short-lived context
/// on the coordinator, never one of the app's.
final class IncrementalStoreBackend: CustomStoreBackend {
    typealias Store = NSIncrementalStore

    // MARK: - Reading

    func fetchObjectIDs(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID] {
        try fetchObjectIDs(request, store: typed(store), context: CustomStoreValues.scratchContext(for: store))
    }

    private func fetchObjectIDs(_ request: StoreFetchRequest, store: NSIncrementalStore, context: NSManagedObjectContext) throws -> [NSManagedObjectID] {
        let fetch = NSFetchRequest<NSFetchRequestResult>()
        fetch.entity = request.entity
        fetch.includesSubentities = request.includesSubentities
        fetch.predicate = request.predicate
        fetch.sortDescriptors = request.sortDescriptors.isEmpty ? nil : request.sortDescriptors
        fetch.fetchLimit = request.fetchLimit
        fetch.fetchOffset = request.fetchOffset
        fetch.resultType = .managedObjectIDResultType
        fetch.affectedStores = [store]
        return try CustomStoreValues.objectIDs(inFetchResult: store.execute(fetch, with: context))
    }

    func fetchSnapshots(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot] {
        let incremental = typed(store)
        let context = try CustomStoreValues.scratchContext(for: store)
        let ids = try fetchObjectIDs(request, store: incremental, context: context)
        return try ids.map { try snapshot(of: $0, store: incremental, context: context) }
    }

    func countRows(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> Int {
        try fetchObjectIDs(request, store: store).count
    }

    /// Rows the store cannot give (`newValuesForObject` throws: Apple's "cannot be found") are left out.
    func snapshots(for objectIDs: [NSManagedObjectID], store: NSPersistentStore) throws -> [RowSnapshot] {
        let incremental = typed(store)
        let context = try CustomStoreValues.scratchContext(for: store)
        return objectIDs.compactMap { try? snapshot(of: $0, store: incremental, context: context) }
    }

    func destinations(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription, store: NSPersistentStore) throws -> [RowSnapshot] {
        let incremental = typed(store)
        let context = try CustomStoreValues.scratchContext(for: store)
        let value = try incremental.newValue(forRelationship: relationship, forObjectWith: objectID, with: context)
        return try CustomStoreValues.objectIDs(in: value, relationship: relationship).compactMap {
            try? snapshot(of: $0, store: incremental, context: context)
        }
    }

    /// A row from the store's node for an ID.
    private func snapshot(of objectID: NSManagedObjectID, store: NSIncrementalStore, context: NSManagedObjectContext) throws -> RowSnapshot {
        let node = try store.newValuesForObject(with: objectID, with: context)
        let entity = objectID.entity
        let layout = entity.layout
        var values = StoreValues()
        values.reserveCapacity(layout.slotCount)
        for index in 0..<layout.slotCount {
            let property = layout.properties[index]
            if property.isTransient {
                values.append(.null)
            } else if let relationship = property as? NSRelationshipDescription {
                if relationship.isToMany {
                    values.append(.unloaded)
                    continue
                }
                let value: Any? = node.hasValue(forKey: relationship.name)
                    ? node.value(for: relationship)
                    : .some(try store.newValue(forRelationship: relationship, forObjectWith: objectID, with: context))
                values.append(try CustomStoreValues.objectIDs(in: value, relationship: relationship).first.map(StoreValue.objectID) ?? .null)
            } else {
                values.append(try CustomStoreValues.attributeValue(node.value(for: property), index: index, layout: layout, entity: entity))
            }
        }
        return RowSnapshot(objectID: objectID, version: Int64(truncatingIfNeeded: node.version), values: values)
    }

    // MARK: - Writing

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int, store: NSPersistentStore) throws -> Int64 {
        // The coordinator asks `permanentObjectIDs` instead: reference objects are the store's to choose.
        CoreDataError.programmerError("An incremental store's IDs come from obtainPermanentIDs(for:), not from primary keys.")
    }

    /// The store's `obtainPermanentIDs(for:)` for new objects of these entities. The context's
    /// objects are not at hand here, so the store sees new objects of the same entities
    /// holding their default values (docs/Deviations.md); a save passes the real values.
    func permanentObjectIDs(for entities: [NSEntityDescription], store: NSPersistentStore) throws -> [NSManagedObjectID]? {
        let context = try CustomStoreValues.scratchContext(for: store)
        let objects = entities.map { NSManagedObject(entity: $0, insertInto: context) }
        return try obtainPermanentIDs(for: objects, store: typed(store))
    }

    private func obtainPermanentIDs(for objects: [NSManagedObject], store: NSIncrementalStore) throws -> [NSManagedObjectID] {
        let ids = try store.obtainPermanentIDs(for: objects)
        guard ids.count == objects.count, zip(ids, objects).allSatisfy({ !$0.isTemporaryID && $0.entity === $1.entity }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "\(type(of: store)).obtainPermanentIDs(for:) must return one permanent ID of the object's entity per object, in order.")
        }
        return ids
    }

    func save(_ request: StoreSaveRequest, store: NSPersistentStore) throws -> StoreSaveResult {
        let incremental = typed(store)
        let reading = try CustomStoreValues.scratchContext(for: store)
        try checkConflicts(request, store: incremental, context: reading)

        // Apple obtains permanent IDs before the store sees the save, from the objects being saved.
        var result = StoreSaveResult()
        let temporary = request.inserted.filter(\.objectID.isTemporaryID)
        if !temporary.isEmpty {
            let staging = try CustomStoreValues.scratchContext(for: store)
            let objects = temporary.map { CustomStoreValues.stagedObject(for: $0, in: staging) }
            for (row, id) in zip(temporary, try obtainPermanentIDs(for: objects, store: incremental)) {
                result.permanentIDs.assign(id, to: row.objectID)
            }
        }

        // The request's objects, with permanent IDs everywhere, in a context of their own.
        let map = result.permanentIDs
        let saving = try CustomStoreValues.scratchContext(for: store)
        func staged(_ row: RowSnapshot) -> NSManagedObject {
            let id = map.resolve(row.objectID)
            return CustomStoreValues.stagedObject(for: RowSnapshot(objectID: id, version: row.version,
                                                                   values: map.remapped(row.values)), in: saving)
        }
        let inserted = request.inserted.map(staged)
        let updated = request.updated.map { staged($0.snapshot) }
        let deleted = request.deleted.map {
            CustomStoreValues.stagedObject(for: RowSnapshot(objectID: $0.objectID, version: $0.expectedVersion, values: $0.committedValues), in: saving)
        }
        let saveRequest = NSSaveChangesRequest(inserted: Set(inserted), updated: Set(updated), deleted: Set(deleted), locked: nil)
        saveRequest.affectedStores = [store]
        _ = try incremental.execute(saveRequest, with: saving)
        return result
    }

    /// Optimistic locking against the nodes' versions (Apple: the version "is used by the
    /// persistent store coordinator to detect and handle merge conflicts"), then uniqueness.
    private func checkConflicts(_ request: StoreSaveRequest, store: NSIncrementalStore, context: NSManagedObjectContext) throws {
        var conflicts = StoreSaveConflicts()
        for update in request.updated {
            let id = update.snapshot.objectID
            let current = try? snapshot(of: id, store: store, context: context)
            if current?.version != update.expectedVersion {
                conflicts.optimistic.append(StoreOptimisticConflict(objectID: id, expectedVersion: update.expectedVersion, current: current))
            }
        }
        for delete in request.deleted {
            if let current = try? snapshot(of: delete.objectID, store: store, context: context), current.version != delete.expectedVersion {
                conflicts.optimistic.append(StoreOptimisticConflict(objectID: delete.objectID, expectedVersion: delete.expectedVersion, current: current))
            }
        }
        conflicts.constraints = try UniquenessCheck.violations(request) { entity in
            let ids = try fetchObjectIDs(StoreFetchRequest(entity: entity), store: store, context: context)
            return ids.compactMap { try? snapshot(of: $0, store: store, context: context) }
        }
        if !conflicts.optimistic.isEmpty || !conflicts.constraints.isEmpty { throw conflicts }
    }

    func close() {}
}
