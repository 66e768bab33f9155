import Foundation

/// What a store implementation provides to the coordinator: the store seam's contract.
///
/// Who calls whom: only `NSPersistentStoreCoordinator` calls these methods (contexts ask the
/// coordinator, never a store). A store implements them with the types of StoreInterface/ —
/// requests, row snapshots and store values, object IDs and keys, the entity layout — and
/// never sees managed objects or contexts. Stores live in Stores/ (in memory, SQLite) or
/// subclass `NSIncrementalStore`/`NSAtomicStore` through an adapter.
///
/// All methods are called synchronously from a context's queue; implementations are
/// thread-safe because several contexts use one store at once.
package protocol PersistentStoreBackend: AnyObject, Sendable {
    /// Whether the store evaluates this request's predicate and sort descriptors itself. When
    /// false (the default: the in-memory and custom stores), the coordinator fetches every row
    /// of the request's entities (a request stripped of predicate, sort and paging) and the
    /// context filters, sorts and pages them in memory. Stores that translate requests (SQLite)
    /// implement `planFetch` instead, which decides and translates in one step.
    func evaluatesNatively(_ request: StoreFetchRequest) -> Bool

    /// The request as this store will run it for `purpose` — translated once (for SQL, its text,
    /// bindings and row decoder) — or nil when the store cannot evaluate its predicate or sort
    /// descriptors. The coordinator calls this once per store and fetch, then runs the plan.
    func planFetch(_ request: StoreFetchRequest, for purpose: StoreFetchPurpose, store: NSPersistentStore) throws -> (any StoreFetchPlan)?

    /// The rows a plan matches, sorted and paged as its request says.
    func fetchSnapshots(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> [RowSnapshot]

    /// The IDs of the rows a plan matches.
    func fetchObjectIDs(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> [NSManagedObjectID]

    /// The number of rows a plan matches.
    func countRows(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> Int

    /// The rows a request matches, sorted and paged as the request says.
    func fetchSnapshots(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot]

    /// The IDs of the rows a request matches.
    func fetchObjectIDs(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID]

    /// The number of rows a request matches.
    func countRows(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> Int

    /// The rows of a `.dictionaryResultType` fetch computed by the store (selected columns,
    /// grouping, aggregates, `HAVING`, distinct), or nil when the store cannot give exactly what
    /// the context computes in memory from the matching objects; the context then does that.
    func fetchDictionaries(_ request: StoreDictionaryRequest, store: NSPersistentStore) throws -> [NSDictionary]?

    /// The rows with these IDs (missing rows are left out).
    func snapshots(for objectIDs: [NSManagedObjectID], store: NSPersistentStore) throws -> [RowSnapshot]

    /// The rows a relationship of a stored object points to.
    func destinations(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription, store: NSPersistentStore) throws -> [RowSnapshot]

    /// Reserves `count` primary keys for an entity's hierarchy and returns the first.
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int, store: NSPersistentStore) throws -> Int64

    /// Permanent IDs for new objects of these entities, in order, for stores whose IDs name
    /// their own reference objects (custom stores); nil for stores that number rows through
    /// `allocatePrimaryKeys`.
    func permanentObjectIDs(for entities: [NSEntityDescription], store: NSPersistentStore) throws -> [NSManagedObjectID]?

    /// Writes a save in one transaction, or throws `StoreSaveConflicts` / an error and writes nothing.
    func save(_ request: StoreSaveRequest, store: NSPersistentStore) throws -> StoreSaveResult

    /// Runs a batch insert, update or delete in one transaction and returns the rows it changed,
    /// or throws and writes nothing. The default refuses it with
    /// `NSPersistentStoreUnsupportedRequestTypeError` (134091): as on Apple platforms, only the
    /// SQLite store runs batch requests.
    /// `origin` names who made it, for stores that keep persistent history.
    func executeBatch(_ request: StoreBatchRequest, origin: StoreChangeOrigin, store: NSPersistentStore) throws -> StoreBatchResult

    /// A read snapshot of the store as it is now, for a query generation
    /// (`StoreReadGeneration`); reads bound to a generation that holds it see this state until
    /// the snapshot is released. The default refuses with `NSCoreDataError`: as on Apple
    /// platforms, only SQLite stores in WAL mode support query generations.
    func makeReadSnapshot(store: NSPersistentStore) throws -> any Sendable

    /// Whether `makeReadSnapshot` gives snapshots (false by default).
    var supportsReadSnapshots: Bool { get }

    /// Closes files; called when the store is removed from its coordinator.
    func close()
}

/// What a fetch plan is for: the rows, their IDs only, or their count.
package enum StoreFetchPurpose: Sendable {
    case snapshots
    case objectIDs
    case count
}

/// A fetch request prepared by one store (`PersistentStoreBackend.planFetch`).
package protocol StoreFetchPlan {
    /// The request the plan runs.
    var request: StoreFetchRequest { get }
}

/// The plan of a store that runs requests as they are (`evaluatesNatively` says whether it can).
package struct RequestFetchPlan: StoreFetchPlan {
    package let request: StoreFetchRequest
}

extension PersistentStoreBackend {
    /// Stores evaluate nothing themselves unless they say so.
    package func evaluatesNatively(_ request: StoreFetchRequest) -> Bool { false }

    /// Stores that evaluate requests directly plan nothing beyond the request itself; every store
    /// can list every row of its entities.
    package func planFetch(_ request: StoreFetchRequest, for purpose: StoreFetchPurpose, store: NSPersistentStore) throws -> (any StoreFetchPlan)? {
        request.isEveryRow || evaluatesNatively(request) ? RequestFetchPlan(request: request) : nil
    }

    package func fetchSnapshots(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> [RowSnapshot] {
        try fetchSnapshots(plan.request, store: store)
    }

    package func fetchObjectIDs(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> [NSManagedObjectID] {
        try fetchObjectIDs(plan.request, store: store)
    }

    package func countRows(_ plan: any StoreFetchPlan, store: NSPersistentStore) throws -> Int {
        try countRows(plan.request, store: store)
    }

    /// Stores number their rows through `allocatePrimaryKeys` unless they say so.
    package func permanentObjectIDs(for entities: [NSEntityDescription], store: NSPersistentStore) throws -> [NSManagedObjectID]? { nil }

    /// Stores run no batch requests unless they say so (Apple: batch requests are SQLite-only).
    /// Runs a batch request with no author or context name.
    package func executeBatch(_ request: StoreBatchRequest, store: NSPersistentStore) throws -> StoreBatchResult {
        try executeBatch(request, origin: StoreChangeOrigin(), store: store)
    }

    package func executeBatch(_ request: StoreBatchRequest, origin: StoreChangeOrigin, store: NSPersistentStore) throws -> StoreBatchResult {
        let kind: String
        switch request {
        case .insert: kind = "NSBatchInsertRequest"
        case .update: kind = "NSBatchUpdateRequest"
        case .delete: kind = "NSBatchDeleteRequest"
        }
        throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError,
                                 "The \(store.type) store does not support \(kind); batch requests run only on SQLite stores.",
                                 userInfo: [NSAffectedStoresErrorKey: [store]])
    }

    /// Stores keep no read snapshots unless they say so (Apple: query generations need a SQLite
    /// store in WAL mode).
    package var supportsReadSnapshots: Bool { false }

    package func makeReadSnapshot(store: NSPersistentStore) throws -> any Sendable {
        throw CoreDataError.make(NSCoreDataError,
                                 "The \(store.type) store \(store.url?.path ?? store.identifier ?? "") does not support query generations; only SQLite stores in WAL mode do.",
                                 userInfo: [NSAffectedStoresErrorKey: [store]])
    }

    /// Stores compute no dictionary results unless they say so.
    package func fetchDictionaries(_ request: StoreDictionaryRequest, store: NSPersistentStore) throws -> [NSDictionary]? { nil }
}

/// What a store needs of a `.dictionaryResultType` fetch request.
package struct StoreDictionaryRequest {
    /// The matching, sorting and paging part.
    package let fetch: StoreFetchRequest
    /// Property descriptions, `NSExpressionDescription`s or key paths; nil for every stored attribute.
    package let propertiesToFetch: [Any]?
    package let propertiesToGroupBy: [Any]?
    package let havingPredicate: NSPredicate?
    package let returnsDistinctResults: Bool

    init<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) {
        self.fetch = StoreFetchRequest(request, entity: entity, paging: true)
        self.propertiesToFetch = request.propertiesToFetch
        self.propertiesToGroupBy = request.propertiesToGroupBy
        self.havingPredicate = request.havingPredicate
        self.returnsDistinctResults = request.returnsDistinctResults
    }

    package init(fetch: StoreFetchRequest, propertiesToFetch: [Any]?, propertiesToGroupBy: [Any]? = nil,
                 havingPredicate: NSPredicate? = nil, returnsDistinctResults: Bool = false) {
        self.fetch = fetch
        self.propertiesToFetch = propertiesToFetch
        self.propertiesToGroupBy = propertiesToGroupBy
        self.havingPredicate = havingPredicate
        self.returnsDistinctResults = returnsDistinctResults
    }
}

/// The changes of one context save, in store form: built by the context, split by store by
/// the coordinator, written by each store in one transaction.
package struct StoreSaveRequest {
    /// New rows; their IDs (and references between them) may be temporary.
    package var inserted: [RowSnapshot] = []
    package var updated: [StoreUpdate] = []
    package var deleted: [StoreDelete] = []
    package var transactionAuthor: String?
    package var contextName: String?
    /// Metadata assigned since the last save, written in the same transaction.
    package var metadata: [String: Any]?

    package init() {}
}

/// One changed row.
package struct StoreUpdate {
    /// The row's new values; `version` is the new `Z_OPT`.
    package var snapshot: RowSnapshot
    /// The `Z_OPT` the context read; a different value in the store is a conflict.
    package var expectedVersion: Int64
    /// The slots that changed.
    package var changedIndices: [Int]
    /// The values the context read, for to-many diffs.
    package var committedValues: StoreValues
}

/// One deleted row.
package struct StoreDelete {
    package var objectID: NSManagedObjectID
    package var expectedVersion: Int64
    package var committedValues: StoreValues
}

/// The outcome of a store save.
package struct StoreSaveResult {
    /// The permanent ID of each inserted object that had a temporary one.
    package var permanentIDs = PermanentIDMap()
    /// Rows whose derived attributes the store recomputed while saving (SQLite triggers); the
    /// row cache drops them so the next read sees the stored values.
    package var derivedValueChanges: [NSManagedObjectID] = []
    /// The persistent-history transaction each store recorded for the save, by store identifier
    /// (empty when no store keeps history).
    package var historyTransactionNumbers: [String: Int64] = [:]
    package init() {}
}

/// Conflicts found by a store save; nothing was written.
package struct StoreSaveConflicts: Error {
    package var optimistic: [StoreOptimisticConflict] = []
    package var constraints: [StoreConstraintViolation] = []
    package init(optimistic: [StoreOptimisticConflict] = [], constraints: [StoreConstraintViolation] = []) {
        self.optimistic = optimistic
        self.constraints = constraints
    }
}

/// A row changed or deleted since the context read it.
package struct StoreOptimisticConflict {
    package var objectID: NSManagedObjectID
    package var expectedVersion: Int64
    /// The row as it is now; nil when it was deleted.
    package var current: RowSnapshot?
    package init(objectID: NSManagedObjectID, expectedVersion: Int64, current: RowSnapshot?) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.current = current
    }
}

/// A uniqueness constraint violated by a save.
package struct StoreConstraintViolation {
    /// The constraint's property names.
    package var constraint: [String]
    /// The objects of the save that hold the duplicate key (IDs as in the request).
    package var conflictingObjectIDs: [NSManagedObjectID]
    /// The stored row that already holds the key, if the conflict is with the store.
    package var databaseSnapshot: RowSnapshot?
    package init(constraint: [String], conflictingObjectIDs: [NSManagedObjectID], databaseSnapshot: RowSnapshot?) {
        self.constraint = constraint
        self.conflictingObjectIDs = conflictingObjectIDs
        self.databaseSnapshot = databaseSnapshot
    }
}

/// The IDs a save changed, for merging into other contexts.
package struct SavedChanges: Sendable {
    package var inserted: Set<NSManagedObjectID>
    package var updated: Set<NSManagedObjectID>
    package var deleted: Set<NSManagedObjectID>
}
