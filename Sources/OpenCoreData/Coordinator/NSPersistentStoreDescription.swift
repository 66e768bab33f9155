import Foundation

/// How to create and load a store: type, URL, configuration and options.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstoredescription>.
open class NSPersistentStoreDescription: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: configured on one thread before `loadPersistentStores`, read-only after.

    /// The store type; `NSSQLiteStoreType` by default.
    open var type: String = NSSQLiteStoreType
    /// The model configuration; nil for all entities.
    open var configuration: String?
    /// The store file; `/dev/null` makes an in-memory store.
    open var url: URL?
    /// The store options.
    open private(set) var options: [String: NSObject] = [:]
    /// Whether the store is opened read-only.
    open var isReadOnly = false
    /// The SQLite busy timeout, in seconds.
    open var timeout: TimeInterval = 240
    /// SQLite pragmas to set.
    open private(set) var sqlitePragmas: [String: NSObject] = [:]
    /// Whether the store is added on a background queue (loading is synchronous here).
    open var shouldAddStoreAsynchronously = false
    /// Whether to migrate automatically.
    open var shouldMigrateStoreAutomatically = true
    /// Whether to infer mapping models.
    open var shouldInferMappingModelAutomatically = true

    /// Creates a description for a store at a URL.
    public init(url: URL) {
        self.url = url
        super.init()
    }

    /// Creates a description with no URL.
    public override init() {
        super.init()
    }

    /// Sets an option.
    open func setOption(_ option: NSObject?, forKey key: String) {
        options[key] = option
    }

    /// Sets an SQLite pragma.
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        sqlitePragmas[name] = value
    }

    /// The options the coordinator receives.
    var optionsForStore: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [:]
        for (key, value) in options { result[key] = value }
        if isReadOnly { result[NSReadOnlyPersistentStoreOption] = true }
        result[NSPersistentStoreTimeoutOption] = timeout
        if !sqlitePragmas.isEmpty { result[NSSQLitePragmasOption] = sqlitePragmas }
        result[NSMigratePersistentStoresAutomaticallyOption] = shouldMigrateStoreAutomatically
        result[NSInferMappingModelAutomaticallyOption] = shouldInferMappingModelAutomatically
        return result
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreDescription()
        copy.type = type
        copy.configuration = configuration
        copy.url = url
        copy.options = options
        copy.isReadOnly = isReadOnly
        copy.timeout = timeout
        copy.sqlitePragmas = sqlitePragmas
        copy.shouldAddStoreAsynchronously = shouldAddStoreAsynchronously
        copy.shouldMigrateStoreAutomatically = shouldMigrateStoreAutomatically
        copy.shouldInferMappingModelAutomatically = shouldInferMappingModelAutomatically
        return copy
    }

    open override var description: String {
        "<NSPersistentStoreDescription> type: \(type), url: \(url?.path ?? "nil"), readOnly: \(isReadOnly)"
    }
}
