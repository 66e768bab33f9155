import Foundation
import Testing
@testable import OpenCoreData

/// Sort descriptors lower to ORDER BY with collations that call memory's comparison, and give
/// the order memory gives; the seed app's queries run in SQL.
@Suite("Sort lowering and the seed app's queries")
struct SortLoweringTests {
    static let selectors: [Selector] = [.compare, .caseInsensitiveCompare, .localizedCompare,
                                        .localizedCaseInsensitiveCompare, .localizedStandardCompare, Selector("unknownSelector:")]

    @Test("Every selector, both directions, on strings, to-one paths and every attribute kind: SQL order = memory order",
          arguments: ["name", "city", "email", "department.name", "location.placeName", "homepage", "id", "avatar",
                      "balance", "birthday", "isActive", "rating", "salary", "age"])
    func sortsAgree(key: String) throws {
        let context = try TestModels.sqliteContext(LoweringTestModel.model())
        try LoweringTestModel.populate(context)
        try context.performAndWait {
            let coordinator = context.persistentStoreCoordinator!
            let entity = coordinator.managedObjectModel.entitiesByName["Person"]!
            let everyone = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
                .sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            for selector in Self.selectors {
                for ascending in [true, false] {
                    let descriptors = [NSSortDescriptor(key: key, ascending: ascending, selector: selector)]
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                    request.sortDescriptors = descriptors
                    #expect(coordinator.evaluatesNatively(StoreFetchRequest(request, entity: entity, paging: true), affectedStores: nil))
                    let fetched = try context.fetch(request).map(\.objectID.primaryKey)
                    let expected = everyone.sorted(using: descriptors).map(\.objectID.primaryKey)
                    #expect(fetched == expected, "\(key) \(selector) \(ascending ? "ascending" : "descending")")
                }
            }
        }
    }

    @Test("Sorts memory cannot reproduce in SQL stay in memory: comparators, to-many and object key paths")
    func unsortable() throws {
        let model = LoweringTestModel.model()
        let context = try TestModels.sqliteContext(model)
        context.performAndWait {
            let coordinator = context.persistentStoreCoordinator!
            let entity = model.entitiesByName["Person"]!
            for descriptor in [NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame },
                               NSSortDescriptor(key: "tags.name", ascending: true), NSSortDescriptor(key: "department", ascending: true),
                               NSSortDescriptor(key: "scores", ascending: true)] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.sortDescriptors = [descriptor]
                #expect(!coordinator.evaluatesNatively(StoreFetchRequest(request, entity: entity, paging: true), affectedStores: nil), "\(descriptor)")
            }
        }
    }

    @Test("The seed to-do queries run in SQL, paged and sorted by updatedAt descending, with memory's results")
    func seedQueries() throws {
        let model = TestModels.todoModel()
        let context = try TestModels.sqliteContext(model)
        let home = UUID(), work = UUID()
        let ids = try context.performAndWait {
            let homeTag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            homeTag.setValue(home, forKey: "tagId")
            homeTag.setValue("Home", forKey: "name")
            let workTag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            workTag.setValue(work, forKey: "tagId")
            var ids: [UUID] = []
            for index in 0..<40 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                let id = UUID()
                ids.append(id)
                todo.setValue(id, forKey: "todoId")
                todo.setValue(["Buy milk", "buy MÍLK", "Walk the dog", "Milkshake", "Call Zoë", nil][index % 6], forKey: "title")
                todo.setValue(index % 7 == 3 ? nil : Date(timeIntervalSinceReferenceDate: Double((index * 37) % 23) * 1000), forKey: "updatedAt")
                todo.setValue(NSSet(array: index % 3 == 0 ? [homeTag] : (index % 3 == 1 ? [homeTag, workTag] : [])), forKey: "tags")
            }
            try context.save()
            return ids
        }
        try context.performAndWait {
            let coordinator = context.persistentStoreCoordinator!
            let entity = model.entitiesByName["TodoEntity"]!
            let everything = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
                .sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            let queries: [(String, [Any])] = [("title CONTAINS[cd] %@", ["milk"]), ("ANY tags.tagId == %@", [home]), ("todoId = %@", [ids[17]])]
            for (format, arguments) in queries {
                for (offset, limit) in [(0, 0), (0, 5), (3, 4), (30, 10)] {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
                    request.predicate = NSPredicate(format: format, argumentArray: arguments)
                    request.sortDescriptors = [NSSortDescriptor(key: "updatedAt", ascending: false)]
                    request.fetchOffset = offset
                    request.fetchLimit = limit
                    #expect(coordinator.evaluatesNatively(StoreFetchRequest(request, entity: entity, paging: true), affectedStores: nil), "\(format)")
                    let fetched = try context.fetch(request).map(\.objectID)
                    let matching = everything.filter { request.predicate!.evaluate(with: $0) }.sorted(using: request.sortDescriptors!)
                    #expect(fetched == ObjectSorting.page(matching, offset: offset, limit: limit).map(\.objectID), "\(format) \(offset) \(limit)")
                    #expect(try context.count(for: request) == ObjectSorting.page(matching, offset: offset, limit: limit).count)
                }
            }
            let milk = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            milk.predicate = NSPredicate(format: "title CONTAINS[cd] %@", "milk")
            #expect(try context.count(for: milk) == 21)
        }
    }
}
