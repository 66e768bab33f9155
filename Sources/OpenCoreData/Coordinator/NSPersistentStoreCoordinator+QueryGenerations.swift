import Foundation

// MARK: - Query generations

extension NSPersistentStoreCoordinator {
    /// Throws unless every store supports query generations (SQLite stores in WAL mode), naming
    /// the first that does not.
    func checkSupportsQueryGenerations() throws {
        for store in persistentStores where !store.backend.supportsReadSnapshots {
            // The backend's default refusal carries the error that names the store.
            _ = try store.backend.makeReadSnapshot(store: store)
        }
    }

    /// A new query generation: a read snapshot of every store, taken now, one after the other
    /// (stores are separate files; nothing makes their snapshots one atomic moment).
    /// - Throws: `NSCoreDataError` naming a store that does not support query generations, or
    ///   the store's error when a snapshot cannot be taken.
    func makeReadGeneration() throws -> StoreReadGeneration {
        var snapshots: [ObjectIdentifier: any Sendable] = [:]
        for store in persistentStores {
            snapshots[ObjectIdentifier(store.backend)] = try store.backend.makeReadSnapshot(store: store)
        }
        return StoreReadGeneration(coordinator: ObjectIdentifier(self), snapshots: snapshots)
    }

    /// An object's row read from its store in the query generation the call is pinned to,
    /// bypassing the row cache both ways: the cache may hold rows newer than the generation,
    /// and rows of an old generation must not be served to unpinned contexts.
    func uncachedSnapshot(for objectID: NSManagedObjectID) throws -> RowSnapshot? {
        guard !objectID.isTemporaryID, let store = store(for: objectID) else { return nil }
        return try store.backend.snapshots(for: [objectID], store: store).first
    }
}
