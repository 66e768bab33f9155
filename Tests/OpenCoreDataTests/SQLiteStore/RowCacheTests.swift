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

@Suite("Closing a store")
struct StoreCloseTests {
    @Test("Removing a store checkpoints its WAL: the .sqlite file alone holds every row")
    func checkpointOnRemove() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try context.performAndWait {
            for index in 0..<200 {
                NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context).setValue("todo \(index)", forKey: "title")
            }
            try context.save()
        }
        let coordinator = try #require(context.persistentStoreCoordinator)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        let walPath = url.path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? 0
        #expect(walSize == 0)
        // A copy of the main file alone opens with all rows.
        let copy = TestStoreFiles.newStoreURL()
        try FileManager.default.copyItem(at: url, to: copy)
        let reader = try TestModels.sqliteContext(TestModels.todoModel(), url: copy)
        let count = try reader.performAndWait { try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) }
        #expect(count == 200)
    }

    @Test("A damaged Z_PLIST is an error, not a trap")
    func damagedMetadata() throws {
        for bytes in [Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40), Data([0x62, 0x70]), Data()] {
            #expect(throws: (any Error).self) { try SQLiteMetadata.decode(bytes) }
        }
    }
}
