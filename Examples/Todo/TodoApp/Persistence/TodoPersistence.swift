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

    /// The folder of one version of the bundled model (`Todo` is version 1, `Todo 2` the current
    /// one, which adds uniqueness constraints on the ids), so tests can write stores of older versions.
    static func modelVersionURL(_ version: String) -> URL? {
        Bundle.module.url(forResource: "Todo", withExtension: "xcdatamodeld")?
            .appendingPathComponent("\(version).xcdatamodel", isDirectory: true)
    }

    /// A container with its store loaded.
    ///
    /// A SQLite store keeps persistent history, so `todo watch` in another process can show what
    /// each command changed. A store written with an earlier version of the model is migrated
    /// (lightweight, the container's default) when it opens; it fails to open when the new
    /// uniqueness constraints don't hold for its rows (two to-dos with one `todoId`, say).
    ///
    /// - Parameters:
    ///   - storeURL: The SQLite file (created with its folder when missing), or nil for an
    ///     in-memory store.
    ///   - watchingRemoteChanges: Whether the coordinator posts `NSPersistentStoreRemoteChange`
    ///     after other processes' commits.
    /// - Throws: `TodoAppError` naming the store when it can't be opened.
    public static func makeContainer(storeURL: URL?, watchingRemoteChanges: Bool = false) throws -> NSPersistentContainer {
        let container = try NSPersistentContainer(loadingModelNamed: "Todo", in: [Bundle.module])
        container.managedObjectModel.registerManagedObjectClasses([TodoEntity.self, TagEntity.self, LocationEntity.self])
        let description: NSPersistentStoreDescription
        if let storeURL {
            description = NSPersistentStoreDescription(url: storeURL)
            description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
            if watchingRemoteChanges {
                description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
            }
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
