import Foundation
import Testing
@testable import OpenCoreData

@Suite("Managed objects")
struct ManagedObjectTests {
    @Test("Insert, set values, save and fetch back")
    func insertSaveFetch() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            #expect(todo.isInserted)
            #expect(todo.objectID.isTemporaryID)
            #expect(todo.value(forKey: "done") as? Bool == false)
            todo.setValue("Buy milk", forKey: "title")
            todo.setValue(3, forKey: "priority")
            #expect(context.hasChanges)
            try context.save()
            #expect(!todo.isInserted)
            #expect(!todo.objectID.isTemporaryID)
            #expect(!context.hasChanges)

            let results = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            #expect(results.count == 1)
            #expect(results.first === todo)
            #expect(results.first?.value(forKey: "title") as? String == "Buy milk")
            #expect(results.first?.value(forKey: "priority") as? Int == 3)
            #expect(results.first?.value(forKey: "priority") as? Int16 == 3)
        }
    }

    @Test("Uniquing: one object per ID per context")
    func uniquing() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("A", forKey: "title")
            try context.save()
            let id = todo.objectID
            #expect(context.object(with: id) === todo)
            #expect(try context.existingObject(with: id) === todo)
            #expect(context.registeredObject(for: id) === todo)
            let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            #expect(fetched.first === todo)
            let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            second.persistentStoreCoordinator = context.persistentStoreCoordinator
            try second.performAndWait {
                let other = try second.existingObject(with: id)
                #expect(other !== todo)
                #expect(other.objectID == id)
                #expect(other.value(forKey: "title") as? String == "A")
            }
        }
    }

    @Test("Object IDs: temporary before save, permanent after, URI round trip")
    func objectIDs() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            #expect(todo.objectID.isTemporaryID)
            try context.obtainPermanentIDs(for: [todo])
            #expect(!todo.objectID.isTemporaryID)
            let permanent = todo.objectID
            try context.save()
            #expect(todo.objectID == permanent)
            let uri = permanent.uriRepresentation()
            #expect(uri.scheme == "x-coredata")
            #expect(uri.absoluteString.hasSuffix("/TodoEntity/p\(permanent.primaryKey)"))
            let coordinator = try #require(context.persistentStoreCoordinator)
            #expect(coordinator.managedObjectID(forURIRepresentation: uri) == permanent)
            #expect(coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/TodoEntity/p1")!) == nil)
            #expect(coordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com")!) == nil)
        }
    }

    @Test("changedValues, committedValues, hasPersistentChangedValues, rollback")
    func changeTracking() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("Old", forKey: "title")
            try context.save()
            #expect(todo.changedValues().isEmpty)
            #expect(!todo.hasPersistentChangedValues)
            todo.setValue("New", forKey: "title")
            #expect(todo.isUpdated)
            #expect(todo.hasChanges)
            #expect(todo.changedValues()["title"] as? String == "New")
            #expect(todo.committedValues(forKeys: ["title"])["title"] as? String == "Old")
            #expect(context.updatedObjects.contains(todo))
            context.rollback()
            #expect(todo.value(forKey: "title") as? String == "Old")
            #expect(!context.hasChanges)
            let fresh = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            context.rollback()
            #expect(fresh.managedObjectContext == nil)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) == 1)
        }
    }

    @Test("A new object's changedValues() lists the values it holds, never NSNull; it has no committed values until saved", arguments: StoreKind.allCases)
    func changeDictionariesOfNewObjects(_ kind: StoreKind) throws {
        let context = try kind.context(TestModels.todoModel())
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            todo.setValue("A", forKey: "title")
            todo.setValue(nil, forKey: "updatedAt")
            todo.mutableSetValue(forKey: "tags").add(tag)
            let changed = todo.changedValues()
            // title and tags were set; done and priority hold their model defaults. Unset
            // properties (todoId, updatedAt, location) and empty relationships are absent.
            #expect(Set(changed.keys) == ["title", "done", "priority", "tags"])
            #expect(!changed.values.contains { $0 is NSNull })
            #expect(changed["title"] as? String == "A")
            #expect(Set(tag.changedValues().keys) == ["todos"])
            #expect(todo.hasPersistentChangedValues)
            // Apple: committed values are the last fetched or saved ones; a new object has none.
            #expect(todo.committedValues(forKeys: nil).isEmpty)
            #expect(todo.committedValues(forKeys: ["title", "location"]).isEmpty)
            try context.save()
            #expect(todo.changedValues().isEmpty)
            let committed = todo.committedValues(forKeys: ["title", "updatedAt"])
            #expect(committed["title"] as? String == "A")
            #expect(committed["updatedAt"] is NSNull)
            #expect(Set(todo.committedValues(forKeys: nil).keys) == ["todoId", "title", "done", "priority", "updatedAt", "tags", "location"])
        }
    }

    @Test("committedValues(forKeys:) reports persistent properties only, and reads an unfired fault's row")
    func committedValuesOfTransientsAndFaults() throws {
        let context = try TestModels.inMemoryContext(RefreshResetTests.model())
        try context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue("saved", forKey: "title")
            note.setValue("scratch", forKey: "scratch")
            try context.save()
            #expect(note.committedValues(forKeys: ["title", "scratch"]).keys.sorted() == ["title"])
            let id = note.objectID
            context.reset()
            let fault = context.object(with: id)
            #expect(fault.isFault)
            #expect(fault.committedValues(forKeys: ["title"])["title"] as? String == "saved")
        }
    }

    @Test("Key paths through to-one relationships")
    func keyPaths() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            let location = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
            location.setValue("Home", forKey: "placeName")
            todo.setValue(location, forKey: "location")
            #expect(todo.value(forKeyPath: "location.placeName") as? String == "Home")
            todo.setValue("Office", forKeyPath: "location.placeName")
            #expect(location.value(forKey: "placeName") as? String == "Office")
        }
    }

    @Test("Faults: fetched objects are faults until accessed; refresh turns them back")
    func faults() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("A", forKey: "title")
            try context.save()
            context.reset()
            let fetched = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")).first)
            #expect(fetched.isFault)
            _ = fetched.value(forKey: "title")
            #expect(!fetched.isFault)
            context.refresh(fetched, mergeChanges: false)
            #expect(fetched.isFault)
            #expect(fetched.value(forKey: "title") as? String == "A")
        }
    }

    @Test("Lifecycle hooks run: awakeFromInsert, willSave, didSave, prepareForDeletion")
    func lifecycle() throws {
        let model = NSManagedObjectModel()
        model.entities = [TestModels.entity("Hooked", className: "HookedObject", [TestModels.attribute("name", .stringAttributeType), TestModels.attribute("log", .stringAttributeType)])]
        let context = try TestModels.inMemoryContext(model)
        try context.performAndWait {
            let object = HookedObject(context: context)
            #expect(object.value(forKey: "name") as? String == "awake")
            try context.save()
            #expect(object.events == ["willSave", "didSave"])
            context.delete(object)
            context.processPendingChanges()
            #expect(object.events.contains("prepareForDeletion"))
            let fetched = try context.fetch(NSFetchRequest<HookedObject>(entityName: "Hooked"))
            #expect(fetched.isEmpty)
        }
    }
}

final class HookedObject: NSManagedObject {
    var events: [String] = []
    override func awakeFromInsert() { setPrimitiveValue("awake", forKey: "name") }
    override func willSave() { events.append("willSave") }
    override func didSave() { events.append("didSave") }
    override func prepareForDeletion() { events.append("prepareForDeletion") }
}
