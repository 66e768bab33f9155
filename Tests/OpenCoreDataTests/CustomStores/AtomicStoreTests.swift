import Foundation
import Testing
@testable import OpenCoreData

/// Apple's NSAtomicStore contract, checked on the example JSON file store.
@Suite("Atomic stores")
struct AtomicStoreTests {
    private func context(file: URL = ConformanceStoreKind.newAtomicFile()) throws -> (NSManagedObjectContext, JSONFileAtomicStore, URL) {
        let context = try ConformanceStoreKind.atomicContext(TestModels.todoModel(), file: file)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? JSONFileAtomicStore)
        return (context, store, file)
    }

    /// Saves a to-do at a location with two tags; returns the to-do's ID.
    private func saveGraph(in context: NSManagedObjectContext) throws -> NSManagedObjectID {
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("Write the store", forKey: "title")
            todo.setValue(3, forKey: "priority")
            let location = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
            location.setValue("Desk", forKey: "placeName")
            todo.setValue(location, forKey: "location")
            let tags = ["a", "b"].map { name -> NSManagedObject in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
                tag.setValue(name, forKey: "name")
                return tag
            }
            todo.setValue(Set(tags), forKey: "tags")
            try context.save()
            return todo.objectID
        }
    }

    @Test("load() runs when the store is added and registers a node per record, with nodes as relationship values")
    func loadBuildsNodes() throws {
        let (context, _, file) = try context()
        _ = try saveGraph(in: context)

        let (_, reopened, _) = try self.context(file: file)
        #expect(reopened.calls == ["load"])
        let nodes = reopened.cacheNodes()
        #expect(nodes.count == 4)
        let todo = try #require(nodes.first { $0.objectID.entity.name == "TodoEntity" })
        #expect(todo.value(forKey: "title") as? String == "Write the store")
        #expect((todo.value(forKey: "priority") as? NSNumber)?.intValue == 3)
        let location = try #require(todo.value(forKey: "location") as? NSAtomicStoreCacheNode)
        #expect(location.value(forKey: "placeName") as? String == "Desk")
        #expect(reopened.cacheNode(for: location.objectID) === location)
        let tags = try #require(todo.value(forKey: "tags") as? Set<NSAtomicStoreCacheNode>)
        #expect(Set(tags.compactMap { $0.value(forKey: "name") as? String }) == ["a", "b"])
        #expect(todo.propertyCache?["title"] as? String == "Write the store")
        #expect(reopened.referenceObject(for: todo.objectID) is Int64)
    }

    @Test("A save calls newReferenceObject and newCacheNode for inserts, updateCacheNode for updates, willRemoveCacheNodes for deletes, then save()")
    func saveOrder() throws {
        let (context, store, _) = try context()
        let id = try saveGraph(in: context)
        #expect(store.calls == ["load"] + Array(repeating: "newReferenceObject", count: 4) + Array(repeating: "newCacheNode", count: 4) + ["save"])

        let before = store.calls.count
        try context.performAndWait {
            let todo = try context.existingObject(with: id)
            todo.setValue("Renamed", forKey: "title")
            let location = try #require(todo.value(forKey: "location") as? NSManagedObject)
            context.delete(location)
            let extra = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            extra.setValue("c", forKey: "name")
            try context.save()
        }
        #expect(Array(store.calls[before...]) == ["newReferenceObject", "newCacheNode", "updateCacheNode", "willRemoveCacheNodes", "save"])
        #expect(store.cacheNodes().count == 4)
        let node = try #require(store.cacheNode(for: id))
        #expect(node.value(forKey: "title") as? String == "Renamed")
        #expect(node.value(forKey: "location") == nil)
    }

    @Test("A save() that throws leaves the cache and the file as they were, and the context's save throws an NSError")
    func failedSave() throws {
        let (context, store, file) = try context()
        let id = try saveGraph(in: context)
        let fileBefore = try Data(contentsOf: file)
        let nodesBefore = store.cacheNodes()
        store.failNextSave()
        try context.performAndWait {
            let todo = try context.existingObject(with: id)
            todo.setValue("Never saved", forKey: "title")
            context.delete(try #require(todo.value(forKey: "location") as? NSManagedObject))
            NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context).setValue("new", forKey: "name")
            do {
                try context.save()
                Issue.record("The save succeeded")
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain && error.code == NSFileWriteUnknownError)
            }
            // Nothing was saved: the context keeps its changes.
            #expect(context.hasChanges)
        }
        #expect(try Data(contentsOf: file) == fileBefore)
        #expect(store.cacheNodes() == nodesBefore)
        let node = try #require(store.cacheNode(for: id))
        #expect(node.value(forKey: "title") as? String == "Write the store")
        #expect(node.value(forKey: "location") is NSAtomicStoreCacheNode)

        // The failure is over: the same changes save.
        try context.performAndWait { try context.save() }
        #expect(store.cacheNode(for: id)?.value(forKey: "title") as? String == "Never saved")
    }

    @Test("Reopening the file gives the saved objects, values and relationships")
    func reopen() throws {
        let (context, _, file) = try context()
        let id = try saveGraph(in: context)
        let (again, store, _) = try self.context(file: file)
        #expect(store.identifier == context.persistentStoreCoordinator?.persistentStores.first?.identifier)
        try again.performAndWait {
            let todos = try again.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            #expect(todos.count == 1)
            let todo = try #require(todos.first)
            #expect(todo.objectID.uriRepresentation() == id.uriRepresentation())
            #expect(todo.value(forKey: "title") as? String == "Write the store")
            #expect((todo.value(forKey: "location") as? NSManagedObject)?.value(forKey: "placeName") as? String == "Desk")
            let tags = try #require(todo.value(forKey: "tags") as? Set<NSManagedObject>)
            #expect(Set(tags.compactMap { $0.value(forKey: "name") as? String }) == ["a", "b"])
            // New references continue after the saved ones.
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: again)
            try again.obtainPermanentIDs(for: [tag])
            #expect(store.referenceObject(for: tag.objectID) as? Int64 == 5)
        }
    }

    /// The titles, priorities and tag names in the file, read by a coordinator of its own.
    private func fileContents(_ file: URL) throws -> (titles: [String], priorities: [Int], tags: Set<String>) {
        let (reader, _, _) = try context(file: file)
        return try reader.performAndWait {
            let todos = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            let tags = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "TagEntity"))
            return (todos.compactMap { $0.value(forKey: "title") as? String }, todos.compactMap { $0.value(forKey: "priority") as? Int },
                    Set(tags.compactMap { $0.value(forKey: "name") as? String }))
        }
    }

    /// Apple's `NSErrorMergePolicy` fails a save of an object changed since it was read, with
    /// `NSManagedObjectMergeError`, and writes nothing; `NSMergeByPropertyObjectTrumpMergePolicy`
    /// saves the context's changed values over the stored ones. Here the other change comes
    /// from a second coordinator on the same file.
    @Test("Two coordinators on one file: a stale save fails under the error policy and writes nothing; objectTrump saves its values over the other's")
    func staleSaveFromAnotherCoordinator() throws {
        for objectTrump in [false, true] {
            let (first, _, file) = try context()
            let id = try saveGraph(in: first)
            let (second, _, _) = try context(file: file)
            let held = ObjectHolder()
            try second.performAndWait {
                let todo = try #require(try second.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")).first)
                #expect(todo.value(forKey: "title") as? String == "Write the store")
                held.object = todo
            }
            try first.performAndWait {
                let todo = try first.existingObject(with: id)
                todo.setValue("First", forKey: "title")
                todo.setValue(7, forKey: "priority")
                NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: first).setValue("c", forKey: "name")
                try first.save()
            }
            let savedByFirst = try Data(contentsOf: file)
            try StaleSave.save(second, held, objectTrump: objectTrump, persistedTitle: "First", "second coordinator")
            if !objectTrump { #expect(try Data(contentsOf: file) == savedByFirst, "the failed save wrote nothing") }
            let contents = try fileContents(file)
            #expect(contents.titles == [objectTrump ? "Second" : "First"])
            #expect(contents.priorities == [7], "the first coordinator's other change stays (objectTrump: \(objectTrump))")
            #expect(contents.tags == ["a", "b", "c"], "the first coordinator's insert stays (objectTrump: \(objectTrump))")
        }
    }

    /// A save writes the whole file, so it must not undo what another coordinator saved to
    /// other records since this one loaded the file (Apple: atomic stores are "read and written
    /// in their entirety").
    @Test("A save from a second coordinator keeps what the first saved to other records, and new references do not collide")
    func saveKeepsAnotherCoordinatorsChanges() throws {
        let (first, _, file) = try context()
        let id = try saveGraph(in: first)
        let (second, secondStore, _) = try context(file: file)
        try first.performAndWait {
            let todo = try first.existingObject(with: id)
            todo.setValue(9, forKey: "priority")
            NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: first).setValue("c", forKey: "name")
            try first.save()
        }
        try second.performAndWait {
            let location = try #require(try second.fetch(NSFetchRequest<NSManagedObject>(entityName: "LocationEntity")).first)
            location.setValue("Kitchen", forKey: "placeName")
            NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: second).setValue("d", forKey: "name")
            try second.save()
        }
        #expect(secondStore.calls.filter { $0 == "load" }.count == 2, "the second store read the file again before saving")
        let contents = try fileContents(file)
        #expect(contents.priorities == [9])
        #expect(contents.tags == ["a", "b", "c", "d"])
        let (reader, _, _) = try context(file: file)
        let place = try reader.performAndWait {
            try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "LocationEntity")).first?.value(forKey: "placeName") as? String
        }
        #expect(place == "Kitchen")
    }

    /// Bad files must never trap: reading one again fails the save with an NSError.
    @Test("A file another writer left unreadable fails the next save with an NSError; the cache and the context's changes stay")
    func unreadableFileFailsSave() throws {
        let (context, store, file) = try context()
        let id = try saveGraph(in: context)
        let nodesBefore = store.cacheNodes()
        try Data("not json".utf8).write(to: file)
        try context.performAndWait {
            try context.existingObject(with: id).setValue("Renamed", forKey: "title")
            do {
                try context.save()
                Issue.record("The save succeeded over an unreadable file")
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain)
            }
            #expect(context.hasChanges)
        }
        #expect(store.cacheNodes() == nodesBefore)
        #expect(store.cacheNode(for: id)?.value(forKey: "title") as? String == "Write the store")
        #expect(try Data(contentsOf: file) == Data("not json".utf8))
    }

    @Test("NSAtomicStoreCacheNode keeps values in propertyCache, made on the first non-nil value; nil removes a key")
    func cacheNode() throws {
        let (context, store, _) = try context()
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["TagEntity"])
        let id = store.objectID(for: entity, withReferenceObject: Int64(99))
        #expect(id == store.objectID(for: entity, withReferenceObject: Int64(99)))
        let node = NSAtomicStoreCacheNode(objectID: id)
        #expect(node.objectID == id && node.propertyCache == nil)
        node.setValue(nil, forKey: "name")
        #expect(node.propertyCache == nil)
        node.setValue("x", forKey: "name")
        #expect(node.value(forKey: "name") as? String == "x" && node.propertyCache?["name"] as? String == "x")
        node.setValue(nil, forKey: "name")
        #expect(node.value(forKey: "name") == nil)
        #expect(node.value(forKey: "objectID") as? NSManagedObjectID == id)
    }
}
