import OpenCoreData

/// The to-do app's Core Data stack: the model from this module's resources, in an in-memory store.
public enum TodoStore {
    /// A container for the bundled `Todo.xcdatamodeld`, its in-memory store loaded.
    ///
    /// - Throws: When the model or the store can't be loaded.
    public static func makeContainer() throws -> NSPersistentContainer {
        let container = try NSPersistentContainer(loadingModelNamed: "Todo", in: [Bundle.module])
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }
}
