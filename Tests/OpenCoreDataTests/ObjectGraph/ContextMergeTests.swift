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

    @Test("automaticallyMergesChangesFromParent merges saves of sibling contexts")
    func automaticMerge() async throws {
        let container = NSPersistentContainer(name: "Merge", managedObjectModel: TestModels.todoModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let viewer = container.newBackgroundContext()
        viewer.automaticallyMergesChangesFromParent = true
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
}
