import Foundation

/// What the adapters of app-written stores (`NSIncrementalStore`, `NSAtomicStore` subclasses)
/// share: the store class each one serves (their fetches are evaluated by the context in memory,
/// `PersistentStoreBackend.evaluatesNatively`'s default).
protocol CustomStoreBackend: PersistentStoreBackend {
    /// The store class the adapter serves.
    associatedtype Store: NSPersistentStore
}

extension CustomStoreBackend {
    /// The store as the class this adapter serves. The coordinator pairs each store with the
    /// adapter its class makes, so any other store is a library bug, never outside input.
    func typed(_ store: NSPersistentStore) -> Store {
        guard let typed = store as? Store else {
            CoreDataError.programmerError("\(Self.self) serves \(Store.self) subclasses only; got \(store).")
        }
        return typed
    }
}
