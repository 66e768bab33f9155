import Foundation
import Synchronization

/// The in-memory store (`NSInMemoryStoreType`): rows live in a dictionary and vanish with the process.
///
/// It does not evaluate predicates itself: it returns every row of the requested entities and
/// the context filters, sorts and pages them in memory, with the same code that handles
/// unsaved changes. Saves are atomic: conflicts and constraint violations are found before
/// anything changes.
final class InMemoryStore: PersistentStoreBackend {
    private struct State: @unchecked Sendable {
        // @unchecked: RowSnapshot is Sendable; NSEntityDescription keys are frozen model objects.
        /// Rows by root entity number, then primary key.
        var rows: [Int: [Int64: RowSnapshot]] = [:]
        /// The last primary key used per root entity.
        var maxKeys: [Int: Int64] = [:]
    }
    private let state = Mutex(State())

    // MARK: - Reading

    func fetchSnapshots(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot] {
        let entities = Set(request.entities.map(ObjectIdentifier.init))
        let root = request.entity.rootEntity.entityNumber
        return state.withLock { state in
            (state.rows[root] ?? [:]).values
                .filter { entities.contains(ObjectIdentifier($0.objectID.entity)) }
                .sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
        }
    }

    func fetchObjectIDs(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID] {
        try fetchSnapshots(request, store: store).map(\.objectID)
    }

    func countRows(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> Int {
        try fetchSnapshots(request, store: store).count
    }

    func snapshots(for objectIDs: [NSManagedObjectID], store: NSPersistentStore) throws -> [RowSnapshot] {
        state.withLock { state in
            objectIDs.compactMap { state.rows[$0.entity.rootEntity.entityNumber]?[$0.primaryKey] }
        }
    }

    func destinations(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription, store: NSPersistentStore) throws -> [RowSnapshot] {
        state.withLock { state in
            guard let row = state.rows[objectID.entity.rootEntity.entityNumber]?[objectID.primaryKey],
                  let index = objectID.entity.layout.indexByName[relationship.name] else { return [] }
            let ids: [NSManagedObjectID]
            switch row.values[index] {
            case .objectID(let id): ids = [id]
            case .objectIDs(let list): ids = list
            default: ids = []
            }
            return ids.compactMap { state.rows[$0.entity.rootEntity.entityNumber]?[$0.primaryKey] }
        }
    }

    // MARK: - Writing

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int, store: NSPersistentStore) throws -> Int64 {
        state.withLock { state in
            let root = entity.rootEntity.entityNumber
            let first = (state.maxKeys[root] ?? 0) + 1
            state.maxKeys[root] = first + Int64(count) - 1
            return first
        }
    }

    func save(_ request: StoreSaveRequest, store: NSPersistentStore) throws -> StoreSaveResult {
        try state.withLock { state in
            try checkConflicts(request, state: state)

            // Reserve keys for new rows and map their temporary IDs.
            var result = StoreSaveResult()
            var maxKeys = state.maxKeys
            for insert in request.inserted where insert.objectID.isTemporaryID {
                let root = insert.objectID.entity.rootEntity.entityNumber
                let key = (maxKeys[root] ?? 0) + 1
                maxKeys[root] = key
                result.permanentIDs.assign(NSManagedObjectID(entity: insert.objectID.entity, primaryKey: key, store: store), to: insert.objectID)
            }
            let map = result.permanentIDs
            func resolve(_ id: NSManagedObjectID) -> NSManagedObjectID { map.resolve(id) }
            /// New-object references made permanent; a to-many the context did not load keeps the stored list.
            func resolved(_ values: StoreValues, keeping old: StoreValues?) -> StoreValues {
                var values = map.remapped(values)
                for index in values.indices {
                    switch values[index] {
                    case .unloaded: values[index] = old.map { index < $0.count ? $0[index] : .objectIDs([]) } ?? .objectIDs([])
                    default: break
                    }
                }
                return values
            }

            // Apply: nothing above threw, so the whole save lands.
            state.maxKeys = maxKeys
            for delete in request.deleted {
                state.rows[delete.objectID.entity.rootEntity.entityNumber]?[delete.objectID.primaryKey] = nil
            }
            for insert in request.inserted {
                let id = resolve(insert.objectID)
                let root = id.entity.rootEntity.entityNumber
                state.rows[root, default: [:]][id.primaryKey] = RowSnapshot(objectID: id, version: 1, values: resolved(insert.values, keeping: nil))
                if !insert.objectID.isTemporaryID, insert.objectID.primaryKey > (state.maxKeys[root] ?? 0) {
                    state.maxKeys[root] = insert.objectID.primaryKey
                }
            }
            for update in request.updated {
                let id = update.snapshot.objectID
                let root = id.entity.rootEntity.entityNumber
                let old = state.rows[root]?[id.primaryKey]?.values
                state.rows[root, default: [:]][id.primaryKey] = RowSnapshot(objectID: id, version: update.snapshot.version,
                                                                             values: resolved(update.snapshot.values, keeping: old))
            }
            return result
        }
    }

    /// Finds optimistic-locking conflicts and uniqueness violations; throws them all at once.
    private func checkConflicts(_ request: StoreSaveRequest, state: State) throws {
        var conflicts = StoreSaveConflicts()
        for update in request.updated {
            let id = update.snapshot.objectID
            let current = state.rows[id.entity.rootEntity.entityNumber]?[id.primaryKey]
            if current?.version != update.expectedVersion {
                conflicts.optimistic.append(StoreOptimisticConflict(objectID: id, expectedVersion: update.expectedVersion, current: current))
            }
        }
        for delete in request.deleted {
            let current = state.rows[delete.objectID.entity.rootEntity.entityNumber]?[delete.objectID.primaryKey]
            if let current, current.version != delete.expectedVersion {
                conflicts.optimistic.append(StoreOptimisticConflict(objectID: delete.objectID, expectedVersion: delete.expectedVersion, current: current))
            }
        }
        conflicts.constraints = uniquenessViolations(request, state: state)
        if !conflicts.optimistic.isEmpty || !conflicts.constraints.isEmpty { throw conflicts }
    }

    private func uniquenessViolations(_ request: StoreSaveRequest, state: State) -> [StoreConstraintViolation] {
        UniquenessCheck.violations(request) { owner in
            (state.rows[owner.rootEntity.entityNumber] ?? [:]).values.filter { $0.objectID.entity.isKindOf(entity: owner) }
        }
    }

    func close() {}
}
