import Foundation
import Testing
@testable import OpenCoreData

/// `NSManagedObject.changes`, `changes(forKeys:)` and `values(for:)`: the Swift-native stand-ins
/// for KVO, `objectWillChange` and `publisher(for:)` (docs/Observation.md). Apple's KVO reports
/// each change of an observed key; these report the keys whose values changed once per
/// `ObjectsDidChange`, from edits, merges and child saves alike. The time limit turns a report
/// that never comes (an `await` that would wait forever) into a failure.
@Suite("Observing managed objects", .timeLimit(.minutes(5)))
struct ObjectObservationTests {
    // MARK: - Edits in the object's context

    @Test("Edits yield their keys once per processPendingChanges()", arguments: StoreKind.allCases)
    func editsYieldKeysPerEvent(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A"])
        let todo = todos[0]
        var changes = context.performAndWait { todo.changes }.makeAsyncIterator()
        context.performAndWait {
            todo.title = "A1"
            todo.title = "A2"
            todo.priority = 3
            context.processPendingChanges()
            todo.done = true
            context.processPendingChanges()
        }
        #expect(await changes.next() == ["title", "priority"])
        #expect(await changes.next() == ["done"])
    }

    @Test("Changes of other objects, and a value set and set back within one event, yield nothing", arguments: StoreKind.allCases)
    func unrelatedChangesDoNotYield(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A", "B"])
        let (a, b) = (todos[0], todos[1])
        var changes = context.performAndWait { a.changes }.makeAsyncIterator()
        context.performAndWait {
            b.title = "B1"
            context.processPendingChanges()
            a.title = "changed"
            a.title = "A"
            context.processPendingChanges()
            a.done = true
            context.processPendingChanges()
        }
        // Had either event yielded, its keys would come first.
        #expect(await changes.next() == ["done"])
    }

    @Test("Relationship changes yield the relationship's key, on both sides", arguments: StoreKind.allCases)
    func relationshipChanges(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A"])
        let todo = todos[0]
        let tag = try context.performAndWait {
            let tag = OTag(context: context)
            tag.name = "home"
            try context.save()
            return tag
        }
        var todoChanges = context.performAndWait { todo.changes }.makeAsyncIterator()
        var tagChanges = context.performAndWait { tag.changes }.makeAsyncIterator()
        context.performAndWait {
            todo.tags.insert(tag)
            context.processPendingChanges()
            tag.name = "work"
            context.processPendingChanges()
        }
        #expect(await todoChanges.next() == ["tags"])
        // The inverse changed in the same event: the tag reports it with that event.
        #expect(await tagChanges.next() == ["todos"])
        #expect(await tagChanges.next() == ["name"])
    }

    @Test("changes(forKeys:) yields only changes of the keys it watches", arguments: StoreKind.allCases)
    func changesForKeys(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A"])
        let todo = todos[0]
        var changes = context.performAndWait { todo.changes(forKeys: ["done", "priority"]) }.makeAsyncIterator()
        context.performAndWait {
            todo.title = "A1"
            context.processPendingChanges()
            todo.title = "A2"
            todo.priority = 2
            context.processPendingChanges()
        }
        #expect(await changes.next() == ["priority"])
    }

    // MARK: - Values

    @Test("values(for:) yields the current value at once, then the value after each change of that key only", arguments: StoreKind.allCases)
    func valuesForKeyPath(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A"])
        let todo = todos[0]
        var titles = context.performAndWait { todo.values(for: \.title) }.makeAsyncIterator()
        var summaries = context.performAndWait { todo.values(for: \.summary) }.makeAsyncIterator()
        // Through a to-one relationship: watches the relationship, yields the destination's ID.
        var places = context.performAndWait { todo.values(for: \.location?.objectID) }.makeAsyncIterator()
        #expect(await titles.next() == "A")
        #expect(await summaries.next() == "A (0)")
        #expect(await places.next() == .some(nil))
        let placeID = context.performAndWait {
            todo.done = true
            context.processPendingChanges()
            todo.priority = 5
            context.processPendingChanges()
            todo.title = "B"
            context.processPendingChanges()
            let place = OLocation(context: context)
            todo.location = place
            context.processPendingChanges()
            return place.objectID
        }
        #expect(await places.next() == .some(placeID))
        #expect(await titles.next() == "B")
        // The computed property reads title and priority: each of their changes yields, done's does not.
        #expect(await summaries.next() == "A (5)")
        #expect(await summaries.next() == "B (5)")
    }

