import Foundation
import Testing
@testable import OpenCoreData

@Suite("Fetching")
struct FetchTests {
    func seeded() throws -> NSManagedObjectContext {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            for index in 0..<10 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("todo \(index)", forKey: "title")
                todo.setValue(index, forKey: "priority")
            }
            try context.save()
        }
        return context
    }

    @Test("Limit and offset")
    func limitOffset() throws {
        let context = try seeded()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            request.fetchLimit = 3
            request.fetchOffset = 4
            let results = try context.fetch(request)
            #expect(results.count == 3)
            #expect(try context.count(for: request) == 3)
            request.fetchOffset = 9
            #expect(try context.fetch(request).count == 1)
        }
    }

    @Test("includesPendingChanges: unsaved inserts show, deletions don't; false ignores both")
    func pendingChanges() throws {
        let context = try seeded()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            let all = try context.fetch(request)
            context.delete(all[0])
            let fresh = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            let results = try context.fetch(request)
            #expect(results.count == 10)
            #expect(results.contains(fresh))
            #expect(!results.contains(all[0]))
            #expect(try context.count(for: request) == 10)
            request.includesPendingChanges = false
            let stored = try context.fetch(request)
            #expect(stored.count == 10)
            #expect(!stored.contains(fresh))
        }
    }

    @Test("Result types: object IDs, count, dictionaries")
    func resultTypes() throws {
        let context = try seeded()
        try context.performAndWait {
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "TodoEntity")
            ids.resultType = .managedObjectIDResultType
            #expect(try context.fetch(ids).count == 10)
            let count = NSFetchRequest<NSNumber>(entityName: "TodoEntity")
            count.resultType = .countResultType
            #expect(try context.fetch(count).first?.intValue == 10)
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["title"]
            let rows = try context.fetch(dictionaries)
            #expect(rows.count == 10)
            #expect(rows.allSatisfy { $0.count == 1 && $0["title"] is String })
            dictionaries.propertiesToFetch = ["done"]
            dictionaries.returnsDistinctResults = true
            #expect(try context.fetch(dictionaries).count == 1)
        }
    }

    @Test("Subentities are included unless includesSubentities is false")
    func subentities() throws {
        let animal = TestModels.entity("Animal", [TestModels.attribute("name", .stringAttributeType)])
        let dog = TestModels.entity("Dog", [TestModels.attribute("breed", .stringAttributeType)])
        animal.subentities = [dog]
        animal.isAbstract = false
        let model = NSManagedObjectModel()
        model.entities = [animal, dog]
        let context = try TestModels.inMemoryContext(model)
        try context.performAndWait {
            let rex = NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context)
            rex.setValue("Rex", forKey: "name")
            rex.setValue("collie", forKey: "breed")
            _ = NSEntityDescription.insertNewObject(forEntityName: "Animal", into: context)
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            #expect(try context.fetch(request).count == 2)
            request.includesSubentities = false
            #expect(try context.fetch(request).count == 1)
            let dogs = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Dog"))
            #expect(dogs.first?.value(forKey: "name") as? String == "Rex")
            #expect(dog.attributesByName.keys.sorted() == ["breed", "name"])
            #expect(dog.isKindOf(entity: animal))
        }
    }

    @Test("An unknown entity name throws instead of trapping")
    func unknownEntity() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        context.performAndWait {
            #expect(throws: (any Error).self) {
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Nope"))
            }
        }
    }
}
