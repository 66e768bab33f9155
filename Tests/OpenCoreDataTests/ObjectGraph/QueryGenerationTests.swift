import Foundation
import Testing
@testable import OpenCoreData

/// Query generations (issue #17, Must 7): a context pinned to a generation keeps reading one
/// snapshot of a SQLite store (a held WAL read transaction) until it saves, merges, is reset
/// or is set again. Apple: "Accessing data when the store changes".
@Suite("Query generations")
struct QueryGenerationTests {
    /// A store file with people A (age 1, child B) and B (age 2), and a coordinator on it.
    struct Fixture {
        let url: URL
        let coordinator: NSPersistentStoreCoordinator
        let a: NSManagedObjectID
        let b: NSManagedObjectID
        static let model = TestModels.personModel()

        init() throws {
            url = TestStoreFiles.newStoreURL()
            coordinator = try Self.coordinator(url)
            let context = Self.context(coordinator)
            (a, b) = try context.performAndWait {
                let a = NSManagedObject(entity: Self.model.entitiesByName["Person"]!, insertInto: context)
                a.setValue("A", forKey: "name")
                a.setValue(1, forKey: "age")
                let b = NSManagedObject(entity: Self.model.entitiesByName["Person"]!, insertInto: context)
                b.setValue("B", forKey: "name")
                b.setValue(2, forKey: "age")
                b.setValue(a, forKey: "mother")
                try context.save()
                return (a.objectID, b.objectID)
            }
        }

        static func coordinator(_ url: URL) throws -> NSPersistentStoreCoordinator {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            return coordinator
        }

        static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        /// A new context on the fixture's coordinator.
        func context() -> NSManagedObjectContext { Self.context(coordinator) }

        /// A context on a second coordinator of the same file (as another process would be).
        func otherCoordinatorContext() throws -> NSManagedObjectContext { Self.context(try Self.coordinator(url)) }

        /// Inserts a person named `name` through `context` and saves.
        @discardableResult
        func insert(_ name: String, age: Int = 9, mother: NSManagedObjectID? = nil, in context: NSManagedObjectContext) throws -> NSManagedObjectID {
            try context.performAndWait {
                let person = NSManagedObject(entity: Self.model.entitiesByName["Person"]!, insertInto: context)
                person.setValue(name, forKey: "name")
                person.setValue(age, forKey: "age")
                if let mother { person.setValue(try context.existingObject(with: mother), forKey: "mother") }
                try context.save()
                return person.objectID
            }
        }
    }

    static func names(_ context: NSManagedObjectContext, _ predicate: NSPredicate? = nil) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = predicate
        return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    static func count(_ context: NSManagedObjectContext) throws -> Int {
        try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person"))
    }

    /// Pins `context` to the current generation and reads once, so the pin is taken now.
    static func pin(_ context: NSManagedObjectContext) throws {
        try context.setQueryGenerationFrom(.current)
        _ = try count(context)
    }

    // MARK: - Pinning

    @Test("queryGenerationToken is nil by default; after setQueryGenerationFrom(.current) it is set at the first read")
    func tokenPinsOnFirstRead() throws {
        let fixture = try Fixture()
        let context = fixture.context()
        try context.performAndWait {
            #expect(context.queryGenerationToken == nil)
            try context.setQueryGenerationFrom(.current)
            #expect(context.queryGenerationToken == nil)
            #expect(try Self.count(context) == 2)
            let token = try #require(context.queryGenerationToken)
            #expect(token != NSQueryGenerationToken.current)
            #expect(context.queryGenerationToken == token)
        }
    }

