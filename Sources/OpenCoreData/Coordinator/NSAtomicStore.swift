import Foundation
import Synchronization

/// The base class of stores an app writes itself that read and write their whole file at once,
/// holding every record in memory as a cache node.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsatomicstore>. Subclass it,
/// register the subclass with `NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)`,
/// and override `loadMetadata()`, `load()`, `newReferenceObject(for:)`, `newCacheNode(for:)`,
/// `updateCacheNode(_:from:)` and `save()`. The coordinator reaches the store through
/// `AtomicStoreBackend`; docs/CustomStores.md shows the order of the calls.
///
/// `@unchecked Sendable`, restated from `NSPersistentStore`: the class adds `references`, which
/// is `Sendable`, and the cache nodes, behind a Mutex. Subclasses restate it too.
open class NSAtomicStore: NSPersistentStore, ReferenceObjectStore, @unchecked Sendable {
    /// The reference objects behind this store's object IDs.
    package let references = ReferenceObjectTable()
    /// The registered cache nodes by object ID key (keys are unique within the store).
    private struct Registry {
        var nodes: [Int64: NSAtomicStoreCacheNode] = [:]
        /// The nodes a `load()` run again registers (`reload(_:)`), kept apart until it
        /// finishes so that fetches meanwhile see the previous nodes, never a half-loaded file.
        var reloading: [Int64: NSAtomicStoreCacheNode]?
    }
    private let registry = Mutex(Registry())
    /// The store file as this store last loaded or saved it; a save compares it with the file
    /// to see another coordinator's save (`AtomicStoreBackend.reloadIfChangedElsewhere`).
    package let loadedFile = Mutex<AtomicStoreFileState?>(nil)

    package override class func makeCustomStoreBackend() -> any PersistentStoreBackend { AtomicStoreBackend() }

    // MARK: - Methods a subclass overrides

    /// Sets `metadata`, which must hold `NSStoreTypeKey` and `NSStoreUUIDKey`; called before
    /// `load()`. The base class sets nothing, so adding a store whose class does not override
    /// it fails.
    open override func loadMetadata() throws {}

    /// Reads the store's file and registers its records: for each one, an ID from
    /// `objectID(for:withReferenceObject:)`, a node from `NSAtomicStoreCacheNode(objectID:)`
    /// with its values set, then `addCacheNodes(_:)`. Called when the store is added, and again,
    /// with no nodes registered, before a save if another coordinator saved the file since
    /// (until it returns, `cacheNodes()` and `cacheNode(for:)` give the nodes it registered).
    ///
    /// The base class throws `NSPersistentStoreOperationError`.
    open func load() throws {
        throw notOverridden("load()")
    }

    /// Writes every registered cache node (and `metadata`) to the store's file. Called at the
    /// end of each save, after the nodes were created, updated and removed.
    ///
    /// The base class throws `NSPersistentStoreOperationError`.
    open func save() throws {
        throw notOverridden("save()")
    }

