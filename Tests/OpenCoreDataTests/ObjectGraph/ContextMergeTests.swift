import Foundation
import Synchronization
import Testing
@testable import OpenCoreData

/// Collects notifications posted by one context.
final class NotificationLog: @unchecked Sendable {
    // @unchecked: `tokens` is written only in init; the entries live in `storage`'s Mutex.
    private final class Storage: Sendable {
        let entries = Mutex<[UncheckedBox<Notification>]>([])
    }
    private let storage = Storage()
    private var tokens: [NSObjectProtocol] = []

    init(_ names: [Notification.Name], object: AnyObject) {
        let storage = self.storage
        for name in names {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { note in
                let box = UncheckedBox(note)
                storage.entries.withLock { $0.append(box) }
            })
        }
    }

    var notifications: [Notification] { storage.entries.withLock { $0.map(\.value) } }

    deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }
}

@Suite("Contexts, notifications and merging")
struct ContextMergeTests {
    @Test("ObjectsDidChange, WillSave and DidSave carry Apple's userInfo keys")
    func notifications() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange, .NSManagedObjectContextWillSave, .NSManagedObjectContextDidSave], object: context)
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            context.processPendingChanges()
            try context.save()
            todo.setValue("x", forKey: "title")
            try context.save()
            context.delete(todo)
            try context.save()
        }
        let notes = log.notifications
        let changes = notes.filter { $0.name == .NSManagedObjectContextObjectsDidChange }
        #expect((changes.first?.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        #expect(notes.filter { $0.name == .NSManagedObjectContextWillSave }.count == 3)
        let saves = notes.filter { $0.name == .NSManagedObjectContextDidSave }
        #expect(saves.count == 3)
        #expect((saves[0].userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        #expect((saves[0].userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>)?.first?.isTemporaryID == false)
        #expect((saves[1].userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        #expect((saves[2].userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        #expect((saves[2].userInfo?[NSDeletedObjectsKey] as? NSSet)?.count == 1)
    }

    @Test("Each ObjectsDidChange lists the objects changed since the last one, an object already changed included")
    func repeatedUpdatesArePostedAgain() throws {
        let context = try TestModels.sqliteContext(TestModels.todoModel())
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange], object: context)
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            try context.save()
            todo.setValue("first", forKey: "title")
            context.processPendingChanges()
            todo.setValue("second", forKey: "title")
            context.processPendingChanges()
            context.processPendingChanges()
        }
        let updates = log.notifications.compactMap { $0.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> }
        #expect(updates.count == 2)
        #expect(updates.allSatisfy { $0.count == 1 })
    }

    @Test("A save in one context is visible to another's fetch; mergeChanges updates registered objects")
    func mergeChanges() throws {
        let first = try TestModels.inMemoryContext(TestModels.todoModel())
        let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        second.persistentStoreCoordinator = first.persistentStoreCoordinator
        let id = try first.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
            todo.setValue("v1", forKey: "title")
            try first.save()
            return todo.objectID
        }
        let mirror = try second.performAndWait {
            let todo = try second.existingObject(with: id)
            #expect(todo.value(forKey: "title") as? String == "v1")
            return UncheckedBox(todo)
        }
        let log = NotificationLog([.NSManagedObjectContextDidSave], object: first)
        try first.performAndWait {
            try first.existingObject(with: id).setValue("v2", forKey: "title")
            let extra = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
            extra.setValue("extra", forKey: "title")
            try first.save()
        }
        let note = try #require(log.notifications.last)
        let noteBox = UncheckedBox(note)
        try second.performAndWait {
            #expect(mirror.value.value(forKey: "title") as? String == "v1")
            second.mergeChanges(fromContextDidSave: noteBox.value)
            #expect(mirror.value.value(forKey: "title") as? String == "v2")
            let total = try second.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            #expect(total == 2)
        }
        try first.performAndWait {
            first.delete(try first.existingObject(with: id))
            try first.save()
        }
        let deletion = UncheckedBox(try #require(log.notifications.last))
        second.performAndWait {
            second.mergeChanges(fromContextDidSave: deletion.value)
            #expect(second.registeredObject(for: id) == nil)
        }
    }

    /// A container on a store at /dev/null, and a background context that merges its saves.
    static func mergingContainer() -> (NSPersistentContainer, NSManagedObjectContext) {
        let container = NSPersistentContainer(name: "Merge", managedObjectModel: TestModels.todoModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let viewer = container.newBackgroundContext()
        viewer.automaticallyMergesChangesFromParent = true
        return (container, viewer)
    }

    @Test("automaticallyMergesChangesFromParent merges saves of sibling contexts")
    func automaticMerge() async throws {
        let (container, viewer) = Self.mergingContainer()
        let id = try await container.performBackgroundTask { context in
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("one", forKey: "title")
            try context.save()
            return todo.objectID
        }
        // The viewer keeps its object alive (contexts hold clean objects weakly, as Apple's do).
        let held = try await viewer.perform {
            let todo = try viewer.existingObject(with: id)
            #expect(todo.value(forKey: "title") as? String == "one")
            return UncheckedBox(todo)
        }
        try await container.performBackgroundTask { context in
            try context.existingObject(with: id).setValue("two", forKey: "title")
            try context.save()
        }
        // The merge was enqueued on the viewer's queue before this block.
        await viewer.perform(schedule: .enqueued) {
            #expect(viewer.registeredObject(for: id) === held.value)
            #expect(held.value.value(forKey: "title") as? String == "two")
        }
    }

    @Test("perform runs on the context's queue; performAndWait is reentrant and returns values")
    func performVariants() async throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        let count = try context.performAndWait {
            context.performAndWait { _ = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context) }
            try context.save()
            return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
        }
        #expect(count == 1)
        let name = await context.perform { context.isOnQueue ? "queue" : "elsewhere" }
        #expect(name == "queue")
        await withCheckedContinuation { continuation in
            context.perform {
                #expect(context.isOnQueue)
                continuation.resume()
            }
        }
    }

    @Test("Optimistic locking: a stale save fails with 133020 by default; policies resolve it")
    func optimisticLocking() throws {
        for (policy, expected) in [(NSMergePolicy.error, nil), (.mergeByPropertyObjectTrump, "mine"), (.mergeByPropertyStoreTrump, "theirs"),
                                   (.overwrite, "mine"), (.rollback, "theirs")] as [(NSMergePolicy, String?)] {
            let first = try TestModels.inMemoryContext(TestModels.todoModel())
            let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            second.persistentStoreCoordinator = first.persistentStoreCoordinator
            second.mergePolicy = policy
            let id = try first.performAndWait {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
                todo.setValue("base", forKey: "title")
                try first.save()
                return todo.objectID
            }
            try second.performAndWait {
                let mine = try second.existingObject(with: id)
                try first.performAndWait {
                    try first.existingObject(with: id).setValue("theirs", forKey: "title")
                    try first.save()
                }
                mine.setValue("mine", forKey: "title")
                if let expected {
                    try second.save()
                    let third = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                    third.persistentStoreCoordinator = first.persistentStoreCoordinator
                    let stored = try third.performAndWait { try third.existingObject(with: id).value(forKey: "title") as? String }
                    #expect(stored == expected, "policy \(policy.mergeType)")
                } else {
                    #expect {
                        try second.save()
                    } throws: { error in
                        let error = error as NSError
                        return error.code == NSManagedObjectMergeError && (error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.count == 1
                    }
                }
            }
        }
    }

    @Test("Uniqueness constraints: 133021 by default; merge policies turn the insert into an update")
    func constraints() throws {
        for policy in [NSMergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump] {
            let model = TestModels.todoModel()
            model.entitiesByName["TagEntity"]!.uniquenessConstraints = [["name"]]
            let context = try TestModels.inMemoryContext(model)
            context.mergePolicy = policy
            try context.performAndWait {
                let first = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
                first.setValue("home", forKey: "name")
                try context.save()
                let duplicate = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
                duplicate.setValue("home", forKey: "name")
                if policy === NSMergePolicy.error {
                    #expect {
                        try context.save()
                    } throws: { error in
                        let error = error as NSError
                        return error.code == NSManagedObjectConstraintMergeError
                            && (error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])?.first?.constraint == ["name"]
                    }
                } else {
                    try context.save()
                    #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TagEntity")) == 1)
                    #expect(duplicate.objectID == first.objectID || duplicate.managedObjectContext == nil || !duplicate.isInserted)
                }
            }
        }
    }

    // MARK: - How a merge is reported (the merging context's ObjectsDidChange)

    /// Two private-queue contexts on one coordinator, so object IDs are shared.
    static func contexts(_ kind: StoreKind) throws -> (saver: NSManagedObjectContext, merger: NSManagedObjectContext) {
        let saver = try kind.context(TestModels.todoModel())
        let merger = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        merger.persistentStoreCoordinator = saver.persistentStoreCoordinator
        return (saver, merger)
    }

    /// Runs `body` on the saver, saves, and returns the DidSave notification.
    static func save(_ saver: NSManagedObjectContext, _ body: () throws -> Void) throws -> UncheckedBox<Notification> {
        let log = NotificationLog([.NSManagedObjectContextDidSave], object: saver)
        try saver.performAndWait {
            try body()
            try saver.save()
        }
        return UncheckedBox(try #require(log.notifications.last))
    }

    /// Merges a DidSave notification and returns the ObjectsDidChange notifications the merge posted.
    static func merge(_ note: UncheckedBox<Notification>, into merger: NSManagedObjectContext) -> [Notification] {
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange], object: merger)
        merger.performAndWait { merger.mergeChanges(fromContextDidSave: note.value) }
        return log.notifications
    }

    static func objects(_ note: Notification?, _ key: String) -> Set<NSManagedObject>? {
        note?.userInfo?[key] as? Set<NSManagedObject>
    }

    @Test("Objects inserted by the other context are registered as faults and listed under NSInsertedObjectsKey", arguments: StoreKind.allCases)
    func mergeReportsInserts(_ kind: StoreKind) throws {
        let (saver, merger) = try Self.contexts(kind)
        var id: NSManagedObjectID?
        let saved = try Self.save(saver) {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: saver)
            todo.setValue("new", forKey: "title")
            try saver.obtainPermanentIDs(for: [todo])
            id = todo.objectID
        }
        let notes = Self.merge(saved, into: merger)
        #expect(notes.count == 1)
        let inserted = try #require(Self.objects(notes.first, NSInsertedObjectsKey))
        #expect(inserted.map(\.objectID) == [id])
        #expect(Self.objects(notes.first, NSUpdatedObjectsKey) == nil)
        #expect(Self.objects(notes.first, NSRefreshedObjectsKey) == nil)
        merger.performAndWait {
            let object = inserted.first!
            #expect(object.isFault)
            #expect(object.managedObjectContext === merger)
            #expect(!object.isInserted && !merger.hasChanges)
            #expect(object.value(forKey: "title") as? String == "new")
        }
    }

    @Test("Objects updated by the other context are listed as refreshed, not updated, and keep their pending changes", arguments: StoreKind.allCases)
    func mergeReportsUpdatesAsRefreshed(_ kind: StoreKind) throws {
        let (saver, merger) = try Self.contexts(kind)
        let id = try saver.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: saver)
            todo.setValue("v1", forKey: "title")
            try saver.save()
            return todo.objectID
        }
        let mine = try merger.performAndWait {
            let todo = try merger.existingObject(with: id)
            todo.setValue(5, forKey: "priority")
            merger.processPendingChanges()
            return UncheckedBox(todo)
        }
        let saved = try Self.save(saver) { try saver.existingObject(with: id).setValue("v2", forKey: "title") }
        let notes = Self.merge(saved, into: merger)
        #expect(notes.count == 1)
        #expect(Self.objects(notes.first, NSRefreshedObjectsKey) == [mine.value])
        #expect(Self.objects(notes.first, NSUpdatedObjectsKey) == nil)
        try merger.performAndWait {
            #expect(mine.value.value(forKey: "title") as? String == "v2")
            #expect(mine.value.value(forKey: "priority") as? Int == 5)
            #expect(merger.updatedObjects == [mine.value])
            try merger.save()
        }
        try saver.performAndWait {
            saver.refreshAllObjects()
            let stored = try saver.existingObject(with: id)
            #expect(stored.value(forKey: "title") as? String == "v2")
            #expect(stored.value(forKey: "priority") as? Int == 5)
        }
    }

    @Test("Objects deleted by the other context are deleted here, inverses cleared, with nothing left to save", arguments: StoreKind.allCases)
    func mergeReportsDeletes(_ kind: StoreKind) throws {
        let (saver, merger) = try Self.contexts(kind)
        let (todoID, locationID) = try saver.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: saver)
            let location = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: saver)
            todo.setValue(location, forKey: "location")
            try saver.save()
            return (todo.objectID, location.objectID)
        }
        let held = try merger.performAndWait {
            let location = try merger.existingObject(with: locationID)
            let todos = (location.value(forKey: "todos") as? NSSet)?.allObjects as? [NSManagedObject] ?? []
            #expect(todos.map(\.objectID) == [todoID])
            return UncheckedBox((location, todos[0]))
        }
        let (location, todo) = held.value
        let saved = try Self.save(saver) { saver.delete(try saver.existingObject(with: todoID)) }
        let notes = Self.merge(saved, into: merger)
        #expect(notes.count == 1)
        #expect(Self.objects(notes.first, NSDeletedObjectsKey) == [todo])
        #expect(Self.objects(notes.first, NSUpdatedObjectsKey) == nil)
        try merger.performAndWait {
            #expect(todo.managedObjectContext == nil)
            #expect(merger.registeredObject(for: todoID) == nil)
            #expect((location.value(forKey: "todos") as? NSSet)?.count == 0)
            #expect(!merger.hasChanges)
            #expect(merger.deletedObjects.isEmpty)
            #expect(merger.graphInvariantViolations().isEmpty)
            // A later save does not try to delete the row again.
            location.setValue("Office", forKey: "placeName")
            try merger.save()
        }
        #expect(try saver.performAndWait { try saver.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) } == 0)
    }

    @Test("A deletion merged by ID clears loaded inverses without leaving changes, even for a pending local deletion", arguments: StoreKind.allCases)
    func mergeDeletesByID(_ kind: StoreKind) throws {
        let (saver, merger) = try Self.contexts(kind)
        let ids = try saver.performAndWait {
            let location = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: saver)
            let todos = (0..<2).map { _ in NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: saver) }
            for todo in todos { todo.setValue(location, forKey: "location") }
            try saver.save()
            return [location.objectID] + todos.map(\.objectID)
        }
        let held = try merger.performAndWait {
            let objects = try ids.map { try merger.existingObject(with: $0) }
            _ = objects[0].value(forKey: "todos")
            merger.delete(objects[2])
            merger.processPendingChanges()
            return UncheckedBox(objects)
        }
        let (location, first, second) = (held.value[0], held.value[1], held.value[2])
        // The rows are gone (deleted by the other context); only their IDs arrive.
        try saver.performAndWait {
            for id in ids.dropFirst() { saver.delete(try saver.existingObject(with: id)) }
            try saver.save()
        }
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange], object: merger)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: Array(ids.dropFirst())], into: [merger])
        #expect(Self.objects(log.notifications.last, NSDeletedObjectsKey) == [first, second])
        #expect(Self.objects(log.notifications.last, NSRefreshedObjectsKey) == [location])
        try merger.performAndWait {
            #expect((location.value(forKey: "todos") as? NSSet)?.count == 0)
            #expect(!location.hasChanges && !merger.hasChanges)
            #expect(merger.deletedObjects.isEmpty)
            try merger.save()
        }
    }

    @Test("After a merge the context posts DidMergeChangesObjectIDs with the merged save's IDs", arguments: StoreKind.allCases)
    func mergePostsObjectIDs(_ kind: StoreKind) throws {
        let (saver, merger) = try Self.contexts(kind)
        let kept = try saver.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: saver)
            try saver.save()
            return todo.objectID
        }
        let registered = try merger.performAndWait { UncheckedBox(try merger.existingObject(with: kept)) }
        var insertedID: NSManagedObjectID?
        let saved = try Self.save(saver) {
            try saver.existingObject(with: kept).setValue("changed", forKey: "title")
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: saver)
            try saver.obtainPermanentIDs(for: [todo])
            insertedID = todo.objectID
        }
        let log = NotificationLog([.NSManagedObjectContextDidMergeChangesObjectIDs], object: merger)
        merger.performAndWait { merger.mergeChanges(fromContextDidSave: saved.value) }
        let info = try #require(log.notifications.first?.userInfo)
        #expect(log.notifications.count == 1)
        #expect(info[NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<NSManagedObjectID> == [try #require(insertedID)])
        #expect(info[NSManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue] as? Set<NSManagedObjectID> == [kept])
        #expect(info[NSManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue] as? Set<NSManagedObjectID> == [kept])
        withExtendedLifetime(registered) {}
    }

    @Test("A merge that changes nothing here posts no notification", arguments: StoreKind.allCases)
    func mergeWithoutEffectIsSilent(_ kind: StoreKind) throws {
        let (saver, merger) = try Self.contexts(kind)
        let id = try saver.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: saver)
            try saver.save()
            return todo.objectID
        }
        // The merger has none of these objects registered.
        let updated = try Self.save(saver) { try saver.existingObject(with: id).setValue("x", forKey: "title") }
        #expect(Self.merge(updated, into: merger).isEmpty)
        let deleted = try Self.save(saver) { saver.delete(try saver.existingObject(with: id)) }
        #expect(Self.merge(deleted, into: merger).isEmpty)
    }

    @Test("automaticallyMergesChangesFromParent reports a merge with the same keys")
    func automaticMergeNotification() async throws {
        let (container, viewer) = Self.mergingContainer()
        let id = try await container.performBackgroundTask { context in
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            try context.save()
            return todo.objectID
        }
        let held = try await viewer.perform { UncheckedBox(try viewer.existingObject(with: id)) }
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange], object: viewer)
        let newID = try await container.performBackgroundTask { context in
            try context.existingObject(with: id).setValue("two", forKey: "title")
            let extra = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            try context.save()
            return extra.objectID
        }
        await viewer.perform(schedule: .enqueued) {}
        let note = log.notifications.last
        #expect(Self.objects(note, NSRefreshedObjectsKey) == [held.value])
        #expect(Self.objects(note, NSInsertedObjectsKey)?.map(\.objectID) == [newID])
        #expect(Self.objects(note, NSUpdatedObjectsKey) == nil)
    }
}
