import Foundation

/// The kind of a persistent store request.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    case fetchRequestType = 1
    case saveRequestType = 2
    case batchInsertRequestType = 5
    case batchUpdateRequestType = 6
    case batchDeleteRequestType = 7
}

/// The base class of requests a context runs against its stores.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorerequest>.
open class NSPersistentStoreRequest: NSObject {
    /// The stores to search; nil means all stores that hold the entity.
    open var affectedStores: [NSPersistentStore]?
    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}

/// What a fetch returns: objects, object IDs, dictionaries or a count.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchrequestresulttype>.
public struct NSFetchRequestResultType: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// Object IDs.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// Dictionaries of the `propertiesToFetch`.
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// A single `NSNumber` with the count.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// A description of objects to fetch: entity, predicate, sort, paging and result shape.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchrequest>.
/// `ResultType` is unconstrained so that `NSFetchRequest<NSFetchRequestResult>` compiles with
/// a Swift protocol; use the result types Apple documents.
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, NSCopying {
    private var _entity: NSEntityDescription?
    private var _entityName: String?

    /// The entity to fetch; set directly or resolved from `entityName` when the request runs.
    open var entity: NSEntityDescription? {
        get { _entity }
        set { _entity = newValue; _entityName = newValue?.name }
    }
    /// The name of the entity to fetch.
    open var entityName: String? { _entityName ?? _entity?.name }
    /// Which objects to fetch; nil fetches all.
    open var predicate: NSPredicate?
    /// How to order the results.
    open var sortDescriptors: [NSSortDescriptor]?
    /// The most objects to return; 0 means no limit.
    open var fetchLimit: Int = 0
    /// How many matching objects to skip.
    open var fetchOffset: Int = 0
    /// When non-zero, the result array loads its objects in batches of this size on access.
    open var fetchBatchSize: Int = 0
    /// Whether subentities' instances match too.
    open var includesSubentities = true
    /// Whether unsaved changes in the context are taken into account.
    open var includesPendingChanges = true
    /// The shape of the results.
    open var resultType: NSFetchRequestResultType = .managedObjectResultType
    /// The properties (names, descriptions or expression descriptions) of dictionary results.
    open var propertiesToFetch: [Any]?
    /// Whether dictionary results drop duplicates.
    open var returnsDistinctResults = false
    /// Whether row values are fetched (false fetches IDs and makes faults).
    open var includesPropertyValues = true
    /// Whether fetched objects stay faults until accessed.
    open var returnsObjectsAsFaults = true
    /// Relationship key paths whose destinations are fetched along.
    open var relationshipKeyPathsForPrefetching: [String]?
    /// Whether already-registered objects get the fetched values.
    open var shouldRefreshRefetchedObjects = false
    /// The properties dictionary results are grouped by.
    open var propertiesToGroupBy: [Any]?
    /// A filter on grouped results.
    open var havingPredicate: NSPredicate?

    /// Creates a request for an entity name.
    public init(entityName: String) {
        _entityName = entityName
        super.init()
    }

    /// Creates a request with no entity; set `entity` before running it.
    public override init() {
        super.init()
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        retyped(ResultType.self)
    }

    /// The same request with another result type parameter.
    package func retyped<Other>(_: Other.Type) -> NSFetchRequest<Other> {
        let copy = NSFetchRequest<Other>()
        copy._entity = _entity
        copy._entityName = _entityName
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.resultType = resultType
        copy.propertiesToFetch = propertiesToFetch
        copy.returnsDistinctResults = returnsDistinctResults
        copy.includesPropertyValues = includesPropertyValues
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.affectedStores = affectedStores
        return copy
    }

    package func setEntityName(_ name: String) { _entityName = name }

    open override var description: String {
        "<NSFetchRequest: entity: \(entityName ?? "nil"), predicate: \(predicate.map { "\($0)" } ?? "nil"), sortDescriptors: \(sortDescriptors.map { "\($0)" } ?? "nil"), limit: \(fetchLimit), offset: \(fetchOffset)>"
    }
}

/// A dictionary-result column computed by an expression (`count:`, `sum:`, …).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsexpressiondescription>.
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    /// The expression to evaluate.
    open var expression: NSExpression?
    /// The type of the expression's result.
    open var expressionResultType: NSAttributeType = .undefinedAttributeType

    public required init() {
        super.init()
        isTransient = true
    }
}