    @Test("values(forKey:as:) yields key-value coding values, related objects as their IDs", arguments: StoreKind.allCases)
    func valuesForKey(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A"])
        let todo = todos[0]
        var priorities = context.performAndWait { todo.values(forKey: "priority", as: Int.self) }.makeAsyncIterator()
        var locations = context.performAndWait { todo.values(forKey: "location", as: NSManagedObjectID.self) }.makeAsyncIterator()
        var tags = context.performAndWait { todo.values(forKey: "tags", as: Set<NSManagedObjectID>.self) }.makeAsyncIterator()
        #expect(await priorities.next() == .some(0))
        #expect(await locations.next() == .some(nil))
        #expect(await tags.next() == .some([]))
        let (placeID, tagID) = try context.performAndWait {
            let place = OLocation(context: context)
            let tag = OTag(context: context)
            // Permanent first: the values are read when the save processes the changes.
            try context.obtainPermanentIDs(for: [place, tag])
            todo.location = place
            todo.tags = [tag]
            try context.save()
            todo.priority = 7
            context.processPendingChanges()
            return (place.objectID, tag.objectID)
        }
        #expect(await locations.next() == .some(placeID))
        #expect(await tags.next() == .some([tagID]))
        #expect(await priorities.next() == .some(7))
    }

    // MARK: - Changes from other contexts

    @Test("A background context's save merged with mergeChanges(fromContextDidSave:) yields the keys it changed", arguments: StoreKind.allCases)
    func mergedSaveYields(_ kind: StoreKind) async throws {
        let (writer, viewer) = try kind.contextPair(Observed.model())
        let written = try writer.performAndWait {
            let todo = OTodo(context: writer)
            todo.title = "A"
            try writer.save()
            return todo
        }
        let todo = try Observed.todo(written, in: viewer)
        var changes = viewer.performAndWait { todo.changes }.makeAsyncIterator()
        let log = NotificationLog([.NSManagedObjectContextDidSave], object: writer)
        try writer.performAndWait {
            written.title = "from the background"
            written.priority = 4
            try writer.save()
        }
        let saved = try #require(log.notifications.last)
        viewer.performAndWait { viewer.mergeChanges(fromContextDidSave: saved) }
        #expect(await changes.next() == ["title", "priority"])
        #expect(viewer.performAndWait { todo.title } == "from the background")
    }

    @Test("A sibling's save merged by automaticallyMergesChangesFromParent yields", arguments: StoreKind.allCases)
    func automaticMergeYields(_ kind: StoreKind) async throws {
        let (writer, todos) = try Observed.context(kind, titles: ["A"])
        let viewer = Observed.sibling(of: writer)
        viewer.automaticallyMergesChangesFromParent = true
        let todo = try Observed.todo(todos[0], in: viewer)
        var values = viewer.performAndWait { todo.values(for: \.done) }.makeAsyncIterator()
        #expect(await values.next() == false)
        try writer.performAndWait {
            todos[0].done = true
            try writer.save()
        }
        // The merge was enqueued on the viewer's queue by the save; the value comes with it.
        Observed.drain(viewer)
        #expect(await values.next() == true)
    }

    @Test("A child context's save pushed into its parent yields in the parent", arguments: StoreKind.allCases)
    func childSaveYieldsInParent(_ kind: StoreKind) async throws {
        let (parent, todos) = try Observed.context(kind, titles: ["A"])
        let todo = todos[0]
        var changes = parent.performAndWait { todo.changes }.makeAsyncIterator()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        let id = parent.performAndWait { todo.objectID }
        try child.performAndWait {
            let mine = try #require(try child.existingObject(with: id) as? OTodo)
            mine.title = "from the child"
            try child.save()
        }
        #expect(await changes.next() == ["title"])
        #expect(parent.performAndWait { todo.title } == "from the child")
    }

    // MARK: - How sequences end

