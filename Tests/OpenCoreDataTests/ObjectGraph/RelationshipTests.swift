import Foundation
import Testing
@testable import OpenCoreData

@Suite("Relationships and inverses")
struct RelationshipTests {
    func insert(_ name: String, _ context: NSManagedObjectContext) -> NSManagedObject {
        NSEntityDescription.insertNewObject(forEntityName: name, into: context)
    }

    func set(_ object: NSManagedObject, _ key: String) -> Set<NSManagedObject> {
        (object.value(forKey: key) as? NSSet).map { Set($0.allObjects.compactMap { $0 as? NSManagedObject }) } ?? []
    }

    @Test("To-one with to-many inverse: both sides agree, reassigning moves the object")
    func toOneInverse() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            let todo = insert("TodoEntity", context)
            let home = insert("LocationEntity", context)
            let office = insert("LocationEntity", context)
            todo.setValue(home, forKey: "location")
            #expect(set(home, "todos") == [todo])
            todo.setValue(office, forKey: "location")
            #expect(set(home, "todos").isEmpty)
            #expect(set(office, "todos") == [todo])
            // From the to-many side.
            home.mutableSetValue(forKey: "todos").add(todo)
            #expect(todo.value(forKey: "location") as? NSManagedObject === home)
            #expect(set(office, "todos").isEmpty)
            #expect(context.graphInvariantViolations().isEmpty)
            try context.save()
            context.reset()
            let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            let location = try #require(fetched.first?.value(forKey: "location") as? NSManagedObject)
            #expect(set(location, "todos").count == 1)
            todo.setValue(nil, forKey: "location")
        }
    }

    @Test("Many-to-many from both sides survives a save and a reset")
    func manyToMany() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            let a = insert("TodoEntity", context), b = insert("TodoEntity", context)
            let red = insert("TagEntity", context), blue = insert("TagEntity", context)
            a.setValue("a", forKey: "title"); b.setValue("b", forKey: "title")
            red.setValue("red", forKey: "name"); blue.setValue("blue", forKey: "name")
            a.mutableSetValue(forKey: "tags").addObjects(from: [red, blue])
            blue.mutableSetValue(forKey: "todos").add(b)
            #expect(set(red, "todos") == [a])
            #expect(set(blue, "todos") == [a, b])
            #expect(set(b, "tags") == [blue])
            a.mutableSetValue(forKey: "tags").remove(blue)
            #expect(set(blue, "todos") == [b])
            #expect(context.graphInvariantViolations().isEmpty)
            try context.save()
            context.reset()
            let tags = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TagEntity"))
            let byName = Dictionary(uniqueKeysWithValues: tags.map { ($0.value(forKey: "name") as! String, $0) })
            let titles = { (tag: NSManagedObject) in Set(self.set(tag, "todos").compactMap { $0.value(forKey: "title") as? String }) }
            #expect(titles(byName["red"]!) == ["a"])
            #expect(titles(byName["blue"]!) == ["b"])
        }
    }

    @Test("Reflexive relationships: mother/children and symmetric friends")
    func reflexive() throws {
        let context = try TestModels.inMemoryContext(TestModels.personModel())
        try context.performAndWait {
            let mum = insert("Person", context), kid1 = insert("Person", context), kid2 = insert("Person", context)
            mum.setValue("Mum", forKey: "name"); kid1.setValue("Kid1", forKey: "name"); kid2.setValue("Kid2", forKey: "name")
            kid1.setValue(mum, forKey: "mother")
            mum.mutableSetValue(forKey: "children").add(kid2)
            #expect(kid2.value(forKey: "mother") as? NSManagedObject === mum)
            #expect(set(mum, "children") == [kid1, kid2])
            kid1.mutableSetValue(forKey: "friends").add(kid2)
            #expect(set(kid2, "friends") == [kid1])
            kid1.setValue(mum, forKey: "father")  // no inverse: nothing else changes
            #expect(set(mum, "children") == [kid1, kid2])
            #expect(context.graphInvariantViolations().isEmpty)
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            let people = Dictionary(uniqueKeysWithValues: try context.fetch(request).map { ($0.value(forKey: "name") as! String, $0) })
            #expect(set(people["Mum"]!, "children") == [people["Kid1"]!, people["Kid2"]!])
            #expect(set(people["Kid2"]!, "friends") == [people["Kid1"]!])
            #expect(people["Kid1"]!.value(forKey: "father") as? NSManagedObject === people["Mum"]!)
        }
    }

    @Test("Ordered to-many keeps its order and maintains the inverse")
    func ordered() throws {
        let list = TestModels.entity("List", [TestModels.attribute("name", .stringAttributeType)])
        let item = TestModels.entity("Entry", [TestModels.attribute("name", .stringAttributeType)])
        let entries = TestModels.relationship("entries", to: item, toMany: true, ordered: true)
        let owner = TestModels.relationship("list", to: list, toMany: false)
        TestModels.inverse(entries, owner)
        list.properties += [entries]
        item.properties += [owner]
        let model = NSManagedObjectModel()
        model.entities = [list, item]
        let context = try TestModels.inMemoryContext(model)
        try context.performAndWait {
            let todoList = insert("List", context)
            let ordered = todoList.mutableOrderedSetValue(forKey: "entries")
            for name in ["c", "a", "b"] {
                let entry = insert("Entry", context)
                entry.setValue(name, forKey: "name")
                ordered.add(entry)
            }
            let first = try #require((todoList.value(forKey: "entries") as? NSOrderedSet)?.firstObject as? NSManagedObject)
            #expect(first.value(forKey: "list") as? NSManagedObject === todoList)
            ordered.moveObjects(at: IndexSet(integer: 2), to: 0)
            try context.save()
            context.reset()
            let reloaded = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "List")).first)
            let names = (reloaded.value(forKey: "entries") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }
            #expect(names == ["b", "c", "a"])
        }
    }

    @Test("Removing a member and adding it back saves nothing and keeps the saved version", arguments: StoreKind.allCases)
    func cancelledChangeKeepsVersion(_ store: StoreKind) throws {
        let context = try store.context(TestModels.todoModel())
        try context.performAndWait {
            let todo = insert("TodoEntity", context)
            let tag = insert("TagEntity", context)
            todo.mutableSetValue(forKey: "tags").add(tag)
            try context.save()
            todo.mutableSetValue(forKey: "tags").remove(tag)
            todo.mutableSetValue(forKey: "tags").add(tag)
            try context.save()
            // Deleting updates the tag (nullify); its version must still match the store's.
            context.delete(todo)
            try context.save()
            #expect(set(tag, "todos").isEmpty)
        }
    }

    @Test("mutableOrderedSetValue(forKey:) answers contains(_:) for its members")
    func orderedProxyContains() throws {
        let context = try StoreKind.inMemory.context(ContextUndoModel.model())
        context.performAndWait {
            let folder = ContextUndoModel.insert("Folder", "f", context)
            let member = ContextUndoModel.insert("Note", "in", context)
            let other = ContextUndoModel.insert("Note", "out", context)
            let pinned = folder.mutableOrderedSetValue(forKey: "pinned")
            pinned.add(member)
            #expect(pinned.contains(member))
            #expect(!pinned.contains(other))
        }
    }

    @Test("Objects relate only within one context")
    func crossContextIsRejectedBeforeCorruption() throws {
        // Relating objects of two contexts is a programmer error (Apple raises); here we check
        // the guard's condition rather than trapping the test process.
        let model = TestModels.todoModel()
        let first = try TestModels.inMemoryContext(model)
        let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        second.persistentStoreCoordinator = first.persistentStoreCoordinator
        let todo = first.performAndWait { insert("TodoEntity", first) }
        let tag = second.performAndWait { insert("TagEntity", second) }
        #expect(todo.managedObjectContext !== tag.managedObjectContext)
    }
}
