import Foundation
import Testing
@testable import OpenCoreData

@Suite("NSFetchedResultsController: fetching, sections, index paths")
struct FetchedResultsControllerTests {
    private static func seeded(_ kind: StoreKind) throws -> NSManagedObjectContext {
        let context = try kind.context(Live.model())
        try context.performAndWait { () throws in
            Live.item("apple", group: "fruit", rank: 2, in: context)
            Live.item("banana", group: "fruit", rank: 1, in: context)
            Live.item("carrot", group: "vegetable", rank: 1, in: context)
            Live.item("bread", group: "bakery", rank: 1, in: context)
            try context.save()
        }
        return context
    }

    @Test("Apple: fetchedObjects is nil before performFetch and equals the fetch after; sections follow the first sort key", arguments: StoreKind.allCases)
    func performFetch(_ kind: StoreKind) throws {
        let context = try Self.seeded(kind)
        try context.performAndWait { () throws in
            let controller = Live.controller(context)
            #expect(controller.fetchedObjects == nil)
            #expect(controller.sections == nil)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(Live.name) == ["bread", "banana", "apple", "carrot"])
            #expect(try controller.fetchedObjects == context.fetch(Live.request()))
            #expect(Live.layout(controller) == [
                Live.Section(name: "bakery", items: ["bread"]),
                Live.Section(name: "fruit", items: ["banana", "apple"]),
                Live.Section(name: "vegetable", items: ["carrot"]),
            ])
            #expect(controller.sections?.map(\.numberOfObjects) == [1, 2, 1])
            #expect(controller.sections?.map(\.indexTitle) == ["B", "F", "V"])
            #expect(controller.sectionNameKeyPath == "group")
            #expect(controller.managedObjectContext === context)
        }
    }

    @Test("Apple: object(at:) and indexPath(forObject:) are inverse; an object outside the results has no index path", arguments: StoreKind.allCases)
    func indexPaths(_ kind: StoreKind) throws {
        let context = try Self.seeded(kind)
        try context.performAndWait { () throws in
            let controller = Live.controller(context, NSPredicate(format: "name != 'carrot'"))
            try controller.performFetch()
            for (section, info) in (controller.sections ?? []).enumerated() {
                for item in 0..<info.numberOfObjects {
                    let path = IndexPath(item: item, section: section)
                    let object = controller.object(at: path)
                    #expect(controller.indexPath(forObject: object) == path)
                    #expect(path.row == item)
                }
            }
            let carrot = try context.fetch(Live.request(NSPredicate(format: "name == 'carrot'"))).first!
            #expect(controller.indexPath(forObject: carrot) == nil)
            #expect(controller.object(at: IndexPath(item: 1, section: 1)).value(forKey: "name") as? String == "apple")
        }
    }

    @Test("Without a section key path there is one unnamed section, even with no results")
    func oneSection() throws {
        let context = try StoreKind.inMemory.context(Live.model())
        try context.performAndWait { () throws in
            let controller = Live.controller(context, sectioned: false)
            try controller.performFetch()
            #expect(controller.sections?.count == 1)
            #expect(controller.sections?.first?.name == "")
            #expect(controller.sections?.first?.numberOfObjects == 0)
            #expect(controller.fetchedObjects?.isEmpty == true)
        }
    }

    @Test("Apple: sectionIndexTitle(forSectionName:) defaults to the capitalized first letter; the delegate and a subclass can override it")
    func sectionIndexTitles() throws {
        let context = try Self.seeded(.inMemory)
        try context.performAndWait { () throws in
            Live.item("blueberry", group: "berries", in: context)
            let controller = Live.controller(context)
            try controller.performFetch()
            #expect(controller.sectionIndexTitle(forSectionName: "fruit") == "F")
            #expect(controller.sectionIndexTitles == ["B", "F", "V"])
            #expect(controller.section(forSectionIndexTitle: "F", at: 1) == 2)
            #expect(controller.section(forSectionIndexTitle: "B", at: 0) == 0)

            final class Titles: NSFetchedResultsControllerDelegate {
                func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                                sectionIndexTitleForSectionName sectionName: String) -> String? {
                    String(sectionName.prefix(2))
                }
            }
            let titles = Titles()
            controller.delegate = titles
            #expect(controller.sectionIndexTitles == ["ba", "be", "fr", "ve"])
            #expect(controller.sections?.first?.indexTitle == "ba")

            final class Whole: NSFetchedResultsController<NSManagedObject> {
                override func sectionIndexTitle(forSectionName sectionName: String) -> String? { sectionName.uppercased() }
            }
            let whole = Whole(fetchRequest: Live.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: "whole")
            try whole.performFetch()
            #expect(whole.sectionIndexTitles == ["BAKERY", "BERRIES", "FRUIT", "VEGETABLE"])
            #expect(whole.cacheName == "whole")
            NSFetchedResultsController<NSManagedObject>.deleteCache(withName: "whole")
        }
    }

    @Test("A section key path the first sort descriptor does not order makes performFetch throw NSCoreDataError")
    func outOfOrderSections() throws {
        let context = try Self.seeded(.inMemory)
        try context.performAndWait { () throws in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            // banana (fruit), bread (bakery), carrot (vegetable), apple (fruit again)
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                        sectionNameKeyPath: "group", cacheName: nil)
            let error = #expect(throws: NSError.self) { try controller.performFetch() }
            #expect(error?.code == NSCoreDataError)
            #expect(error?.localizedDescription.contains("out of order section name") == true)
        }
    }

    @Test("A section key path the entity does not have makes performFetch throw NSCoreDataError naming it")
    func unknownSectionKeyPath() throws {
        let context = try Self.seeded(.inMemory)
        try context.performAndWait { () throws in
            let controller = NSFetchedResultsController(fetchRequest: Live.request(), managedObjectContext: context,
                                                        sectionNameKeyPath: "list.colour", cacheName: nil)
            let error = #expect(throws: NSError.self) { try controller.performFetch() }
            #expect(error?.code == NSCoreDataError)
            #expect(error?.localizedDescription.contains("list.colour") == true)
            #expect(controller.fetchedObjects == nil)
        }
    }

    @Test("A request without sort descriptors is a programmer error, as Apple raises an exception")
    func sortDescriptorsRequired() async {
        await #expect(processExitsWith: .failure) {
            let context = try StoreKind.inMemory.context(Live.model())
            _ = NSFetchedResultsController(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Item"),
                                           managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        }
    }

    @Test("Changing the request and calling performFetch again answers the new results (the search-field pattern)", arguments: StoreKind.allCases)
    func refetchWithNewPredicate(_ kind: StoreKind) throws {
        let context = try Self.seeded(kind)
        try context.performAndWait { () throws in
            let controller = Live.controller(context)
            try controller.performFetch()
            controller.fetchRequest.predicate = NSPredicate(format: "name BEGINSWITH 'b'")
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(Live.name) == ["bread", "banana"])
        }
    }

    @Test("Dictionary results are fetched and sectioned but not tracked, as Apple allows")
    func dictionaries() throws {
        let context = try Self.seeded(.sqlite)
        try context.performAndWait { () throws in
            let request = NSFetchRequest<NSDictionary>(entityName: "Item")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["name", "group"]
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                        sectionNameKeyPath: "group", cacheName: nil)
            let recorder = LiveRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["bakery", "fruit", "vegetable"])
            #expect(controller.fetchedObjects?.compactMap { $0["name"] as? String } == ["bread", "apple", "banana", "carrot"])
            let first = try #require(controller.fetchedObjects?.first)
            #expect(controller.indexPath(forObject: first) == IndexPath(item: 0, section: 0))
            Live.item("date", group: "fruit", in: context)
            context.processPendingChanges()
            #expect(recorder.events.isEmpty)
            #expect(controller.fetchedObjects?.count == 4)
        }
    }

    @Test("The delegate's controller shares the state of the typed one: == holds and it answers the same results")
    func delegateControllerIsEqual() throws {
        let context = try Self.seeded(.inMemory)
        try context.performAndWait { () throws in
            final class Check: NSFetchedResultsControllerDelegate {
                var seen: [NSFetchedResultsController<NSFetchRequestResult>] = []
                func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { seen.append(controller) }
            }
            let controller = Live.controller(context)
            let check = Check()
            controller.delegate = check
            try controller.performFetch()
            Live.item("fig", group: "fruit", rank: 3, in: context)
            context.processPendingChanges()
            let seen = try #require(check.seen.first)
            #expect(seen == controller)
            #expect(controller.isEqual(seen))
            #expect(seen.fetchedObjects?.count == 5)
            #expect(seen.sections?.map(\.name) == ["bakery", "fruit", "vegetable"])
            #expect((seen.delegate as AnyObject?) === check)
        }
    }

    @Test("Apple: with no delegate nothing is tracked; fetchedObjects stays as fetched")
    func noDelegateNoTracking() throws {
        let context = try Self.seeded(.inMemory)
        try context.performAndWait { () throws in
            let controller = Live.controller(context)
            try controller.performFetch()
            Live.item("fig", group: "fruit", rank: 3, in: context)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.count == 4)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 5)
        }
    }

    @Test("IndexPath has section, item and row, as UIKit and AppKit give it")
    func indexPathAccessors() {
        var path = IndexPath(row: 3, section: 1)
        #expect(path.section == 1 && path.item == 3 && path.row == 3)
        path.row = 4
        #expect(path == IndexPath(item: 4, section: 1))
    }
}
