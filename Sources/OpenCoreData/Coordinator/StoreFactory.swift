import Foundation

/// Makes the store of a type; the one place that knows every built-in store type.
package enum StoreFactory {
    static func makeStore(type: String, url: URL?, options: [AnyHashable: Any]?, configuration: String?,
                          model: NSManagedObjectModel) throws -> NSPersistentStore {
        switch type {
        case NSInMemoryStoreType:
            return NSPersistentStore(type: type, url: url, options: options, configurationName: configuration,
                                     identifier: UUID().uuidString, metadata: [
                                         NSStoreTypeKey: NSInMemoryStoreType,
                                         NSStoreModelVersionHashesKey: model.entityVersionHashesByName,
                                     ],
                                     backend: InMemoryStore())
        case NSSQLiteStoreType:
            // A description whose URL is /dev/null asks for an in-memory store (Apple's convention).
            if url?.path == "/dev/null" {
                return try makeStore(type: NSInMemoryStoreType, url: url, options: options, configuration: configuration, model: model)
            }
            guard let url else {
                throw CoreDataError.make(NSPersistentStoreOpenError, "An SQLite store needs a file URL.")
            }
            let opened = try SQLiteStore.open(url: url, options: options, model: model, configuration: configuration)
            return NSPersistentStore(type: type, url: url, options: options, configurationName: configuration,
                                     identifier: opened.uuid, metadata: opened.metadata, backend: opened.store)
        default:
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                     "Unsupported persistent store type '\(type)'; OpenCoreData provides '\(NSSQLiteStoreType)' and '\(NSInMemoryStoreType)'.")
        }
    }
}
