import Foundation
import Testing
@testable import OpenCoreData

// MARK: - ManagedObjectPredicateTests

/// The seed to-do app's queries against real managed objects, through `NSFetchRequest`.
@Suite("Predicates on managed objects")
struct ManagedObjectPredicateTests {
    @Test("The seed app's queries and sort descriptors work in a fetch")
    func seedQueries() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            let homeID = UUID(), milkID = UUID()
            let home = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            home.setValue(homeID, forKey: "tagId")
            home.setValue("Home", forKey: "name")
            for (title, priority, id) in [("Buy Milk", 2, milkID), ("Write report", 5, UUID()), ("buy bread", 1, UUID())] {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue(title, forKey: "title")
                todo.setValue(priority, forKey: "priority")
                todo.setValue(id, forKey: "todoId")
                if title.lowercased().hasPrefix("buy") { todo.setValue(Set([home]), forKey: "tags") }
            }
            try context.save()

            func titles(_ format: String, _ arguments: Any...) throws -> [String] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
                request.predicate = NSPredicate(format: format, argumentArray: arguments)
                request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true, selector: .caseInsensitiveCompare)]
                return try context.fetch(request).compactMap { $0.value(forKey: "title") as? String }
            }
            #expect(try titles("title CONTAINS[cd] %@", "BUY") == ["buy bread", "Buy Milk"])
            #expect(try titles("ANY tags.tagId == %@", homeID) == ["buy bread", "Buy Milk"])
            #expect(try titles("todoId = %@", milkID) == ["Buy Milk"])
            #expect(try titles("priority > 1 AND tags.@count == 0") == ["Write report"])
            #expect(try titles("ANY tags.name ==[c] 'home' AND priority >= %d", 2) == ["Buy Milk"])
        }
    }

    @Test("Managed objects compare by object ID: with their IDs and across contexts, as SQL compares rows")
    func objectsCompareByID() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        let (todo, id) = try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            try context.save()
            return (todo, todo.objectID)
        }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        try other.performAndWait {
            let copy = try other.existingObject(with: id)
            #expect(NSPredicate(format: "SELF == %@", id).evaluate(with: copy))
            #expect(NSPredicate(format: "SELF == %@", todo).evaluate(with: copy))
            #expect(NSPredicate(format: "SELF IN %@", [id]).evaluate(with: copy))
            #expect(!NSPredicate(format: "SELF != %@", id).evaluate(with: copy))
            let fresh = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: other)
            #expect(!NSPredicate(format: "SELF == %@", id).evaluate(with: fresh))
            #expect(NSPredicate(format: "SELF == %@", fresh.objectID).evaluate(with: fresh))
        }
    }
}
