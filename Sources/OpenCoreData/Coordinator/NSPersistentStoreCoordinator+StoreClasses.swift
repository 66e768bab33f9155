import Foundation
import Synchronization

// MARK: - Custom store classes

extension NSPersistentStoreCoordinator {
    /// Store classes registered by type string; process-wide, as Apple's registry is.
    private static let registeredClasses = Mutex<[String: NSPersistentStore.Type]>([:])

    /// Registers a store class (an `NSIncrementalStore` or `NSAtomicStore` subclass) under a type
    /// string; `addPersistentStore(ofType:…)` with that type then creates an instance of it.
    /// Passing nil removes the registration.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/registerstoreclass(_:forstoretype:)>.
    /// Apple takes `AnyClass?`; a class that is not an `NSPersistentStore` subclass stops with a message.
    public class func registerStoreClass(_ storeClass: AnyClass?, forStoreType storeType: String) {
        guard let storeClass else {
            _ = registeredClasses.withLock { $0.removeValue(forKey: storeType) }
            return
        }
        guard let persistentStoreClass = storeClass as? NSPersistentStore.Type else {
            CoreDataError.programmerError("registerStoreClass(_:forStoreType:): \(storeClass) is not a subclass of NSPersistentStore.")
        }
        registeredClasses.withLock { $0[storeType] = persistentStoreClass }
    }

    /// The store types a coordinator can add, by type string: the built-in ones and every
    /// registered class.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/registeredstoretypes>.
    /// Apple's values are `NSValue`s wrapping the classes; here they are the classes themselves.
    public class var registeredStoreTypes: [String: NSPersistentStore.Type] {
        var types: [String: NSPersistentStore.Type] = [NSSQLiteStoreType: NSPersistentStore.self, NSInMemoryStoreType: NSPersistentStore.self]
        types.merge(registeredClasses.withLock { $0 }) { _, registered in registered }
        return types
    }

    /// The store of a type: an instance of the registered class, else a built-in store.
    func makeStore(ofType storeType: String, configuration: String?, at storeURL: URL?,
                   options: [AnyHashable: Any]?) throws -> NSPersistentStore {
        guard let storeClass = Self.registeredClasses.withLock({ $0[storeType] }) else {
            return try StoreFactory.makeStore(type: storeType, url: storeURL, options: options,
                                              configuration: configuration, model: managedObjectModel)
        }
        guard let storeURL else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "A store of the custom type '\(storeType)' needs a URL.")
        }
        let store = storeClass.init(persistentStoreCoordinator: self, configurationName: configuration, at: storeURL, options: options)
        if store.type == "\(type(of: store))" { store.adoptRegisteredType(storeType) }
        try store.loadMetadata()
        // Apple: "The dictionary must include the store type (NSStoreTypeKey) and UUID (NSStoreUUIDKey)."
        let metadata = store.metadata ?? [:]
        guard let uuid = metadata[NSStoreUUIDKey] as? String, !uuid.isEmpty, metadata[NSStoreTypeKey] is String else {
            store.persistentStoreCoordinator = nil
            throw CoreDataError.make(NSPersistentStoreOpenError,
                                     "The store of type '\(storeType)' at \(storeURL.path) loaded metadata without NSStoreTypeKey and NSStoreUUIDKey.",
                                     userInfo: [NSURLErrorKey: storeURL])
        }
        store.identifier = uuid
        // Apple: an atomic store's `load()` is called when it is added, after its metadata.
        if let atomic = store as? NSAtomicStore {
            do {
                try atomic.load()
                atomic.loadedFile.withLock { $0 = AtomicStoreFileState(of: storeURL) }
            } catch {
                store.persistentStoreCoordinator = nil
                throw error
            }
        }
        // The metadata the store loaded is not a change to write back.
        if let pending = store.pendingMetadata() { store.metadataWasSaved(generation: pending.generation) }
        return store
    }
}

// MARK: - Permanent IDs of custom stores

extension NSPersistentStoreCoordinator {
    /// Permanent IDs when a custom store holds some of the entities (its IDs name its reference
    /// objects); nil when every entity's store numbers rows by primary key, the usual case.
    func customStorePermanentIDs(for entities: [NSEntityDescription], in chosenStore: NSPersistentStore?) throws -> [NSManagedObjectID]? {
        let candidates = chosenStore.map { [$0] } ?? persistentStores
        guard candidates.contains(where: { $0 is any ReferenceObjectStore }) else { return nil }
        var groups: [ObjectIdentifier: (store: NSPersistentStore, indices: [Int])] = [:]
        for (index, entity) in entities.enumerated() {
            guard let store = stores(for: entity.rootEntity, affectedStores: chosenStore.map { [$0] }).first else {
                throw CoreDataError.make(NSPersistentStoreSaveError, "No store of the coordinator holds entity '\(entity.name ?? "?")'.")
            }
            groups[ObjectIdentifier(store), default: (store, [])].indices.append(index)
        }
        var result = [NSManagedObjectID?](repeating: nil, count: entities.count)
        for (store, indices) in groups.values {
            let group = indices.map { entities[$0] }
            let ids = try store.backend.permanentObjectIDs(for: group, store: store) ?? permanentIDs(for: group, in: store)
            for (index, id) in zip(indices, ids) { result[index] = id }
        }
        return result.compactMap { $0 }
    }
}
