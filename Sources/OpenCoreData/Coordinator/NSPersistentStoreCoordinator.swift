import Foundation
import Synchronization

/// Connects contexts to stores: it owns the stores, hands out object IDs and keeps a row cache.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator>.
/// The coordinator freezes its model: from then on the model is immutable and shared safely.
///
/// `@unchecked Sendable`: all mutable state lives in `state`, behind its Mutex; the model is frozen.
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    /// The model the coordinator's stores follow.
    public let managedObjectModel: NSManagedObjectModel

    private struct State: @unchecked Sendable {
        // @unchecked: only touched inside `state`'s lock.
        var stores: [NSPersistentStore] = []
        var contexts: [ObjectIdentifier: WeakContext] = [:]
        var rowCache: [ObjectKey: CachedRow] = [:]
        var name: String?
        /// Watchers of store files added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
        var changeMonitors: [ObjectIdentifier: SQLiteChangeMonitor] = [:]
    }
    private let state = Mutex(State())

    /// The most snapshots the row cache keeps before it is cleared.
    static let rowCacheLimit = 100_000

    /// Creates a coordinator for a model, freezing the model.
    public required init(managedObjectModel model: NSManagedObjectModel) {
        model.freeze()
        self.managedObjectModel = model
        super.init()
        ClassRegistry.shared.register(model: model)
    }

    /// A name for debugging.
    open var name: String? {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    /// The stores, in the order they were added.
    open var persistentStores: [NSPersistentStore] { state.withLock { $0.stores } }

    // MARK: - Adding and removing stores

    /// Adds a store of a type at a URL.
    /// - Throws: an `NSError` (`NSPersistentStoreInvalidTypeError`, `NSPersistentStoreOpenError`,
    ///   `NSPersistentStoreIncompatibleVersionHashError`, …) naming what is wrong; the file is untouched.
    @discardableResult
    open func addPersistentStore(ofType storeType: String, configurationName configuration: String?,
                                 at storeURL: URL?, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        if let configuration, !NSManagedObjectModel.isDefaultConfiguration(configuration),
           managedObjectModel.entities(forConfigurationName: configuration) == nil {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The model has no configuration named '\(configuration)'.")
        }
        let store = try makeStore(ofType: storeType, configuration: configuration, at: storeURL, options: options)
        store.persistentStoreCoordinator = self
        let monitor: SQLiteChangeMonitor?
        do {
            monitor = try startRemoteChangeMonitoring(store)
        } catch {
            store.backend.close()
            throw CoreDataError.make(NSPersistentStoreOpenError, "Cannot watch the store \(storeURL?.path ?? "") for remote changes: \(error)",
                                     userInfo: [NSUnderlyingErrorKey: error as NSError])
        }
        state.withLock { state in
            state.stores.append(store)
            if let monitor { state.changeMonitors[ObjectIdentifier(store)] = monitor }
        }
        postStoresDidChange(added: [store])
        return store
    }

    /// Adds a store of a `StoreType` (iOS 15 spelling).
    @discardableResult
    open func addPersistentStore(type: NSPersistentStore.StoreType, configuration: String? = nil,
                                 at storeURL: URL, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration, at: storeURL, options: options)
    }

    /// Adds the store a description describes and reports the outcome.
    open func addPersistentStore(with description: NSPersistentStoreDescription,
                                 completionHandler block: (NSPersistentStoreDescription, (any Error)?) -> Void) {
        do {
            try addPersistentStore(ofType: description.type, configurationName: description.configuration,
                                   at: description.url, options: description.optionsForStore)
            block(description, nil)
        } catch {
            block(description, error)
        }
    }

    /// Removes a store.
    open func remove(_ store: NSPersistentStore) throws {
        if store.persistentStoreCoordinator === self {
            NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
        }
        let removed = state.withLock { state -> (Bool, SQLiteChangeMonitor?) in
            guard let index = state.stores.firstIndex(where: { $0 === store }) else { return (false, nil) }
            state.stores.remove(at: index)
            state.rowCache = state.rowCache.filter { $0.value.snapshot.objectID.storeHandle !== store.handle }
            return (true, state.changeMonitors.removeValue(forKey: ObjectIdentifier(store)))
        }
        guard removed.0 else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store \(store) does not belong to this coordinator.")
        }
        removed.1?.stop()
        store.backend.close()
        store.persistentStoreCoordinator = nil
        postStoresDidChange(removed: [store])
    }

    /// The store at a URL, or nil.
    open func persistentStore(for url: URL) -> NSPersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The object ID a URI names, or nil when no store of this coordinator has it.
    open func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata", let host = url.host, !host.isEmpty else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        if parts.count == 2, parts[1].hasPrefix("p"), let store = persistentStores.first(where: { $0.identifier == host }),
           let entity = managedObjectModel.entitiesByName[parts[0]],
           let id = store.objectID(forURIReference: String(parts[1].dropFirst()), entity: entity) {
            return id
        }
        guard parts.count == 2, parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()), key > 0,
              let store = persistentStores.first(where: { $0.identifier == host }),
              let entity = managedObjectModel.entitiesByName[parts[0]] else { return nil }
        return NSManagedObjectID(entity: entity, primaryKey: key, store: store)
    }

    // MARK: - Metadata

    /// The metadata of a store of this coordinator.
    open func metadata(for store: NSPersistentStore) -> [String: Any] {
        store.metadata ?? [:]
    }

    /// Sets the metadata of a store; it is written with the next save that reaches the store,
    /// in that save's transaction.
    ///
    /// The store's type and UUID are always kept, and so are the model version keys when the
    /// new dictionary leaves them out: without them the file could not be opened again.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/setmetadata(_:for:)>.
    open func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        var merged = metadata ?? [:]
        let current = store.metadata ?? [:]
        for key in Self.storeManagedMetadataKeys where merged[key] == nil {
            merged[key] = current[key]
        }
        merged[NSStoreTypeKey] = store.type
        merged[NSStoreUUIDKey] = store.identifier
        store.metadata = merged
    }

    /// The metadata keys the store itself writes, kept when an app's dictionary omits them.
    private static let storeManagedMetadataKeys = [
        NSStoreModelVersionHashesKey, NSStoreModelVersionIdentifiersKey, NSStoreModelVersionHashesVersionKey,
        NSPersistenceFrameworkVersionKey, NSStoreModelVersionChecksumKey, SQLiteExternalData.bookkeepingKey,
    ]

    // MARK: - Contexts

    func register(_ context: NSManagedObjectContext) {
        state.withLock { $0.contexts[ObjectIdentifier(context)] = WeakContext(context: context) }
    }

    func unregister(_ context: NSManagedObjectContext) {
        state.withLock { $0.contexts[ObjectIdentifier(context)] = nil }
    }

    /// Tells the other contexts that merge automatically about a save.
    func contextDidSave(_ source: NSManagedObjectContext, changes: SavedChanges) {
        let targets = state.withLock { state in
            state.contexts.values.compactMap(\.context).filter { $0 !== source }
        }
        for context in targets where context.automaticallyMergesChangesFromParent {
            context.queue.async {
                context.mergeSavedChanges(changes)
            }
        }
    }

    // MARK: - Routing to stores

    func stores(for entity: NSEntityDescription, affectedStores: [NSPersistentStore]?) -> [NSPersistentStore] {
        let candidates = affectedStores ?? persistentStores
        return candidates.filter { store in
            store.entities(in: managedObjectModel).contains { $0 === entity || $0.name == entity.name }
        }
    }

    func store(for objectID: NSManagedObjectID) -> NSPersistentStore? {
        if let store = objectID.persistentStore, store.persistentStoreCoordinator === self { return store }
        return persistentStores.first { $0.identifier == objectID.storeIdentifier }
    }

    // MARK: - Reading

    /// Dictionary results computed by the one store that holds the entity, or nil when there
    /// are several stores or the store leaves the request to memory.
    func fetchDictionaries(_ request: StoreDictionaryRequest, affectedStores: [NSPersistentStore]?) throws -> [NSDictionary]? {
        let stores = stores(for: request.fetch.entity, affectedStores: affectedStores)
        guard stores.count == 1, let store = stores.first else { return nil }
        return try store.backend.fetchDictionaries(request, store: store)
    }

    /// The current row of an object: from the row cache, else the store (then cached, pinned by `context`).
    func snapshot(for objectID: NSManagedObjectID, pinnedBy context: NSManagedObjectContext) throws -> RowSnapshot? {
        if objectID.isTemporaryID { return nil }
        if let cached = state.withLock({ $0.rowCache[objectID.key]?.snapshot }) {
            pin([objectID], by: context)
            return cached
        }
        return try freshSnapshot(for: objectID, pinnedBy: context)
    }

    /// The current row of an object, read from its store; the row cache is updated and pinned by `context`.
    func freshSnapshot(for objectID: NSManagedObjectID, pinnedBy context: NSManagedObjectContext) throws -> RowSnapshot? {
        guard !objectID.isTemporaryID, let store = store(for: objectID) else { return nil }
        let snapshot = try store.backend.snapshots(for: [objectID], store: store).first
        if let snapshot { cacheSnapshots([snapshot], pinnedBy: context) }
        return snapshot
    }

    func snapshots(for objectIDs: [NSManagedObjectID]) throws -> [RowSnapshot] {
        var byStore: [ObjectIdentifier: (NSPersistentStore, [NSManagedObjectID])] = [:]
        for id in objectIDs {
            guard let store = store(for: id) else { continue }
            byStore[ObjectIdentifier(store), default: (store, [])].1.append(id)
        }
        var result: [RowSnapshot] = []
        for (store, ids) in byStore.values {
            result.append(contentsOf: try store.backend.snapshots(for: ids, store: store))
        }
        return result
    }

    /// Rows of objects from the row cache, the others from the stores; all cached and pinned by `context`.
    func cachedSnapshots(for objectIDs: [NSManagedObjectID], pinnedBy context: NSManagedObjectContext) throws -> [RowSnapshot] {
        var rows: [RowSnapshot] = []
        var missing: [NSManagedObjectID] = []
        state.withLock { state in
            for id in objectIDs where !id.isTemporaryID {
                if let cached = state.rowCache[id.key]?.snapshot { rows.append(cached) } else { missing.append(id) }
            }
        }
        pin(rows.map(\.objectID), by: context)
        if !missing.isEmpty {
            let fresh = try snapshots(for: missing)
            cacheSnapshots(fresh, pinnedBy: context)
            rows.append(contentsOf: fresh)
        }
        return rows
    }

    func destinations(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [RowSnapshot] {
        guard let store = store(for: objectID) else { return [] }
        return try store.backend.destinations(of: objectID, relationship: relationship, store: store)
    }

    // MARK: - Row cache

    /// Puts rows in the row cache, pinned by `context` until it resets or goes away.
    ///
    /// A row stays cached only while a context that loaded it is alive and not reset, as Apple
    /// drops rows no context holds; this keeps `existingObject(with:)` from serving a stale row.
    func cacheSnapshots(_ snapshots: [RowSnapshot], pinnedBy context: NSManagedObjectContext) {
        guard !snapshots.isEmpty else { return }
        // Whether each row is a new pin of the context, decided outside the lock (the pins are
        // the context's, on its queue); keys, not IDs: hashing an ID goes through NSObject.
        // A batch (a child's fetch) grows the tables once, not by doubling as it goes.
        let isBatch = snapshots.count >= 64
        // The pins are written through one access, not one exclusivity check per row.
        let isNewPin = Self.addPins(of: snapshots, to: &context.pinnedRows, reserving: isBatch)
        state.withLock { state in
            if state.rowCache.count + snapshots.count > Self.rowCacheLimit { state.rowCache.removeAll(keepingCapacity: true) }
            if isBatch { state.rowCache.reserveCapacity(state.rowCache.count + snapshots.count) }
            for (index, snapshot) in snapshots.enumerated() where !snapshot.objectID.isTemporaryID {
                // One hash lookup for a row not cached yet (a `default:` entry cost a closure
                // context per row); a cached row's entry keeps its pins, plus the new one.
                let key = snapshot.objectID.key
                guard let old = state.rowCache.updateValue(CachedRow(snapshot: snapshot, pins: 1), forKey: key) else { continue }
                let pins = max(old.pins + (isNewPin[index] ? 1 : 0), 1)
                if pins != 1 { state.rowCache[key]?.pins = pins }
            }
        }
    }

    /// Pins rows for a context; the keys it did not pin yet.
    private static func addPins(of ids: [NSManagedObjectID], to pins: inout Set<ObjectKey>) -> [ObjectKey] {
        ids.compactMap { id in pins.insert(id.key).inserted ? id.key : nil }
    }

    /// Pins rows for a context; whether each row is a new pin of it.
    private static func addPins(of snapshots: [RowSnapshot], to pins: inout Set<ObjectKey>, reserving: Bool) -> [Bool] {
        if reserving { pins.reserveCapacity(pins.count + snapshots.count) }
        var isNewPin: [Bool] = []
        isNewPin.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            isNewPin.append(!snapshot.objectID.isTemporaryID && pins.insert(snapshot.objectID.key).inserted)
        }
        return isNewPin
    }

    /// Records that `context` holds rows already in the cache.
    func pin(_ ids: [NSManagedObjectID], by context: NSManagedObjectContext) {
        let newPins = Self.addPins(of: ids, to: &context.pinnedRows)
        guard !newPins.isEmpty else { return }
        state.withLock { state in
            for key in newPins { state.rowCache[key]?.pins += 1 }
        }
    }

    /// Releases a context's pins; rows no context pins leave the cache.
    func unpin(_ keys: Set<ObjectKey>) {
        guard !keys.isEmpty else { return }
        state.withLock { state in
            for key in keys {
                guard var entry = state.rowCache[key] else { continue }
                entry.pins -= 1
                state.rowCache[key] = entry.pins > 0 ? entry : nil
            }
        }
    }

    /// After a save: refreshes rows that are cached (without caching new ones) and drops deleted rows.
    func updateCachedSnapshots(_ snapshots: [RowSnapshot], removing removed: [NSManagedObjectID]) {
        state.withLock { state in
            guard !state.rowCache.isEmpty else { return }
            for snapshot in snapshots {
                // Replaced in place: one hash lookup per row.
                if let index = state.rowCache.index(forKey: snapshot.objectID.key) {
                    state.rowCache.values[index].snapshot = snapshot
                }
            }
            for id in removed { state.rowCache[id.key] = nil }
        }
    }

    /// Drops the rows a batch request changed in a store from the row cache, so the next fault,
    /// refresh or `existingObject(with:)` reads them again. Contexts' pins of them are forgotten
    /// with the entries (`unpin` skips missing rows).
    func removeCachedRows(_ changes: StoreBatchChanges, store: NSPersistentStore) {
        state.withLock { state in
            guard !state.rowCache.isEmpty else { return }
            for group in changes.groups where group.kind != .insert {
                let root = group.entity.rootEntity
                for key in group.primaryKeys {
                    state.rowCache[ObjectKey(primaryKey: key, root: root, handle: store.handle)] = nil
                }
            }
            // Rows changed without their keys: every cached row of their hierarchy goes.
            let roots = Set(changes.unkeyed.filter { $0.kind != .insert }.map { ObjectIdentifier($0.entity.rootEntity) })
            if !roots.isEmpty {
                state.rowCache = state.rowCache.filter { _, cached in
                    let id = cached.snapshot.objectID
                    return id.storeHandle !== store.handle || !roots.contains(ObjectIdentifier(id.entity.rootEntity))
                }
            }
        }
    }

    /// Whether a row is in the row cache (for tests).
    package func isRowCached(_ id: NSManagedObjectID) -> Bool {
        state.withLock { $0.rowCache[id.key] != nil }
    }

    // MARK: - Writing

    /// Permanent IDs for new objects of these entities, reserved in their stores.
    /// With `store`, the IDs are reserved there (`assign(_:to:)`); the store must hold the entities.
    func permanentIDs(for entities: [NSEntityDescription], in chosenStore: NSPersistentStore? = nil) throws -> [NSManagedObjectID] {
        if let ids = try customStorePermanentIDs(for: entities, in: chosenStore) { return ids }
        var counts: [ObjectIdentifier: (NSEntityDescription, Int)] = [:]
        for entity in entities { counts[ObjectIdentifier(entity.rootEntity), default: (entity.rootEntity, 0)].1 += 1 }
        var next: [ObjectIdentifier: (NSPersistentStore, Int64)] = [:]
        for (key, (root, count)) in counts {
            guard let store = stores(for: root, affectedStores: chosenStore.map { [$0] }).first else {
                throw CoreDataError.make(NSPersistentStoreSaveError, "No store of the coordinator holds entity '\(root.name ?? "?")'.")
            }
            next[key] = (store, try store.backend.allocatePrimaryKeys(for: root, count: count, store: store))
        }
        return entities.map { entity in
            let key = ObjectIdentifier(entity.rootEntity)
            let (store, primaryKey) = next[key]!
            next[key] = (store, primaryKey + 1)
            return NSManagedObjectID(entity: entity, primaryKey: primaryKey, store: store)
        }
    }

    /// Saves a request, split by store.
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        let stores = persistentStores
        if stores.count == 1, let store = stores.first {
            try checkWritable(store)
            var request = request
            let pending = store.pendingMetadata()
            request.metadata = pending?.metadata
            let result = try store.backend.save(request, store: store)
            if let pending { store.metadataWasSaved(generation: pending.generation) }
            return result
        }
        var byStore: [ObjectIdentifier: (NSPersistentStore, StoreSaveRequest)] = [:]
        func bucket(_ store: NSPersistentStore) -> ObjectIdentifier {
            let key = ObjectIdentifier(store)
            if byStore[key] == nil {
                var empty = StoreSaveRequest()
                empty.transactionAuthor = request.transactionAuthor
                empty.contextName = request.contextName
                byStore[key] = (store, empty)
            }
            return key
        }
        for insert in request.inserted {
            let target = insert.objectID.isTemporaryID ? self.stores(for: insert.objectID.entity, affectedStores: nil).first : store(for: insert.objectID)
            guard let target else {
                throw CoreDataError.make(NSPersistentStoreSaveError, "No store of the coordinator holds entity '\(insert.objectID.entity.name ?? "?")'.")
            }
            byStore[bucket(target)]!.1.inserted.append(insert)
        }
        for update in request.updated {
            guard let target = store(for: update.snapshot.objectID) else { continue }
            byStore[bucket(target)]!.1.updated.append(update)
        }
        for delete in request.deleted {
            guard let target = store(for: delete.objectID) else { continue }
            byStore[bucket(target)]!.1.deleted.append(delete)
        }
        // Stores whose metadata was assigned take part in the save even without row changes.
        var pendingMetadata: [ObjectIdentifier: Int] = [:]
        for store in stores where !store.isReadOnly {
            guard let pending = store.pendingMetadata() else { continue }
            byStore[bucket(store)]!.1.metadata = pending.metadata
            pendingMetadata[ObjectIdentifier(store)] = pending.generation
        }
        var result = StoreSaveResult()
        for (store, storeRequest) in byStore.values {
            try checkWritable(store)
            let partial = try store.backend.save(storeRequest, store: store)
            if let generation = pendingMetadata[ObjectIdentifier(store)] { store.metadataWasSaved(generation: generation) }
            result.permanentIDs.merge(partial.permanentIDs)
            result.derivedValueChanges += partial.derivedValueChanges
            result.historyTransactionNumbers.merge(partial.historyTransactionNumbers) { _, new in new }
        }
        return result
    }

    func checkWritable(_ store: NSPersistentStore) throws {
        if store.isReadOnly {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store \(store.url?.path ?? store.type) was opened read-only; it cannot be saved to.",
                                     userInfo: [NSAffectedStoresErrorKey: [store]])
        }
    }
}

/// A cached row and how many contexts hold it.
struct CachedRow {
    var snapshot: RowSnapshot
    var pins: Int
}

/// Holds a context weakly in the coordinator's registry.
struct WeakContext: @unchecked Sendable {
    // @unchecked: NSManagedObjectContext is Sendable; the struct only exists to hold it weakly.
    weak var context: NSManagedObjectContext?
}