    @Test("The generation is the store's state at the first read, not at setQueryGenerationFrom(.current)")
    func pinTakenAtFirstRead() throws {
        let fixture = try Fixture()
        let context = fixture.context()
        try context.performAndWait { try context.setQueryGenerationFrom(.current) }
        try fixture.insert("C", in: try fixture.otherCoordinatorContext())
        try context.performAndWait { () throws in #expect(try Self.count(context) == 3) }
    }

    @Test("A pinned context does not see another coordinator's insert, update and delete: fetch, count, faults, existingObject")
    func pinnedContextIgnoresOtherCoordinator() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        try pinned.performAndWait { try Self.pin(pinned) }
        let other = try fixture.otherCoordinatorContext()
        let c = try fixture.insert("C", mother: fixture.a, in: other)
        try other.performAndWait {
            try other.existingObject(with: fixture.a).setValue(5, forKey: "age")
            other.delete(try other.existingObject(with: fixture.b))
            try other.save()
        }
        try pinned.performAndWait {
            #expect(try Self.names(pinned) == ["A", "B"])
            #expect(try Self.count(pinned) == 2)
            #expect(try Self.names(pinned, NSPredicate(format: "age == 1")) == ["A"])
            // Batched results fault their rows in batches, from the same generation.
            let batched = NSFetchRequest<NSManagedObject>(entityName: "Person")
            batched.fetchBatchSize = 1
            #expect(try pinned.fetch(batched).compactMap { $0.value(forKey: "age") as? Int }.sorted() == [1, 2])
            let a = pinned.object(with: fixture.a)
            #expect(a.value(forKey: "age") as? Int == 1)
            let children = try #require(a.value(forKey: "children") as? Set<NSManagedObject>)
            #expect(children.compactMap { $0.value(forKey: "name") as? String } == ["B"])
            #expect(try pinned.existingObject(with: fixture.b).value(forKey: "name") as? String == "B")
            #expect(throws: (any Error).self) { try pinned.existingObject(with: c) }
        }
        // An unpinned context on the pinned one's coordinator sees the new data.
        let live = fixture.context()
        try live.performAndWait { () throws in
            #expect(try Self.names(live) == ["A", "C"])
            #expect(live.object(with: fixture.a).value(forKey: "age") as? Int == 5)
        }
    }

