import Foundation
import Testing
@testable import OpenCoreData

/// A store without the metadata keys Apple requires.
final class MetadataLessStore: NSIncrementalStore, @unchecked Sendable {
    override func loadMetadata() throws { metadata = ["Other": 1] }
}

/// Apple's NSIncrementalStore contract, checked on the example JSON directory store.
@Suite("Incremental stores")
struct IncrementalStoreTests {
    private func context() throws -> (NSManagedObjectContext, URL) {
        let directory = ConformanceStoreKind.newDirectory()
        return (try ConformanceStoreKind.jsonContext(TestModels.todoModel(), directory: directory), directory)
    }

    @Test("registerStoreClass makes the type addable; the store is the registered class, loaded with its metadata")
    func registration() throws {
        JSONDirectoryStore.register()
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[JSONDirectoryStore.storeType] == JSONDirectoryStore.self)
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[NSSQLiteStoreType] != nil)
        let (context, directory) = try context()
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? JSONDirectoryStore)
        #expect(store.type == JSONDirectoryStore.storeType)
        #expect(store.url == directory)
        #expect(store.identifier == store.metadata[NSStoreUUIDKey] as? String)
        #expect(store.persistentStoreCoordinator === context.persistentStoreCoordinator)

        // A second coordinator on the directory reads the same UUID back.
        let again = try ConformanceStoreKind.jsonContext(TestModels.todoModel(), directory: directory)
        #expect(again.persistentStoreCoordinator?.persistentStores.first?.identifier == store.identifier)
    }

    @Test("Metadata without NSStoreUUIDKey and NSStoreTypeKey fails the add; an unregistered type is an invalid type")
    func metadataRequired() throws {
        NSPersistentStoreCoordinator.registerStoreClass(MetadataLessStore.self, forStoreType: "MetadataLess")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todoModel())
        #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: "MetadataLess", configurationName: nil, at: ConformanceStoreKind.newDirectory())
        }
        #expect(coordinator.persistentStores.isEmpty)
        do {
            try coordinator.addPersistentStore(ofType: "NeverRegistered", configurationName: nil, at: ConformanceStoreKind.newDirectory())
            Issue.record("An unregistered type was added")
        } catch let error as NSError {
            #expect(error.code == NSPersistentStoreInvalidTypeError)
        }
        NSPersistentStoreCoordinator.registerStoreClass(nil, forStoreType: "MetadataLess")
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes["MetadataLess"] == nil)
    }

    @Test("newObjectID(for:referenceObject:) gives equal IDs for one reference, referenceObject(for:) gives it back, and the URI carries it")
    func referenceObjects() throws {
        let (context, _) = try context()
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first as? NSIncrementalStore)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["TodoEntity"])
        let first = store.newObjectID(for: entity, referenceObject: "abc")
        let second = store.newObjectID(for: entity, referenceObject: "abc")
        let other = store.newObjectID(for: entity, referenceObject: "abd")
        #expect(first == second && first.hashValue == second.hashValue)
        #expect(first != other)
        #expect(!first.isTemporaryID && first.persistentStore === store)
        #expect(store.referenceObject(for: first) as? String == "abc")
        let numbered = store.newObjectID(for: entity, referenceObject: 42)
        #expect(store.referenceObject(for: numbered) as? Int == 42)

        let uri = first.uriRepresentation()
        #expect(uri.absoluteString == "x-coredata://\(store.identifier!)/TodoEntity/pabc")
        #expect(coordinator.managedObjectID(forURIRepresentation: uri) == first)
        #expect(numbered.uriRepresentation().absoluteString.hasSuffix("/TodoEntity/p42"))
    }

    @Test("A save reaches the store as an NSSaveChangesRequest of objects with permanent IDs named by the store")
    func saveWritesFiles() throws {
        let (context, directory) = try context()
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("Write the store", forKey: "title")
            try context.save()
            let store = try #require(todo.objectID.persistentStore as? NSIncrementalStore)
            let reference = try #require(store.referenceObject(for: todo.objectID) as? String)
            let file = directory.appendingPathComponent("TodoEntity/\(reference).json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            #expect((json["version"] as? NSNumber)?.intValue == 1)
            #expect((json["values"] as? [String: Any])?["title"] as? String == "Write the store")

            // obtainPermanentIDs(for:) asks the store for the IDs before any save.
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            try context.obtainPermanentIDs(for: [tag])
            #expect(!tag.objectID.isTemporaryID)
            #expect(store.referenceObject(for: tag.objectID) is String)
        }
    }

    @Test("execute(_:with:) returns objects, IDs, a count or dictionaries, as the fetch's resultType asks")
    func executeResultTypes() throws {
        let (context, _) = try context()
        try context.performAndWait {
            for (title, priority) in [("b", 2), ("a", 1), ("c", 3)] {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue(title, forKey: "title")
                todo.setValue(priority, forKey: "priority")
            }
            try context.save()
            let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? NSIncrementalStore)
            func request(_ type: NSFetchRequestResultType) -> NSFetchRequest<NSFetchRequestResult> {
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: "TodoEntity")
                request.predicate = NSPredicate(format: "priority >= 2")
                request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
                request.resultType = type
                return request
            }
            let objects = try #require(try store.execute(request(.managedObjectResultType), with: context) as? [NSManagedObject])
            #expect(objects.map { $0.value(forKey: "title") as? String } == ["c", "b"])
            #expect(objects.allSatisfy { $0.managedObjectContext === context })
            let ids = try #require(try store.execute(request(.managedObjectIDResultType), with: context) as? [NSManagedObjectID])
            #expect(ids == objects.map(\.objectID))
            let count = try #require(try store.execute(request(.countResultType), with: context) as? [NSNumber])
            #expect(count == [2])
            let limited = request(.dictionaryResultType)
            limited.propertiesToFetch = ["title"]
            limited.fetchLimit = 1
            let rows = try #require(try store.execute(limited, with: context) as? [NSDictionary])
            #expect(rows.count == 1 && rows.first?["title"] as? String == "c")
        }
    }

    @Test("NSIncrementalStoreNode holds values by property and a version; update replaces both")
    func node() throws {
        let (context, _) = try context()
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first as? NSIncrementalStore)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["TodoEntity"])
        let title = try #require(entity.propertiesByName["title"])
        let id = store.newObjectID(for: entity, referenceObject: "n")
        let node = NSIncrementalStoreNode(objectID: id, withValues: ["title": "x"], version: 1)
        #expect(node.objectID == id && node.version == 1 && node.value(for: title) as? String == "x")
        node.update(withValues: [:], version: 2)
        #expect(node.version == 2 && node.value(for: title) == nil)
    }

    @Test("A record removed behind the context's back is a missing object, not a crash")
    func missingRecord() throws {
        let (context, directory) = try context()
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("gone", forKey: "title")
            try context.save()
            let id = todo.objectID
            context.reset()
            try FileManager.default.removeItem(at: directory.appendingPathComponent("TodoEntity"))
            #expect(throws: NSError.self) { try context.existingObject(with: id) }
        }
    }
}
