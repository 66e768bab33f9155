import OpenCoreData

/// The to-do app's Core Data stack: the bundled `Todo.xcdatamodeld` over one SQLite store.
public enum TodoPersistence {
    /// Where the store lives unless `--store` says otherwise:
    /// `NSPersistentContainer.defaultDirectoryURL()/todo/Todo.sqlite`.
    public static var defaultStoreURL: URL {
        NSPersistentContainer.defaultDirectoryURL()
            .appendingPathComponent("todo", isDirectory: true)
            .appendingPathComponent("Todo.sqlite")
    }

    /// A container with its store loaded.
    ///
    /// - Parameter storeURL: The SQLite file (created with its folder when missing), or nil for an
    ///   in-memory store.
    /// - Throws: `TodoAppError` naming the store when it can't be opened.
    public static func makeContainer(storeURL: URL?) throws -> NSPersistentContainer {
        let container = try NSPersistentContainer(loadingModelNamed: "Todo", in: [Bundle.module])
        container.managedObjectModel.registerManagedObjectClasses([TodoEntity.self, TagEntity.self, LocationEntity.self])
        let description: NSPersistentStoreDescription
        if let storeURL {
            description = NSPersistentStoreDescription(url: storeURL)
        } else {
            description = NSPersistentStoreDescription()
            description.type = NSInMemoryStoreType
        }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError {
            let reason = (loadError as NSError).localizedDescription
            throw TodoAppError("can't open the store at \(storeURL?.path ?? "memory"): \(reason)")
        }
        return container
    }
}