    /// A new node holding a newly inserted object's values (its ID is already permanent); the
    /// coordinator registers it. Called once per inserted object during a save.
    open func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        CoreDataError.programmerError("\(Swift.type(of: self)) does not override NSAtomicStore.newCacheNode(for:).")
    }

    /// Copies an updated object's values into its node. Called once per updated object during a save.
    open func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        CoreDataError.programmerError("\(Swift.type(of: self)) does not override NSAtomicStore.updateCacheNode(_:from:).")
    }

    /// A reference object for a new object (which still has its temporary ID), unique within
    /// its entity's hierarchy in this store and stable; its permanent ID is made from it.
    open func newReferenceObject(for managedObject: NSManagedObject) -> Any {
        CoreDataError.programmerError("\(Swift.type(of: self)) does not override NSAtomicStore.newReferenceObject(for:).")
    }

    /// Called during a save with the nodes of deleted objects, just before they are removed and
    /// `save()` is called; the base class does nothing.
    open func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {}

    // MARK: - Cache nodes

    /// Registers cache nodes with the store (from `load()`); a node replaces one with the same ID.
    ///
    /// A node whose ID belongs to another store is a programmer error.
    open func addCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        for node in cacheNodes where node.objectID.isTemporaryID || node.objectID.storeHandle !== handle {
            CoreDataError.programmerError("addCacheNodes(_:): \(node.objectID) was not made by objectID(for:withReferenceObject:) of this store.")
        }
        registry.withLock { registry in
            for node in cacheNodes {
                if registry.reloading != nil {
                    registry.reloading?[node.objectID.primaryKey] = node
                } else {
                    registry.nodes[node.objectID.primaryKey] = node
                }
            }
        }
    }

    /// The registered cache nodes.
    open func cacheNodes() -> Set<NSAtomicStoreCacheNode> {
        Set(registry.withLock { Array(($0.reloading ?? $0.nodes).values) })
    }

    /// The registered node of an object ID, or nil.
    open func cacheNode(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode? {
        guard !objectID.isTemporaryID, objectID.storeHandle === handle else { return nil }
        return registry.withLock { ($0.reloading ?? $0.nodes)[objectID.primaryKey] }
    }

    // MARK: - Reference objects

    /// The object ID of an entity's record named by a reference object (a string, a number, a
    /// UUID); the same entity and reference always give equal IDs.
    public func objectID(for entity: NSEntityDescription, withReferenceObject data: Any) -> NSManagedObjectID {
        makeObjectID(for: entity, reference: data)
    }

    /// The reference object an object ID of this store was made with.
    ///
    /// Passing an ID of another store, or a temporary ID, is a programmer error (Apple raises).
    public func referenceObject(for objectID: NSManagedObjectID) -> Any {
        reference(of: objectID, method: "referenceObject(for:)")
    }

    // MARK: - Coordinator access

    /// The registered nodes of these entities, in the order their IDs were first made.
    package func cacheNodes(of entities: [NSEntityDescription]) -> [NSAtomicStoreCacheNode] {
        let wanted = Set(entities.map(ObjectIdentifier.init))
        return registry.withLock { registry in
            registry.nodes.values.filter { wanted.contains(ObjectIdentifier($0.objectID.entity)) }
        }.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
    }

    /// The registered node of an ID for the coordinator's reads, which may run while a save
    /// reloads the file: the registered nodes, never those of an unfinished `load()`.
    package func registeredCacheNode(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode? {
        guard !objectID.isTemporaryID, objectID.storeHandle === handle else { return nil }
        return registry.withLock { $0.nodes[objectID.primaryKey] }
    }

    /// Runs `load()` again, from no nodes, to read a file another coordinator saved; `prepare`
    /// sees the loaded nodes before they replace the registered ones, all at once. If either
    /// throws, the registered nodes stay as they were.
    package func reload(preparing prepare: ([NSAtomicStoreCacheNode]) throws -> Void) throws {
        registry.withLock { $0.reloading = [:] }
        do {
            try load()
            let loaded = registry.withLock { Array(($0.reloading ?? [:]).values) }
            try prepare(loaded)
        } catch {
            registry.withLock { $0.reloading = nil }
            throw error
        }
        registry.withLock { registry in
            registry.nodes = registry.reloading ?? [:]
            registry.reloading = nil
        }
    }

    /// Unregisters nodes (after `willRemoveCacheNodes(_:)`).
    package func removeCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        registry.withLock { registry in
            for node in cacheNodes where registry.nodes[node.objectID.primaryKey] === node { registry.nodes[node.objectID.primaryKey] = nil }
        }
    }

    /// The registered nodes and each node's values, to put back if a save fails.
    package func cacheBackup() -> (nodes: [Int64: NSAtomicStoreCacheNode], values: [(NSAtomicStoreCacheNode, NSAtomicStoreCacheNode.Backup)]) {
        let registered = registry.withLock { $0.nodes }
        return (registered, registered.values.map { ($0, $0.backup()) })
    }

    /// Puts back what `cacheBackup()` returned.
    package func restoreCache(_ backup: (nodes: [Int64: NSAtomicStoreCacheNode], values: [(NSAtomicStoreCacheNode, NSAtomicStoreCacheNode.Backup)])) {
        for (node, values) in backup.values { node.restore(values) }
        registry.withLock { $0.nodes = backup.nodes }
    }

    // MARK: - URIs

    package override func uriReferenceComponent(for objectID: NSManagedObjectID) -> String? {
        referenceURIComponent(for: objectID)
    }

    package override func objectID(forURIReference component: String, entity: NSEntityDescription) -> NSManagedObjectID? {
        objectID(forReferenceURIComponent: component, entity: entity)
    }

    private func notOverridden(_ method: String) -> NSError {
        CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not override NSAtomicStore.\(method).")
    }
}
