import Foundation
import Testing
@testable import OpenCoreData

@Suite("NSFetchedResultsController: change tracking and the delegate")
struct FetchedResultsTrackingTests {
    typealias E = LiveRecorder.Event

    /// A saved context with fruit (apple 1, banana 2) and vegetable (carrot 1), a sectioned
    /// controller over it, and its recorder.
    private static func setUp(_ kind: StoreKind, _ predicate: NSPredicate? = nil, sectioned: Bool = true) throws
        -> (NSManagedObjectContext, NSFetchedResultsController<NSManagedObject>, LiveRecorder) {
        let context = try kind.context(Live.model())
        let recorder = LiveRecorder()
        let controller = try context.performAndWait {
            Live.item("apple", group: "fruit", rank: 1, in: context)
            Live.item("banana", group: "fruit", rank: 2, in: context)
            Live.item("carrot", group: "vegetable", rank: 1, in: context)
            try context.save()
            let controller = Live.controller(context, predicate, sectioned: sectioned)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        return (context, controller, recorder)
    }

    private static func object(_ name: String, _ context: NSManagedObjectContext) throws -> NSManagedObject {
        try #require(try context.fetch(Live.request(NSPredicate(format: "name == %@", name))).first)
    }

    @Test("Apple: an insert into a new section reports the section, then the object, between will and did", arguments: StoreKind.allCases)
    func insertWithSection(_ kind: StoreKind) throws {
        let (context, controller, recorder) = try Self.setUp(kind)
        try context.performAndWait { () throws in
            Live.item("bread", group: "bakery", in: context)
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .section("bakery", 0, .insert), .object("bread", .insert, nil, IndexPath(item: 0, section: 0)), .did])
            Live.item("avocado", group: "fruit", rank: 0, in: context)
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .object("avocado", .insert, nil, IndexPath(item: 0, section: 1)), .did])
            #expect(Live.layout(controller) == (try Live.freshLayout(context, nil, sectioned: true)))
        }
    }

    @Test("Apple: a change that keeps the order is an update; a sort key change that reorders is a move", arguments: StoreKind.allCases)
    func updateAndMove(_ kind: StoreKind) throws {
        let (context, controller, recorder) = try Self.setUp(kind)
        try context.performAndWait { () throws in
            let banana = try Self.object("banana", context)
            banana.setValue(false, forKey: "visible")
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .object("banana", .update, IndexPath(item: 1, section: 0), IndexPath(item: 1, section: 0)), .did])

            // A sort key change that leaves the order as it was is an update, never a move from X to X.
            banana.setValue(5, forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .object("banana", .update, IndexPath(item: 1, section: 0), IndexPath(item: 1, section: 0)), .did])

            banana.setValue(0, forKey: "rank")
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .object("banana", .move, IndexPath(item: 1, section: 0), IndexPath(item: 0, section: 0)), .did])

            // Into another section: the old one empties (deleted), the object moves.
            try Self.object("carrot", context).setValue("fruit", forKey: "group")
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .section("vegetable", 1, .delete),
                                        .object("carrot", .move, IndexPath(item: 0, section: 1), IndexPath(item: 2, section: 0)), .did])
            #expect(Live.layout(controller) == [Live.Section(name: "fruit", items: ["banana", "apple", "carrot"])])
        }
    }

    @Test("Apple: an object that comes to match the predicate is inserted; one that stops matching or is deleted is deleted", arguments: StoreKind.allCases)
    func predicateMembership(_ kind: StoreKind) throws {
        let (context, controller, recorder) = try Self.setUp(kind, NSPredicate(format: "visible == YES"))
        try context.performAndWait { () throws in
            try Self.object("apple", context).setValue(false, forKey: "visible")
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .object("apple", .delete, IndexPath(item: 0, section: 0), nil), .did])
            try Self.object("apple", context).setValue(true, forKey: "visible")
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .object("apple", .insert, nil, IndexPath(item: 0, section: 0)), .did])
            context.delete(try Self.object("carrot", context))
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .section("vegetable", 1, .delete), .object("carrot", .delete, IndexPath(item: 0, section: 1), nil), .did])
            // Invisible objects do not enter.
            Live.item("date", group: "fruit", visible: false, in: context)
            context.processPendingChanges()
            #expect(recorder.take() == [])
            #expect(controller.fetchedObjects?.map(Live.name) == ["apple", "banana"])
            try context.save()
            #expect(controller.fetchedObjects?.map(Live.name) == ["apple", "banana"])
        }
    }

    @Test("Changes saved by another context reach the controller when merged (mergeChanges and automaticallyMergesChangesFromParent)", arguments: StoreKind.allCases)
    func mergedChanges(_ kind: StoreKind) throws {
        let (viewContext, background) = try kind.contextPair(Live.model())
        let recorder = LiveRecorder()
        let controller = try viewContext.performAndWait {
            Live.item("apple", group: "fruit", rank: 1, in: viewContext)
            Live.item("banana", group: "fruit", rank: 2, in: viewContext)
            try viewContext.save()
            let controller = Live.controller(viewContext)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        let saves = NotificationLog([.NSManagedObjectContextDidSave], object: background)
        try background.performAndWait { () throws in
            Live.item("cherry", group: "fruit", rank: 3, in: background)
            try Self.object("banana", background).setValue(0, forKey: "rank")
            background.delete(try Self.object("apple", background))
            try background.save()
        }
        let saved = UncheckedBox(try #require(saves.notifications.last))
        try viewContext.performAndWait { () throws in
            viewContext.mergeChanges(fromContextDidSave: saved.value)
            let replay = TableReplay.apply(recorder.take(), to: [Live.Section(name: "fruit", items: ["apple", "banana"])])
            #expect(replay.problems == [])
            #expect(replay.result == [Live.Section(name: "fruit", items: ["banana", "cherry"])])
            #expect(controller.fetchedObjects?.map(Live.name) == ["banana", "cherry"])
            #expect(Live.layout(controller) == (try Live.freshLayout(viewContext, nil, sectioned: true)))
        }

        // The same through automaticallyMergesChangesFromParent.
        viewContext.automaticallyMergesChangesFromParent = true
        let sibling = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        sibling.persistentStoreCoordinator = viewContext.persistentStoreCoordinator
        try sibling.performAndWait { () throws in
            Live.item("avocado", group: "fruit", rank: -1, in: sibling)
            try sibling.save()
        }
        viewContext.performAndWait {
            #expect(recorder.take() == [.will, .object("avocado", .insert, nil, IndexPath(item: 0, section: 0)), .did])
            #expect(controller.fetchedObjects?.map(Live.name) == ["avocado", "banana", "cherry"])
        }
    }

    @Test("A merged update of an object the context never held, that now matches the predicate, is inserted (Apple's since iOS 10)", arguments: StoreKind.allCases)
    func mergedUpdateOfUnheldObject(_ kind: StoreKind) throws {
        let (viewContext, background) = try kind.contextPair(Live.model())
        let recorder = LiveRecorder()
        try background.performAndWait { () throws in
            Live.item("apple", group: "fruit", rank: 1, in: background)
            Live.item("hidden", group: "fruit", rank: 2, visible: false, in: background)
            try background.save()
        }
        let controller = try viewContext.performAndWait {
            let controller = Live.controller(viewContext, NSPredicate(format: "visible == YES"))
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        let saves = NotificationLog([.NSManagedObjectContextDidSave], object: background)
        try background.performAndWait { () throws in
            try Self.object("hidden", background).setValue(true, forKey: "visible")
            try background.save()
        }
        let saved = UncheckedBox(try #require(saves.notifications.last))
        viewContext.performAndWait {
            viewContext.mergeChanges(fromContextDidSave: saved.value)
            #expect(recorder.take() == [.will, .object("hidden", .insert, nil, IndexPath(item: 1, section: 0)), .did])
            #expect(controller.fetchedObjects?.map(Live.name) == ["apple", "hidden"])
        }
    }

    @Test("A child context's save pushed into the controller's context is reported there", arguments: StoreKind.allCases)
    func childPush(_ kind: StoreKind) throws {
        let (context, controller, recorder) = try Self.setUp(kind)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = context
        try child.performAndWait { () throws in
            Live.item("fig", group: "fruit", rank: 3, in: child)
            try Self.object("apple", child).setValue(9, forKey: "rank")
            try child.save()
        }
        try context.performAndWait { () throws in
            #expect(controller.fetchedObjects?.map(Live.name) == ["banana", "fig", "apple", "carrot"])
            let replay = TableReplay.apply(recorder.take(), to: [Live.Section(name: "fruit", items: ["apple", "banana"]),
                                                                Live.Section(name: "vegetable", items: ["carrot"])])
            #expect(replay.problems == [])
            #expect(replay.result == Live.layout(controller))
        }
    }

    @Test("A controller in a child context that merges from its parent sees the parent's saves", arguments: StoreKind.allCases)
    func childMergesParent(_ kind: StoreKind) throws {
        let (parent, _, _) = try Self.setUp(kind)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        child.automaticallyMergesChangesFromParent = true
        let recorder = LiveRecorder()
        let controller = try child.performAndWait {
            let controller = Live.controller(child)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        try parent.performAndWait { () throws in
            Live.item("avocado", group: "fruit", rank: 0, in: parent)
            try Self.object("carrot", parent).setValue("fruit", forKey: "group")
            try parent.save()
        }
        child.performAndWait {
            let replay = TableReplay.applyBatches(recorder.take(), to: [Live.Section(name: "fruit", items: ["apple", "banana"]),
                                                                       Live.Section(name: "vegetable", items: ["carrot"])])
            #expect(replay.problems == [])
            #expect(replay.result == [Live.Section(name: "fruit", items: ["avocado", "apple", "carrot", "banana"])])
            #expect(Live.layout(controller) == replay.result)
        }
    }

    @Test("A change of a related object that the predicate reads through a relationship is seen", arguments: StoreKind.allCases)
    func relatedObjectChange(_ kind: StoreKind) throws {
        let context = try kind.context(Live.model())
        let recorder = LiveRecorder()
        try context.performAndWait { () throws in
            let work = Live.list("Work", in: context)
            let home = Live.list("Home", in: context)
            Live.item("report", group: "w", list: work, in: context)
            Live.item("dishes", group: "h", list: home, in: context)
            try context.save()
            let controller = Live.controller(context, NSPredicate(format: "list.title == 'Work'"))
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(Live.name) == ["report"])
            home.setValue("Work", forKey: "title")
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .section("h", 0, .insert), .object("dishes", .insert, nil, IndexPath(item: 0, section: 0)), .did])
            work.setValue("Office", forKey: "title")
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .section("w", 1, .delete), .object("report", .delete, IndexPath(item: 0, section: 1), nil), .did])
        }
    }

    @Test("Renaming a related object that a sort key and the section key path read moves the results that read it", arguments: StoreKind.allCases)
    func relatedSortKey(_ kind: StoreKind) throws {
        let context = try kind.context(Live.model())
        let recorder = LiveRecorder()
        try context.performAndWait { () throws in
            let alpha = Live.list("alpha", in: context), beta = Live.list("beta", in: context)
            Live.item("a1", list: alpha, in: context)
            Live.item("a2", list: alpha, in: context)
            Live.item("b1", list: beta, in: context)
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "list.title", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                        sectionNameKeyPath: "list.title", cacheName: nil)
            controller.delegate = recorder
            try controller.performFetch()
            let before = Live.layout(controller)
            #expect(before == [Live.Section(name: "alpha", items: ["a1", "a2"]), Live.Section(name: "beta", items: ["b1"])])
            alpha.setValue("gamma", forKey: "title")
            context.processPendingChanges()
            let replay = TableReplay.applyBatches(recorder.take(), to: before)
            #expect(replay.problems == [])
            #expect(replay.result == [Live.Section(name: "beta", items: ["b1"]), Live.Section(name: "gamma", items: ["a1", "a2"])])
            #expect(Live.layout(controller) == replay.result)
        }
    }

    @Test("fetchLimit stays honoured while tracking: an insert at the top pushes the last result out", arguments: StoreKind.allCases)
    func fetchLimit(_ kind: StoreKind) throws {
        let context = try kind.context(Live.model())
        let recorder = LiveRecorder()
        try context.performAndWait { () throws in
            for rank in 1...4 { Live.item("i\(rank)", rank: rank, in: context) }
            try context.save()
            let request = Live.request(sectioned: false)
            request.fetchLimit = 3
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(Live.name) == ["i1", "i2", "i3"])
            Live.item("i0", rank: 0, in: context)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(Live.name) == ["i0", "i1", "i2"])
            #expect(recorder.take() == [.will, .object("i3", .delete, IndexPath(item: 2, section: 0), nil),
                                        .object("i0", .insert, nil, IndexPath(item: 0, section: 0)), .did])
            context.delete(try Self.object("i1", context))
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(Live.name) == ["i0", "i2", "i3"])
        }
    }

    @Test("A batch delete merged with mergeChanges(fromRemoteContextSave:into:) reports deletions (SQLite: batch requests need it)")
    func batchDeleteMerge() throws {
        let (context, controller, recorder) = try Self.setUp(.sqlite)
        try context.performAndWait { () throws in
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))
            delete.resultType = .resultTypeObjectIDs
            let result = try context.execute(delete) as? NSBatchDeleteResult
            let ids = try #require(result?.result as? [NSManagedObjectID])
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [context])
            #expect(controller.fetchedObjects?.isEmpty == true)
            #expect(controller.sections?.isEmpty == true)
            let replay = TableReplay.apply(recorder.take(), to: [Live.Section(name: "fruit", items: ["apple", "banana"]),
                                                                Live.Section(name: "vegetable", items: ["carrot"])])
            #expect(replay.problems == [])
            #expect(replay.result == [])
        }
    }

    @Test("Apple: a delegate implementing the difference form hears only it; the difference turns the old IDs into the new", arguments: StoreKind.allCases)
    func differenceDelegate(_ kind: StoreKind) throws {
        final class Differences: NSFetchedResultsControllerDelegate {
            var differences: [CollectionDifference<NSManagedObjectID>] = []
            var others = 0
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                            didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) { differences.append(diff) }
            func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { others += 1 }
        }
        let (context, controller, _) = try Self.setUp(kind, sectioned: false)
        let differences = Differences()
        controller.delegate = differences
        try context.performAndWait { () throws in
            let before = controller.fetchedObjects?.map(\.objectID) ?? []
            let banana = try Self.object("banana", context), carrot = try Self.object("carrot", context)
            Live.item("aardvark", rank: 0, in: context)
            banana.setValue(0, forKey: "rank")
            context.delete(carrot)
            context.processPendingChanges()
            #expect(differences.others == 0)
            #expect(differences.differences.count == 1)
            let diff = try #require(differences.differences.first)
            #expect(diff.removals.count == 2 && diff.insertions.count == 2)
            #expect(before.applying(diff) == controller.fetchedObjects?.map(\.objectID))
        }
    }

    @Test("rollback() and refresh(_:mergeChanges: false) are reported: discarded inserts leave, reverted objects go back", arguments: StoreKind.allCases)
    func rollbackAndRefresh(_ kind: StoreKind) throws {
        let (context, controller, recorder) = try Self.setUp(kind)
        try context.performAndWait { () throws in
            let before = Live.layout(controller)
            Live.item("aardvark", group: "fruit", rank: 0, in: context)
            try Self.object("banana", context).setValue(0, forKey: "rank")
            context.delete(try Self.object("carrot", context))
            context.processPendingChanges()
            let edited = TableReplay.applyBatches(recorder.take(), to: before)
            #expect(edited.problems == [])
            context.rollback()
            let rolledBack = TableReplay.applyBatches(recorder.take(), to: edited.result)
            #expect(rolledBack.problems == [])
            #expect(rolledBack.result == before)
            #expect(Live.layout(controller) == before)

            let apple = try Self.object("apple", context)
            apple.setValue("vegetable", forKey: "group")
            context.processPendingChanges()
            _ = recorder.take()
            context.refresh(apple, mergeChanges: false)
            #expect(recorder.take() == [.will, .object("apple", .move, IndexPath(item: 0, section: 1), IndexPath(item: 0, section: 0)), .did])
            #expect(Live.layout(controller) == before)
        }
    }

    @Test("After reset() nothing is reported and performFetch() starts over, as Apple's header says")
    func reset() throws {
        let (context, controller, recorder) = try Self.setUp(.inMemory)
        try context.performAndWait { () throws in
            context.reset()
            #expect(recorder.take() == [])
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(Live.name) == ["apple", "banana", "carrot"])
            Live.item("date", group: "fruit", rank: 3, in: context)
            context.processPendingChanges()
            #expect(recorder.take() == [.will, .object("date", .insert, nil, IndexPath(item: 2, section: 0)), .did])
        }
    }
}
