import Foundation

/// What a store implementation provides to the coordinator.
///
/// Stores see row snapshots (entity, primary key, version, values), never managed objects.
/// All methods are called synchronously from a context's queue; implementations are
/// thread-safe because several contexts use one store at once.
package protocol PersistentStoreBackend: AnyObject, Sendable {
    /// Whether the store evaluates this request's predicate and sort descriptors itself. When
    /// false, `fetchSnapshots` is called with a request stripped of predicate, sort and paging,
    /// and the context filters, sorts and pages the rows in memory.
    func evaluatesNatively(_ request: StoreFetchRequest) -> Bool

    /// The rows a request matches, sorted and paged as the request says.
    func fetchSnapshots(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot]

    /// The IDs of the rows a request matches.
    func fetchObjectIDs(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID]

    /// `fetchSnapshots` for a request the store evaluates natively; nil when it does not. One
    /// call instead of `evaluatesNatively` then `fetchSnapshots`, which translate the request twice.
    func fetchSnapshotsIfNative(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot]?

    /// `fetchObjectIDs` for a request the store evaluates natively; nil when it does not.
    func fetchObjectIDsIfNative(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID]?

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

    /// Closes files; called when the store is removed from its coordinator.
    func close()
}

extension PersistentStoreBackend {
    package func fetchSnapshotsIfNative(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot]? {
        evaluatesNatively(request) ? try fetchSnapshots(request, store: store) : nil
    }

    package func fetchObjectIDsIfNative(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID]? {
        evaluatesNatively(request) ? try fetchObjectIDs(request, store: store) : nil
    }

    /// Stores number their rows through `allocatePrimaryKeys` unless they say so.
    package func permanentObjectIDs(for entities: [NSEntityDescription], store: NSPersistentStore) throws -> [NSManagedObjectID]? { nil }

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

/// The changes of one context save, in store form.
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
    /// The permanent ID of each inserted object that had a temporary one, by the temporary ID's
    /// key (hashing a key needs no dynamic dispatch, unlike `NSManagedObjectID`'s `hash`/`isEqual`).
    package var permanentIDs: [ObjectKey: NSManagedObjectID] = [:]
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

extension NSEntityDescription {
    /// The property names of each uniqueness constraint (descriptions resolved to names).
    package var uniquenessConstraintNames: [[String]] {
        uniquenessConstraints.map { constraint in
            constraint.map { element in
                if let property = element as? NSPropertyDescription { return property.name }
                return element as? String ?? "\(element)"
            }
        }
    }

    /// The uniqueness constraints that apply to this entity, its ancestors' included.
    package var effectiveUniquenessConstraints: [[String]] {
        (superentity?.effectiveUniquenessConstraints ?? []) + uniquenessConstraintNames
    }
}
