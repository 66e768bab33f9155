import Foundation

/// The rows the stores give for a fetch, and how much of the request they applied.
package struct StoreFetchResult<Row> {
    /// Rows (snapshots or IDs) from every store that holds the request's entities.
    package var rows: [Row]
    /// Whether every store applied the predicate and sort descriptors; when false, some rows are
    /// every row of their store and must be filtered in memory.
    package var isEvaluated: Bool
    /// Whether the rows are the request's final answer: evaluated, sorted and paged by the one
    /// store that holds them, with no unsaved change to merge.
    package var isComplete: Bool

    /// Moves the rows out, leaving none: the caller then holds the only reference to their
    /// storage, so consuming them one by one copies nothing.
    package mutating func takeRows() -> [Row] {
        var taken: [Row] = []
        swap(&taken, &rows)
        return taken
    }
}

// MARK: - Planned fetches

extension NSPersistentStoreCoordinator {
    /// Runs a fetch on the stores of its entity. Each store plans the request once
    /// (`PersistentStoreBackend.planFetch`: for SQL, one translation) and runs the plan. One
    /// store and no unsaved changes to merge: the store filters, sorts and pages, and the rows
    /// are complete. Otherwise each store filters and sorts what it can (a store that cannot
    /// gives every row), and the context merges its unsaved changes, sorts and pages.
    func fetchRows(_ request: StoreFetchRequest, affectedStores: [NSPersistentStore]?,
                   mergingPendingChanges pending: Bool) throws -> StoreFetchResult<RowSnapshot> {
        let stores = stores(for: request.entity, affectedStores: affectedStores)
        if stores.count == 1, !pending, let plan = try stores[0].backend.planFetch(request, for: .snapshots, store: stores[0]) {
            return StoreFetchResult(rows: try stores[0].backend.fetchSnapshots(plan, store: stores[0]), isEvaluated: true, isComplete: true)
        }
        var result = StoreFetchResult<RowSnapshot>(rows: [], isEvaluated: true, isComplete: false)
        let unpaged = request.unpaged
        for store in stores {
            let rows: [RowSnapshot]
            if let plan = try store.backend.planFetch(unpaged, for: .snapshots, store: store) {
                rows = try store.backend.fetchSnapshots(plan, store: store)
            } else {
                result.isEvaluated = false
                rows = try store.backend.fetchSnapshots(try everyRowPlan(request, for: .snapshots, store: store), store: store)
            }
            // One store's rows are kept as they are: appending them would copy every snapshot.
            if stores.count == 1 { result.rows = rows } else { result.rows.append(contentsOf: rows) }
        }
        return result
    }

    /// The IDs of a fetch's rows when one store holds them and evaluates the whole request
    /// (for batched fetches); nil otherwise.
    func fetchCompleteObjectIDs(_ request: StoreFetchRequest, affectedStores: [NSPersistentStore]?) throws -> [NSManagedObjectID]? {
        let stores = stores(for: request.entity, affectedStores: affectedStores)
        guard stores.count == 1, let plan = try stores[0].backend.planFetch(request, for: .objectIDs, store: stores[0]) else { return nil }
        return try stores[0].backend.fetchObjectIDs(plan, store: stores[0])
    }

    /// The number of rows a fetch matches when every store evaluates it; nil when one cannot.
    /// Several stores count without paging; the request's offset and limit apply to the sum.
    func countRowsIfEvaluated(_ request: StoreFetchRequest, affectedStores: [NSPersistentStore]?) throws -> Int? {
        let stores = stores(for: request.entity, affectedStores: affectedStores)
        if stores.count == 1 {
            guard let plan = try stores[0].backend.planFetch(request, for: .count, store: stores[0]) else { return nil }
            return try stores[0].backend.countRows(plan, store: stores[0])
        }
        var plans: [(NSPersistentStore, any StoreFetchPlan)] = []
        for store in stores {
            guard let plan = try store.backend.planFetch(request.unpaged, for: .count, store: store) else { return nil }
            plans.append((store, plan))
        }
        var total = 0
        for (store, plan) in plans { total += try store.backend.countRows(plan, store: store) }
        let remaining = max(total - max(request.fetchOffset, 0), 0)
        return request.fetchLimit > 0 ? min(remaining, request.fetchLimit) : remaining
    }

    /// Whether every store of a request's entities evaluates its predicate and sort descriptors.
    package func evaluatesNatively(_ request: StoreFetchRequest, affectedStores: [NSPersistentStore]?) -> Bool {
        stores(for: request.entity, affectedStores: affectedStores).allSatisfy { store in
            ((try? store.backend.planFetch(request, for: .snapshots, store: store)) ?? nil) != nil
        }
    }

    /// A plan for every row of a request's entities, which every store can run.
    private func everyRowPlan(_ request: StoreFetchRequest, for purpose: StoreFetchPurpose, store: NSPersistentStore) throws -> any StoreFetchPlan {
        guard let plan = try store.backend.planFetch(request.everyRow, for: purpose, store: store) else {
            throw CoreDataError.make(NSCoreDataError, "The store \(store.identifier ?? "") cannot list the rows of entity '\(request.entity.name ?? "?")'.")
        }
        return plan
    }
}
