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
}
