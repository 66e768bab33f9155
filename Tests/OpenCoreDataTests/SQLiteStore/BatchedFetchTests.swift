import Foundation
import Testing
@testable import OpenCoreData

/// A `fetchBatchSize` fetch returns faults that load a batch at a time. Iterating the result
/// keeps the rows of the last batches only: older unchanged objects turn back into faults,
/// and reading one again loads its batch again. (The in-memory store holds every row anyway.)
@Suite("Batched fetches")
struct BatchedFetchTests {
    static let rowCount = 3_000
    static let batchSize = 500

    private func makeContext() throws -> NSManagedObjectContext {
        try seeded(StoreKind.sqlite.context(TestModels.todoModel()))
    }

    /// Saves `rowCount` todos (priority = index) and resets the context.
    private func seeded(_ context: NSManagedObjectContext) throws -> NSManagedObjectContext {
        try context.performAndWait {
            for index in 0..<Self.rowCount {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("T\(index)", forKey: "title")
                todo.setValue(index, forKey: "priority")
            }
            try context.save()
            context.reset()
        }
        return context
    }

    private func batchedRequest() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
        request.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: true)]
        request.fetchBatchSize = Self.batchSize
        return request
    }

    @Test("Iterating releases the rows of batches left behind; reading them again reloads them")
    func releasesOldBatches() throws {
        let context = try makeContext()
        try context.performAndWait {
            let items = try context.fetch(batchedRequest())
            #expect(items.count == Self.rowCount)
            #expect(items.allSatisfy { $0.isFault })
            for (index, item) in items.enumerated() {
                #expect(item.value(forKey: "priority") as? Int == index)
            }
            // The window keeps about 2,000 rows: the last four batches of 500.
            let kept = BatchWindow.rowBudget
            #expect(items[..<(Self.rowCount - kept)].allSatisfy { $0.isFault })
            #expect(!items[(Self.rowCount - kept)...].contains { $0.isFault })
            // Reading an early object again loads its batch again, with the same values.
            #expect(items[7].value(forKey: "title") as? String == "T7")
            #expect(!items[7].isFault)
            #expect(items[8].value(forKey: "title") as? String == "T8")
            #expect(!context.hasChanges)
        }
    }

    @Test("Changed objects keep their values while their batch falls behind")
    func keepsChangedObjects() throws {
        let context = try makeContext()
        try context.performAndWait {
            let items = try context.fetch(batchedRequest())
            items[3].setValue("changed", forKey: "title")
            // Read without writing: the object materialized its values, but only a change counts.
            _ = items[4].value(forKey: "title")
            for item in items { _ = item.value(forKey: "priority") }
            #expect(!items[3].isFault)
            #expect(items[3].value(forKey: "title") as? String == "changed")
            #expect(items[4].isFault)
            #expect(context.updatedObjects == [items[3]])
            try context.save()
            context.reset()
            let check = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            check.predicate = NSPredicate(format: "priority == 3")
            #expect(try context.fetch(check).first?.value(forKey: "title") as? String == "changed")
        }
    }

    @Test("A row deleted elsewhere after its batch was released reads as a tombstone, not a crash")
    func deletedAfterRelease() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try seeded(TestModels.sqliteContext(TestModels.todoModel(), url: url))
        let items = try context.performAndWait {
            let items = try context.fetch(batchedRequest())
            for item in items { _ = item.value(forKey: "priority") }
            return items
        }
        let other = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try other.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            request.predicate = NSPredicate(format: "priority == 0")
            for object in try other.fetch(request) { other.delete(object) }
            try other.save()
        }
        context.performAndWait {
            #expect(items[0].isFault)
            #expect(items[0].value(forKey: "title") == nil)
            #expect(items[1].value(forKey: "title") as? String == "T1")
        }
    }
}