    @Test("Processing the object's deletion ends the sequence", arguments: StoreKind.allCases)
    func deletionEnds(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A"])
        let todo = todos[0]
        var changes = context.performAndWait { todo.changes }.makeAsyncIterator()
        var titles = context.performAndWait { todo.values(for: \.title) }.makeAsyncIterator()
        #expect(await titles.next() == "A")
        context.performAndWait {
            todo.title = "B"
            context.processPendingChanges()
            context.delete(todo)
            context.processPendingChanges()
        }
        #expect(await changes.next() == ["title"])
        #expect(await changes.next() == nil)
        #expect(await titles.next() == "B")
        #expect(await titles.next() == nil)
        #expect(Observed.observerCount(context) == 0)
    }

    @Test("A deletion merged from another context's save ends the sequence", arguments: StoreKind.allCases)
    func mergedDeletionEnds(_ kind: StoreKind) async throws {
        let (writer, todos) = try Observed.context(kind, titles: ["A"])
        let viewer = Observed.sibling(of: writer)
        viewer.automaticallyMergesChangesFromParent = true
        let todo = try Observed.todo(todos[0], in: viewer)
        var changes = viewer.performAndWait { todo.changes }.makeAsyncIterator()
        try writer.performAndWait {
            writer.delete(todos[0])
            try writer.save()
        }
        Observed.drain(viewer)
        #expect(await changes.next() == nil)
    }

    @Test("reset() invalidates the objects and ends their sequences", arguments: StoreKind.allCases)
    func resetEnds(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A", "B"])
        var first = context.performAndWait { todos[0].changes }.makeAsyncIterator()
        var second = context.performAndWait { todos[1].values(for: \.title) }.makeAsyncIterator()
        #expect(await second.next() == "B")
        context.performAndWait { context.reset() }
        #expect(await first.next() == nil)
        #expect(await second.next() == nil)
        #expect(Observed.observerCount(context) == 0)
    }

    @Test("Cancelling the iterating task ends the sequence and releases the observer", arguments: StoreKind.allCases)
    func cancellationEnds(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A"])
        let changes = context.performAndWait { todos[0].changes }
        #expect(Observed.observerCount(context) == 1)
        let task = Task {
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        task.cancel()
        #expect(await task.value == 0)
        #expect(Observed.observerCount(context) == 0)
        // Edits after the end report to nobody, and nothing is listening any more.
        context.performAndWait {
            todos[0].title = "B"
            context.processPendingChanges()
        }
        #expect(Observed.observerCount(context) == 0)
    }

    @Test("Freeing the context ends the sequence", arguments: StoreKind.allCases)
    func contextDeallocationEnds(_ kind: StoreKind) async throws {
        weak var freed: NSManagedObjectContext?
        var changes = try {
            let (context, todos) = try Observed.context(kind, titles: ["A"])
            freed = context
            return context.performAndWait { todos[0].changes }
        }().makeAsyncIterator()
        #expect(freed == nil)
        #expect(await changes.next() == nil)
    }

    @Test("An object with no context, or already deleted, gives a sequence that ends at once", arguments: StoreKind.allCases)
    func unobservableObjectsEnd(_ kind: StoreKind) async throws {
        let (context, todos) = try Observed.context(kind, titles: ["A"])
        let loose = OTodo(entity: todos[0].entity, insertInto: nil)
        var looseChanges = loose.changes.makeAsyncIterator()
        #expect(await looseChanges.next() == nil)
        var deleted = context.performAndWait {
            context.delete(todos[0])
            return todos[0].values(for: \.title)
        }.makeAsyncIterator()
        #expect(await deleted.next() == "A")
        #expect(await deleted.next() == nil)
    }

    // MARK: - Concurrency

    @Test("A main-queue context's objects are observed from main-actor tasks; the context posts by itself")
    @MainActor
    func mainActorTask() async throws {
        let container = NSPersistentContainer(name: "Observed", managedObjectModel: Observed.model())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let context = container.viewContext
        let todo = OTodo(context: context)
        todo.title = "A"
        try context.save()
        let task = Task { @MainActor () -> Set<String> in
            let changes = todo.changes
            // No processPendingChanges(): the main-queue context posts at the end of this turn.
            todo.done = true
            for await keys in changes { return keys }
            return []
        }
        #expect(await task.value == ["done"])
        for await title in todo.values(for: \.title) {
            #expect(title == "A")
            break
        }
    }
}
