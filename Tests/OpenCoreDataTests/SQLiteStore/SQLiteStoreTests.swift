import Foundation
import GRDB
import Synchronization
import Testing
@testable import OpenCoreData

/// SQLite-specific behaviour: SQL sorting and paging on stored rows, the metadata API.
@Suite("SQLite store")
struct SQLiteStoreTests {
    @Test("Sorted, paged fetches and sorts through a to-one run in SQL")
    func sqlSorting() throws {
        let context = try TestModels.sqliteContext(TestModels.todoModel())
        let coordinator = try #require(context.persistentStoreCoordinator)
        try context.performAndWait {
            let places = ["Zurich", "Athens", "Oslo"].map { name -> NSManagedObject in
                let place = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
                place.setValue(name, forKey: "placeName")
                return place
            }
            for index in 0..<6 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("T\(index)", forKey: "title")
                todo.setValue(index % 3, forKey: "priority")
                todo.setValue(places[index % 3], forKey: "location")
            }
            try context.save()
        }
        let persistentStore = try #require(coordinator.persistentStores.first)
        let store = try #require(persistentStore.backend as? SQLiteStore)
        let todo = coordinator.managedObjectModel.entitiesByName["TodoEntity"]!
        let titleSlot = todo.layout.indexByName["title"]!
        func titles(_ query: SQLFetchQuery) throws -> [String] {
            try store.fetchSnapshots(query, store: persistentStore).map { snapshot in
                if case .string(let title) = snapshot.values[titleSlot] { return title }
                return "?"
            }
        }
        #expect(try titles(SQLFetchQuery(entity: todo, sortKeys: [SQLSortKey("priority", ascending: false), SQLSortKey("title")], limit: 3, offset: 1))
                == ["T5", "T1", "T4"])
        #expect(try titles(SQLFetchQuery(entity: todo, sortKeys: [SQLSortKey("location.placeName"), SQLSortKey("title", ascending: false)]))
                == ["T4", "T1", "T5", "T2", "T3", "T0"])
        // Snapshots carry to-one destinations as IDs and leave to-many relationships unloaded.
        let first = try #require(try store.fetchSnapshots(SQLFetchQuery(entity: todo, limit: 1), store: persistentStore).first)
        #expect(first.values[todo.layout.indexByName["location"]!].objectIDValue != nil)
        #expect(first.values[todo.layout.indexByName["tags"]!] == .unloaded)
        #expect(first.version == 1)
    }

    @Test("Assigning store.metadata is written with the next save; a failed save writes neither rows nor metadata")
    func metadataAssignmentIsTransactional() throws {
        let note = TestModels.entity("Note", [TestModels.attribute("title", .stringAttributeType, optional: false)])
        let model = NSManagedObjectModel()
        model.entities = [note]
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(model, url: url)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        var metadata: [String: Any] = store.metadata
        metadata["Revision"] = 3
        store.metadata = metadata
        try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            #expect(throws: (any Error).self) { try context.save() }
            let afterFailure = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            #expect(afterFailure["Revision"] == nil)
            object.setValue("Fixed", forKey: "title")
            try context.save()
        }
        try coordinator.remove(store)
        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect((read["Revision"] as? NSNumber)?.intValue == 3)
        #expect(NSManagedObjectModel.versionHashes(inStoreMetadata: read) == model.entityVersionHashesByName)
    }

    @Test("setMetadata is written to Z_PLIST by the next save; metadataForPersistentStore reads it back without a coordinator")
    func metadataAPI() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        var metadata = coordinator.metadata(for: store)
        #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
        metadata["AppSchemaRevision"] = 7
        metadata["Importer"] = "nightly"
        coordinator.setMetadata(metadata, for: store)
        #expect(coordinator.metadata(for: store)["Importer"] as? String == "nightly")
        // Apple writes it "during the next save operation executed on" the store.
        let unsaved = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(unsaved["Importer"] == nil)
        try context.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            try context.save()
        }
        try coordinator.remove(store)

        var read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect((read["AppSchemaRevision"] as? NSNumber)?.intValue == 7)
        #expect(read["Importer"] as? String == "nightly")
        #expect(read[NSStoreUUIDKey] as? String == store.identifier)
        #expect(NSManagedObjectModel.versionHashes(inStoreMetadata: read) == TestModels.todoModel().entityVersionHashesByName)

        read["Importer"] = "manual"
        try NSPersistentStoreCoordinator.setMetadata(read, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
        let reopened = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        let reopenedStore = try #require(reopened.persistentStoreCoordinator?.persistentStores.first)
        #expect(reopened.persistentStoreCoordinator?.metadata(for: reopenedStore)["Importer"] as? String == "manual")
        #expect(reopenedStore.identifier == store.identifier)

        #expect(throws: (any Error).self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url.deletingLastPathComponent().appendingPathComponent("none.sqlite"))
        }
    }

    @Test("Object IDs survive reopening; URIs resolve against the store UUID")
    func reopen() throws {
        let url = TestStoreFiles.newStoreURL()
        let first = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        let uri = try first.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
            todo.setValue("persisted", forKey: "title")
            try first.save()
            return todo.objectID.uriRepresentation()
        }
        let second = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try second.performAndWait {
            let id = try #require(second.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
            #expect(try second.existingObject(with: id).value(forKey: "title") as? String == "persisted")
        }
    }

    @Test("Contexts on different queues read in parallel while another context saves")
    func concurrentReaders() throws {
        let url = TestStoreFiles.newStoreURL()
        let writer = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try writer.performAndWait {
            for index in 0..<500 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: writer)
                todo.setValue("T\(index)", forKey: "title")
            }
            try writer.save()
        }
        let coordinator = try #require(writer.persistentStoreCoordinator)
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            if worker == 0 {
                writer.performAndWait {
                    for batch in 0..<5 {
                        for index in 0..<100 {
                            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: writer)
                            todo.setValue("W\(batch)-\(index)", forKey: "title")
                        }
                        do { try writer.save() } catch { failures.withLock { $0 += 1 } }
                    }
                }
                return
            }
            let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            reader.persistentStoreCoordinator = coordinator
            reader.performAndWait {
                for _ in 0..<10 {
                    do {
                        let count = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")).count
                        // Each save is atomic: a reader sees whole batches only.
                        if count < 500 || count > 1_000 || count % 100 != 0 { failures.withLock { $0 += 1 } }
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let total = try writer.performAndWait { try writer.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) }
        #expect(total == 1_000)
    }
}