    @Test("A pinned context's faults bypass the row cache: it neither reads newer cached rows nor leaves its old rows there")
    func rowCacheIsBypassed() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        try pinned.performAndWait { try Self.pin(pinned) }
        // Another context of the same coordinator saves a new age; its row is cached.
        let sibling = fixture.context()
        try sibling.performAndWait {
            try sibling.existingObject(with: fixture.a).setValue(7, forKey: "age")
            try sibling.save()
        }
        pinned.performAndWait { #expect(pinned.object(with: fixture.a).value(forKey: "age") as? Int == 1) }
        // Another coordinator updates B; the pinned context fires B's fault with the old row.
        let other = try fixture.otherCoordinatorContext()
        try other.performAndWait {
            try other.existingObject(with: fixture.b).setValue(8, forKey: "age")
            try other.save()
        }
        pinned.performAndWait { #expect(pinned.object(with: fixture.b).value(forKey: "age") as? Int == 2) }
        #expect(!fixture.coordinator.isRowCached(fixture.b))
        let live = fixture.context()
        live.performAndWait { #expect(live.object(with: fixture.b).value(forKey: "age") as? Int == 8) }
    }

    // MARK: - Advancing

    @Test("A pinned context's own save moves it to the generation after the save, named in DidSave's queryGeneration")
    func saveAdvances() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        let other = try fixture.otherCoordinatorContext()
        try pinned.performAndWait { try Self.pin(pinned) }
        let before = pinned.performAndWait { pinned.queryGenerationToken }
        try fixture.insert("C", in: other)
        let log = NotificationLog([.NSManagedObjectContextDidSave, NSManagedObjectContext.didSaveObjectIDsNotification], object: pinned)
        try fixture.insert("D", in: pinned)
        let posted = log.notifications.map { $0.userInfo?[NSManagedObjectContextQueryGenerationKey] as? NSQueryGenerationToken }
        try pinned.performAndWait {
            #expect(try Self.names(pinned) == ["A", "B", "C", "D"])
            let after = try #require(pinned.queryGenerationToken)
            #expect(after != before)
            #expect(posted == [after, after])
            #expect(NSManagedObjectContext.NotificationKey.queryGeneration.rawValue == NSManagedObjectContextQueryGenerationKey)
        }
        try fixture.insert("E", in: other)
        try pinned.performAndWait { () throws in #expect(try Self.count(pinned) == 4) }
    }

    @Test("A pinned context's save of a row another coordinator changed is an optimistic-locking conflict its merge policy resolves")
    func pinnedSaveResolvesConflicts() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        pinned.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        let a = try pinned.performAndWait { try Self.pin(pinned); return try pinned.existingObject(with: fixture.a) }
        let other = try fixture.otherCoordinatorContext()
        try other.performAndWait {
            try other.existingObject(with: fixture.a).setValue(5, forKey: "age")
            try other.save()
        }
        try pinned.performAndWait {
            #expect(a.value(forKey: "age") as? Int == 1)
            a.setValue("A2", forKey: "name")
            try pinned.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = NSPredicate(format: "name == 'A2'")
            let saved = try #require(try pinned.fetch(request).first)
            #expect(saved.value(forKey: "age") as? Int == 5)
        }
        let live = fixture.context()
        try live.performAndWait { () throws in
            let stored = try live.existingObject(with: fixture.a)
            #expect(stored.value(forKey: "name") as? String == "A2")
            #expect(stored.value(forKey: "age") as? Int == 5)
        }
    }

    @Test("An unpinned context's DidSave carries no query generation")
    func unpinnedSaveHasNoGeneration() throws {
        let fixture = try Fixture()
        let context = fixture.context()
        let log = NotificationLog([.NSManagedObjectContextDidSave], object: context)
        try fixture.insert("C", in: context)
        let info = log.notifications.first?.userInfo
        #expect(info?[NSInsertedObjectIDsKey] != nil)
        #expect(info?[NSManagedObjectContextQueryGenerationKey] == nil)
    }

    @Test("reset() and setQueryGenerationFrom(.current) move a pinned context to the current generation")
    func resetAndCurrentAdvance() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        let other = try fixture.otherCoordinatorContext()
        try pinned.performAndWait { try Self.pin(pinned) }
        try fixture.insert("C", in: other)
        try pinned.performAndWait { () throws in
            #expect(try Self.count(pinned) == 2)
            pinned.reset()
            #expect(try Self.count(pinned) == 3)
            #expect(pinned.queryGenerationToken != nil)
        }
        try fixture.insert("D", in: other)
        try pinned.performAndWait {
            #expect(try Self.count(pinned) == 3)
            try pinned.setQueryGenerationFrom(.current)
            #expect(pinned.queryGenerationToken == nil)
            #expect(try Self.count(pinned) == 4)
        }
        try fixture.insert("E", in: other)
        try pinned.performAndWait { () throws in #expect(try Self.count(pinned) == 4) }
    }

    @Test("Merging another context's DidSave moves a pinned context to the current generation")
    func mergeAdvances() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        let sibling = fixture.context()
        try pinned.performAndWait { try Self.pin(pinned) }
        let log = NotificationLog([.NSManagedObjectContextDidSave], object: sibling)
        try fixture.insert("C", in: sibling)
        let notification = try #require(log.notifications.first)
        try pinned.performAndWait { () throws in
            #expect(try Self.count(pinned) == 2)
            pinned.mergeChanges(fromContextDidSave: notification)
            #expect(try Self.count(pinned) == 3)
        }
    }

    @Test("Batch updates do not advance a pinned generation")
    func batchUpdateDoesNotAdvance() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        try pinned.performAndWait {
            try Self.pin(pinned)
            let token = pinned.queryGenerationToken
            let request = NSBatchUpdateRequest(entityName: "Person")
            request.propertiesToUpdate = ["age": 99]
            _ = try pinned.execute(request)
            #expect(try Self.names(pinned, NSPredicate(format: "age == 99")).isEmpty)
            #expect(pinned.queryGenerationToken == token)
        }
        let live = fixture.context()
        try live.performAndWait { () throws in #expect(try Self.names(live, NSPredicate(format: "age == 99")) == ["A", "B"]) }
    }

    // MARK: - Sharing and unpinning

