import OpenCoreData
import Testing
@testable import TodoApp

/// Version 2 of Todo.xcdatamodeld adds uniqueness constraints on the ids; stores written with
/// version 1 open through lightweight migration (NSPersistentContainer's defaults).
@Suite("Todo model versions")
struct TodoModelMigrationTests {
    let folder: URL
    let storeURL: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("todo-migration-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        storeURL = folder.appendingPathComponent("Todo.sqlite")
    }

    static func model(_ version: String) throws -> NSManagedObjectModel {
        let url = try #require(TodoPersistence.modelVersionURL(version))
        return try #require(NSManagedObjectModel(contentsOf: url))
    }

    /// Writes a version-1 store holding one to-do per id in `todoIds`, each tagged "home".
    func writeVersion1Store(todoIds: [String]) throws {
        let container = NSPersistentContainer(name: "Todo", managedObjectModel: try Self.model("Todo"))
        let description = NSPersistentStoreDescription(url: storeURL)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)  // as the app's stores
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            tag.setValue(UUID().uuidString, forKey: "tagId")
            tag.setValue("home", forKey: "title")
            for (index, id) in todoIds.enumerated() {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue(id, forKey: "todoId")
                todo.setValue("Task \(index)", forKey: "title")
                todo.setValue(NSSet(object: tag), forKey: "tags")
            }
            try context.save()
        }
        for store in container.persistentStoreCoordinator.persistentStores {
            try container.persistentStoreCoordinator.remove(store)
        }
    }

    @Test("the bundled model's current version is Todo 2, with a uniqueness constraint on each id")
    func currentVersionHasConstraints() throws {
        let container = try TodoPersistence.makeContainer(storeURL: nil)
        let entities = container.managedObjectModel.entitiesByName
        #expect(entities["TodoEntity"]?.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["todoId"]])
        #expect(entities["TagEntity"]?.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["tagId"]])
        #expect(entities["LocationEntity"]?.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["id"]])
        #expect(try Self.model("Todo").entitiesByName["TodoEntity"]?.uniquenessConstraints.isEmpty == true)
    }

    @Test("a version-1 store migrates (inferred: only constraints added) and then upserts through its unique index")
    func version1StoreMigrates() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let ids = [UUID().uuidString, UUID().uuidString]
        try writeVersion1Store(todoIds: ids)
        let container = try TodoPersistence.makeContainer(storeURL: storeURL)
        let todos = TodoRepository(container: container)
        #expect(try await todos.stats() == TodoStats(todos: 2, done: 0, open: 2, tags: 1, locations: 0, untagged: 0))
        #expect(try await todos.get(ids[0]).tags.map(\.title) == ["home"])
        // A batch insert with uniqueness constraints is an `INSERT … ON CONFLICT` on the unique
        // index the migration created: without it SQLite refuses the statement.
        let archive = TodoArchive(format: "opencoredata-todo", version: 1, tags: [], locations: [],
                                  todos: [.init(todoId: ids[0], title: "Renamed")])
        let summary = try await ArchiveRepository(container: container).importArchive(TodoArchive.makeEncoder().encode(archive))
        #expect(summary == ImportSummary(todosUpdated: 1))
        #expect(try await todos.get(ids[0]).title == "Renamed")
        #expect(try await todos.stats().todos == 2)
    }

    @Test("a version-1 store holding two to-dos with one todoId fails to migrate with an NSError, unchanged")
    func duplicateIdsFailTheMigration() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let id = UUID().uuidString
        try writeVersion1Store(todoIds: [id, id])
        // The whole .xcdatamodeld: its current version (Todo 2), as NSPersistentContainer loads it.
        let bundleURL = try #require(TodoPersistence.modelVersionURL("Todo")).deletingLastPathComponent()
        let container = NSPersistentContainer(name: "Todo", managedObjectModel: try #require(NSManagedObjectModel(contentsOf: bundleURL)))
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        let error = try #require(loadError) as NSError
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSMigrationError)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
        // The app reports it as a store it can't open.
        #expect(throws: TodoAppError.self) { try TodoPersistence.makeContainer(storeURL: storeURL) }
        // The failed migration rolled back: version 1 still opens the store with both rows.
        let version1 = NSPersistentContainer(name: "Todo", managedObjectModel: try Self.model("Todo"))
        version1.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        var reopenError: (any Error)?
        version1.loadPersistentStores { _, error in reopenError = error }
        #expect(reopenError == nil)
        let context = version1.newBackgroundContext()
        let count = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) }
        #expect(count == 2)
    }
}
