import Foundation
import Testing
@testable import OpenCoreData

@Suite("Main-queue contexts")
struct MainQueueTests {
    @Test("The view context runs blocks on the main queue, from any thread, reentrantly")
    func viewContext() async throws {
        let container = NSPersistentContainer(name: "Main", managedObjectModel: TestModels.todoModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let context = container.viewContext
        #expect(context.concurrencyType == .mainQueueConcurrencyType)
        // On Linux, DispatchQueue.main.sync may run the block on the caller's thread, serialized
        // with the main queue; what matters is being on the context's queue.
        let onQueue = context.performAndWait { context.isOnQueue && context.performAndWait { context.isOnQueue } }
        #expect(onQueue)
        let count = try await context.perform {
            _ = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            try context.save()
            return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
        }
        #expect(count == 1)
    }

    @Test("@MainActor code uses the view context directly")
    @MainActor
    func mainActor() throws {
        let container = NSPersistentContainer(name: "Main", managedObjectModel: TestModels.todoModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: container.viewContext)
        todo.setValue("main", forKey: "title")
        try container.viewContext.save()
        #expect(try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) == 1)
    }

    /// Returns once every block the main queue held when it was called has run (the queue is FIFO).
    @MainActor
    static func nextMainQueueTurn() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
    }

    static func inMemoryContainer() -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Main", managedObjectModel: TestModels.todoModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        return container
    }

    @Test("A main-queue context posts ObjectsDidChange by itself when the main-queue turn that made changes ends")
    @MainActor
    func postsPendingChangesAtEndOfTurn() async throws {
        let container = Self.inMemoryContainer()
        let context = container.viewContext
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange], object: context)
        let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
        let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
        #expect(log.notifications.isEmpty)
        await Self.nextMainQueueTurn()
        // One notification for the whole turn.
        #expect(log.notifications.count == 1)
        #expect(log.notifications.last?.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> == [todo, tag])

        try context.save()
        let afterSave = log.notifications.count
        todo.setValue("changed", forKey: "title")
        context.delete(tag)
        await Self.nextMainQueueTurn()
        #expect(log.notifications.count == afterSave + 1)
        let note = log.notifications.last
        #expect(note?.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> == [todo])
        #expect(note?.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject> == [tag])

        // A turn without changes posts nothing.
        await Self.nextMainQueueTurn()
        #expect(log.notifications.count == afterSave + 1)
    }

    @Test("An explicit processPendingChanges() posts at once and leaves nothing for the end of the turn")
    @MainActor
    func explicitProcessingPostsOnce() async throws {
        let container = Self.inMemoryContainer()
        let context = container.viewContext
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange], object: context)
        _ = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
        context.processPendingChanges()
        #expect(log.notifications.count == 1)
        await Self.nextMainQueueTurn()
        #expect(log.notifications.count == 1)
    }

    @Test("A private-queue context does not post by itself between perform blocks' ends")
    func privateQueueWaitsForPerformToEnd() async throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange], object: context)
        await context.perform {
            _ = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            #expect(log.notifications.isEmpty)
        }
        #expect(log.notifications.count == 1)
    }
}
