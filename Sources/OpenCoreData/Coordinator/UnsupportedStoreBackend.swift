import Foundation

/// The backend of a direct `NSPersistentStore` subclass created through the public initializer:
/// such a class has no way to hold rows (Apple's custom stores subclass `NSIncrementalStore` or
/// `NSAtomicStore`), so every call fails with `NSPersistentStoreOperationError`.
final class UnsupportedStoreBackend: PersistentStoreBackend {
    private func unsupported(_ store: NSPersistentStore) -> NSError {
        CoreDataError.make(NSPersistentStoreOperationError,
                           "The store \(store.type) is a direct NSPersistentStore subclass; custom stores subclass NSIncrementalStore or NSAtomicStore.")
    }

    func fetchSnapshots(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [RowSnapshot] { throw unsupported(store) }
    func fetchObjectIDs(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> [NSManagedObjectID] { throw unsupported(store) }
    func countRows(_ request: StoreFetchRequest, store: NSPersistentStore) throws -> Int { throw unsupported(store) }
    func snapshots(for objectIDs: [NSManagedObjectID], store: NSPersistentStore) throws -> [RowSnapshot] { throw unsupported(store) }
    func destinations(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription, store: NSPersistentStore) throws -> [RowSnapshot] {
        throw unsupported(store)
    }
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int, store: NSPersistentStore) throws -> Int64 { throw unsupported(store) }
    func save(_ request: StoreSaveRequest, store: NSPersistentStore) throws -> StoreSaveResult { throw unsupported(store) }
    func close() {}
}
