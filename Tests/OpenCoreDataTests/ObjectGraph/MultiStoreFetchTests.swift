import Foundation
import Testing
@testable import OpenCoreData

/// A coordinator with several stores for the same entities: Apple's fetches read every store,
/// sort the union and page it as one list (`NSFetchRequest.affectedStores` narrows the stores).
@Suite("Fetching across several stores")
struct MultiStoreFetchTests {
    /// A context over two SQLite stores and an in-memory one, with todos of priority 1…9 spread
    /// over them (1, 4, 7 in the first; 2, 5, 8 in the second; 3, 6, 9 in memory).
    static func context() throws -> (NSManagedObjectContext, [NSPersistentStore]) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todoModel())
        let first = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: TestStoreFiles.newStoreURL(), options: nil)
        let second = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: TestStoreFiles.newStoreURL(), options: nil)
        let memory = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let stores = [first, second, memory]
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws -> Void in
            for priority in 1...9 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("t\(priority)", forKey: "title")
                todo.setValue(priority, forKey: "priority")
                context.assign(todo, to: stores[(priority - 1) % 3])
            }
            try context.save()
        }
        return (context, stores)
    }

    static func request(_ format: String? = nil, limit: Int = 0, offset: Int = 0) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: true)]
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    @Test("A sorted, paged fetch pages the union of the stores' rows, not each store's")
    func pagedUnion() throws {
        let (context, _) = try Self.context()
        try context.performAndWait { () throws -> Void in
            let page = try context.fetch(Self.request("priority > 1", limit: 3, offset: 2))
            #expect(page.map { $0.value(forKey: "priority") as? Int } == [4, 5, 6])
            let all = try context.fetch(Self.request())
            #expect(all.map { $0.value(forKey: "priority") as? Int } == Array(1...9))
        }
    }

    @Test("count(for:) counts every store, with the offset and limit applied to the total")
    func countAcrossStores() throws {
        let (context, stores) = try Self.context()
        try context.performAndWait { () throws -> Void in
            #expect(try context.count(for: Self.request()) == 9)
            #expect(try context.count(for: Self.request("priority >= 3")) == 7)
            #expect(try context.count(for: Self.request("priority >= 3", limit: 4)) == 4)
            #expect(try context.count(for: Self.request("priority >= 3", offset: 5)) == 2)
            #expect(try context.count(for: Self.request("priority >= 3", limit: 4, offset: 5)) == 2)
            let narrowed = Self.request("priority >= 3")
            narrowed.affectedStores = [stores[1]]
            #expect(try context.count(for: narrowed) == 2)  // 5 and 8
            #expect(try context.fetch(narrowed).compactMap { $0.value(forKey: "priority") as? Int }.sorted() == [5, 8])
        }
    }

    @Test("Unsaved changes merge into a multi-store fetch and count")
    func pendingChanges() throws {
        let (context, _) = try Self.context()
        try context.performAndWait { () throws -> Void in
            let new = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            new.setValue(0, forKey: "priority")
            let first = try context.fetch(Self.request("priority == 9")).first
            first?.setValue(-1, forKey: "priority")
            let page = try context.fetch(Self.request("priority < 3", limit: 3))
            #expect(page.map { $0.value(forKey: "priority") as? Int } == [-1, 0, 1])
            #expect(try context.count(for: Self.request("priority < 3")) == 4)
        }
    }
}
