import OpenCoreData

/// The recipes model's Core Data stack, in memory.
public enum RecipeStore {
    /// A container for the bundled `Recipes.xcdatamodeld`, its in-memory store loaded.
    ///
    /// - Throws: When the model or the store can't be loaded.
    public static func makeContainer() throws -> NSPersistentContainer {
        let container = try NSPersistentContainer(loadingModelNamed: "Recipes", in: [Bundle.module])
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }
}
