import Foundation
import Observation
import Testing
@testable import OpenCoreData

@Suite("Live results: results(for:) async sequences and FetchedResultsObserver")
struct LiveResultsTests {
    private static func names(_ ids: [NSManagedObjectID], in context: NSManagedObjectContext) -> [String] {
        context.performAndWait { ids.map { Live.name(context.object(with: $0)) } }
    }

    @Test("results(for:) yields the current results at once, then once per change batch; cancelling the task ends it", arguments: StoreKind.allCases)
    func asyncSequence(_ kind: StoreKind) async throws {
        let context = try kind.context(Live.model())
        try context.performAndWait { () throws in
            Live.item("b", group: "fruit", rank: 2, in: context)
            try context.save()
        }
        let stream = context.results(for: Live.request(sectioned: true), sectionNameKeyPath: "group")
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(Self.names(first.objectIDs, in: context) == ["b"])
        #expect(first.sections.map(\.name) == ["fruit"])
        #expect(first.sections.first?.indexTitle == "F")

        context.performAndWait {
            Live.item("a", group: "fruit", rank: 1, in: context)
            Live.item("c", group: "veg", rank: 1, in: context)
            context.processPendingChanges()
        }
        let second = try #require(await iterator.next())
        #expect(Self.names(second.objectIDs, in: context) == ["a", "b", "c"])
        #expect(second.sections.map(\.name) == ["fruit", "veg"])
        #expect(second.sections.map(\.objectIDs.count) == [2, 1])

        // A change outside the results yields nothing; the next one that matters does.
        context.performAndWait {
            _ = Live.list("unrelated", in: context)
            context.processPendingChanges()
            context.delete(context.object(with: second.objectIDs[1]))
            context.processPendingChanges()
        }
        let third = try #require(await iterator.next())
        #expect(Self.names(third.objectIDs, in: context) == ["a", "c"])

        let task = Task {
            var count = 0
            for await _ in context.results(for: Live.request(sectioned: false)) { count += 1 }
            return count
        }
        task.cancel()
        let seen = await task.value
        #expect(seen <= 1)
        // The cancelled stream's controller is gone; the first stream's is still running.
        #expect(context.performAndWait { context.deinitHandlers.count } == 1)
        context.performAndWait {
            Live.item("d", group: "veg", rank: 2, in: context)
            context.processPendingChanges()
        }
        #expect(Self.names(try #require(await iterator.next()).objectIDs, in: context) == ["a", "c", "d"])
    }

    @Test("A save of another context on the coordinator, merged automatically, yields new results", arguments: StoreKind.allCases)
    func mergedSave(_ kind: StoreKind) async throws {
        let context = try kind.context(Live.model())
        context.automaticallyMergesChangesFromParent = true
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = context.persistentStoreCoordinator
        var iterator = context.results(for: Live.request(sectioned: false), transform: { Live.name($0) }).makeAsyncIterator()
        #expect(await iterator.next() == [])
        try await background.perform {
            Live.item("x", in: background)
            try background.save()
        }
        #expect(await iterator.next() == ["x"])
    }

    @Test("The sequence ends when its context is deallocated")
    func endsWithContext() async throws {
        var context: NSManagedObjectContext? = try StoreKind.inMemory.context(Live.model())
        let stream = try #require(context).results(for: Live.request(sectioned: false))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        context = nil
        #expect(await iterator.next() == nil)
    }

    @Test("FetchedResultsObserver: withObservationTracking sees objects and sections change once per batch", arguments: StoreKind.allCases)
    func observer(_ kind: StoreKind) throws {
        let context = try kind.context(Live.model())
        try context.performAndWait { () throws in
            Live.item("b", group: "fruit", rank: 2, in: context)
            try context.save()
            let observed = try FetchedResultsObserver(fetchRequest: Live.request(), managedObjectContext: context, sectionNameKeyPath: "group")
            #expect(observed.objects.map(Live.name) == ["b"])
            #expect(observed.sections.map(\.name) == ["fruit"])

            final class Flag: @unchecked Sendable { var fired = 0 }  // set on this queue only
            let flag = Flag()
            withObservationTracking { _ = observed.objects } onChange: { flag.fired += 1 }
            Live.item("a", group: "veg", rank: 1, in: context)
            #expect(flag.fired == 0)
            context.processPendingChanges()
            #expect(flag.fired == 1)
            #expect(observed.objects.map(Live.name) == ["b", "a"])
            #expect(observed.sections.map(\.name) == ["fruit", "veg"])
            #expect(observed.changeCount == 1)

            withObservationTracking { _ = observed.sections } onChange: { flag.fired += 1 }
            try context.save()  // nothing new to report
            #expect(flag.fired == 1)
            context.delete(observed.objects[0])
            context.processPendingChanges()
            #expect(flag.fired == 2)
            #expect(observed.sections.map(\.name) == ["veg"])
        }
    }
}
