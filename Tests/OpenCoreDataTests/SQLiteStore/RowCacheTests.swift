import Foundation
import Testing
@testable import OpenCoreData

@Suite("Row cache")
struct RowCacheTests {
    @Test("Cached rows are shared while a context holds them and dropped when it resets")
    func pinnedRows() throws {
        let url = TestStoreFiles.newStoreURL()
        let model = TestModels.todoModel()
        let writer = try TestModels.sqliteContext(model, url: url)
        let id = try writer.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: writer)
            todo.setValue("v1", forKey: "title")
            try writer.save()
            return todo.objectID
        }
        let coordinator = try #require(writer.persistentStoreCoordinator)
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let first = try reader.performAndWait { try reader.existingObject(with: id).value(forKey: "title") as? String }
        #expect(first == "v1")
        #expect(coordinator.isRowCached(id))

        // Another process (here: another coordinator on the same file) changes the row.
        let other = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try other.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            try other.fetch(request).first?.setValue("v2", forKey: "title")
            try other.save()
        }
        reader.performAndWait { reader.reset() }
        #expect(!coordinator.isRowCached(id))
        let second = try reader.performAndWait { try reader.existingObject(with: id).value(forKey: "title") as? String }
        #expect(second == "v2")
    }
}