    @Test("setQueryGenerationFrom(other.queryGenerationToken) reads the other context's generation")
    func sharingAToken() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        try pinned.performAndWait { try Self.pin(pinned) }
        try fixture.insert("C", in: try fixture.otherCoordinatorContext())
        let token = pinned.performAndWait { pinned.queryGenerationToken }
        let sharing = fixture.context()
        try sharing.performAndWait {
            try sharing.setQueryGenerationFrom(token)
            #expect(sharing.queryGenerationToken == token)
            #expect(try Self.count(sharing) == 2)
        }
    }

    @Test("setQueryGenerationFrom(nil) unpins: the token is nil and reads see the latest data")
    func nilUnpins() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        try pinned.performAndWait { try Self.pin(pinned) }
        try fixture.insert("C", in: try fixture.otherCoordinatorContext())
        try pinned.performAndWait {
            try pinned.setQueryGenerationFrom(nil)
            #expect(pinned.queryGenerationToken == nil)
            #expect(try Self.count(pinned) == 3)
        }
    }

    @Test("A token whose generation no context reads any more, or of another coordinator, is refused with NSCoreDataError")
    func releasedOrForeignTokenThrows() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        let token = try pinned.performAndWait {
            try Self.pin(pinned)
            let token = try #require(pinned.queryGenerationToken)
            try pinned.setQueryGenerationFrom(nil)
            return token
        }
        let context = fixture.context()
        try context.performAndWait { () throws in
            let error = #expect(throws: NSError.self) { try context.setQueryGenerationFrom(token) }
            #expect(error?.code == NSCoreDataError)
            #expect(context.queryGenerationToken == nil)
        }
        let holder = fixture.context()
        let held = try holder.performAndWait { try Self.pin(holder); return holder.queryGenerationToken }
        let foreign = try fixture.otherCoordinatorContext()
        try foreign.performAndWait { () throws in
            let error = #expect(throws: NSError.self) { try foreign.setQueryGenerationFrom(held) }
            #expect(error?.code == NSCoreDataError)
        }
        withExtendedLifetime(holder) {}
    }

    @Test("The in-memory store does not support query generations: setQueryGenerationFrom throws NSCoreDataError naming it")
    func inMemoryStoreRefuses() throws {
        let context = try TestModels.inMemoryContext(Fixture.model)
        try context.performAndWait {
            let error = #expect(throws: NSError.self) { try context.setQueryGenerationFrom(.current) }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSCoreDataError)
            #expect((error?.userInfo[NSAffectedStoresErrorKey] as? [NSPersistentStore])?.first?.type == NSInMemoryStoreType)
            #expect(context.queryGenerationToken == nil)
            // Unpinning is always allowed.
            try context.setQueryGenerationFrom(nil)
        }
    }

    @Test("Custom (NSIncrementalStore) stores do not support query generations; a SQLite store beside one does not help")
    func customStoreRefuses() throws {
        NSPersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.type)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todoModel())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: TestStoreFiles.newStoreURL())
        try coordinator.addPersistentStore(ofType: DictionaryStore.type, configurationName: nil, at: URL(fileURLWithPath: "/dictionary-store-qg"))
        let context = Fixture.context(coordinator)
        context.performAndWait {
            let error = #expect(throws: NSError.self) { try context.setQueryGenerationFrom(.current) }
            #expect(error?.code == NSCoreDataError)
            #expect((error?.userInfo[NSAffectedStoresErrorKey] as? [NSPersistentStore])?.first?.type == DictionaryStore.type)
            #expect(context.queryGenerationToken == nil)
        }
    }

    // MARK: - Tokens

    @Test("Tokens archive with NSKeyedArchiver secure coding and compare equal after a round trip; current stays current")
    func tokenArchiving() throws {
        let fixture = try Fixture()
        let pinned = fixture.context()
        let token = try pinned.performAndWait { try Self.pin(pinned); return try #require(pinned.queryGenerationToken) }
        for original in [token, NSQueryGenerationToken.current] {
            let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
            let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSQueryGenerationToken.self, from: data))
            #expect(decoded == original)
            #expect(decoded.copy() as? NSQueryGenerationToken == original)
        }
        #expect(token != NSQueryGenerationToken.current)
        // A decoded token names the same generation while a context still reads from it.
        try fixture.insert("C", in: try fixture.otherCoordinatorContext())
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSQueryGenerationToken.self, from: data))
        let sharing = fixture.context()
        try sharing.performAndWait {
            try sharing.setQueryGenerationFrom(decoded)
            #expect(try Self.count(sharing) == 2)
        }
        withExtendedLifetime(pinned) {}
    }
}
