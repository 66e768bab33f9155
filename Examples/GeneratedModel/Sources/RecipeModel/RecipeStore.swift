import OpenCoreData

/// The recipes model's Core Data stack.
public enum RecipeStore {
    /// A container for the bundled `Recipes.xcdatamodeld`, its store loaded.
    ///
    /// - Parameter storeURL: The SQLite file, or nil for an in-memory store.
    /// - Throws: When the model or the store can't be loaded.
    public static func makeContainer(storeURL: URL? = nil) throws -> NSPersistentContainer {
        let container = try NSPersistentContainer(loadingModelNamed: "Recipes", in: [Bundle.module])
        let description = storeURL.map(NSPersistentStoreDescription.init(url:)) ?? NSPersistentStoreDescription()
        if storeURL == nil { description.type = NSInMemoryStoreType }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }
}
