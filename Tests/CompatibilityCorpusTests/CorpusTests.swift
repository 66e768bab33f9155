import Foundation
import OpenCoreData
import Testing

/// Runs the corpus's Apple-platform code and checks that it behaves as it does with Core Data.
///
/// On the main actor, as the app code it stands for runs (XCTest runs there too): the corpus uses
/// the container's main-queue `viewContext` directly, and off the main queue the context's own
/// end-of-turn `processPendingChanges()` would race the test's edits.
@MainActor
@Suite("Compatibility corpus")
struct CorpusTests {
    /// A container on the corpus model with a private SQLite store, as the app template's.
    private func makeContainer() throws -> (NSPersistentContainer, URL) {
        let directory = try makeDirectory()
        let container = try NSPersistentContainer(loadingModelNamed: "Corpus", in: [Bundle.module])
        container.persistentStoreDescriptions.first!.url = directory.appendingPathComponent("Corpus.sqlite")
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return (container, directory)
    }

    /// A new temporary folder for a test's stores.
    private func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func corpusModel() throws -> NSManagedObjectModel {
        let url = try #require(Bundle.module.url(forResource: "Corpus", withExtension: "xcdatamodeld"))
        return try NSManagedObjectModel.load(contentsOf: url)
    }

    @Test("Primitive accessors set values in awakeFromInsert and willSave, and the values are saved")
    func primitiveAccessorsInLifecycleHooks() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let item = Item.make(in: context, title: "Buy milk")
        #expect(item.createdAt != nil)
        #expect(item.updatedAt == nil)
        #expect(item.uuid != nil)
        try context.save()
        #expect(item.updatedAt != nil)

        let other = container.newBackgroundContext()
        let stored = try other.performAndWait {
            let found = try other.fetch(Item.fetchRequest())
            return found.map { ($0.title, $0.createdAt, $0.updatedAt) }
        }
        #expect(stored.count == 1)
        #expect(stored.first?.0 == "Buy milk")
        #expect(stored.first?.1 == item.createdAt)
        #expect(stored.first?.2 == item.updatedAt)
    }

    @Test("A custom accessor over a primitive reads and writes through the primitive's key")
    func customAccessorOverPrimitive() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let item = Item(context: container.viewContext)
        #expect(item.status == .open)
        item.status = .done
        #expect(item.statusRaw == "done")
        #expect(item.value(forKey: "statusRaw") as? String == "done")
    }

    @Test("Item.fetchRequest() without an annotation is the generated NSFetchRequest<Item>")
    func typedFetchRequestIsPicked() throws {
        let request = Item.fetchRequest()
        let typed: NSFetchRequest<Item> = request
        #expect(typed.entityName == "Item")
        let untyped: NSFetchRequest<NSFetchRequestResult> = Item.fetchRequest()
        #expect(untyped.entityName == "Item")
    }

    @Test("The repository's fetches, counts, dictionaries and IDs work on the app's model")
    func repositoryRoundTrip() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let repository = ItemRepository(context: container.viewContext)
        let first = try repository.add(title: "Write report", tags: ["work", "urgent"])
        _ = try repository.add(title: "Buy milk", tags: ["home"])
        #expect(try repository.count() == 2)
        #expect(try repository.allItems().map(\.title) == ["Buy milk", "Write report"])
        #expect(try repository.items(matching: "REPORT").map(\.title) == ["Write report"])
        #expect(Set(try repository.titles()) == ["Buy milk", "Write report"])
        #expect(try repository.objectIDs().count == 2)
        #expect(first.tagArray.map(\.name) == ["urgent", "work"])
        #expect(first.tagCount == 2)
        try repository.delete(first)
        #expect(try repository.count() == 1)

        let dao = DAO<Tag>(context: container.viewContext)
        #expect(try dao.fetchAll().count == 3)
        #expect(try dao.first(where: NSPredicate(format: "name == %@", "home"))?.name == "home")
    }

    @Test("The app template's preview store (a store at /dev/null) holds its ten items in memory")
    @MainActor
    func previewStoreAtDevNull() throws {
        let preview = PersistenceController.preview
        let count = try preview.container.viewContext.count(for: Item.fetchRequest())
        #expect(count == 10)
        let fresh = PersistenceController(inMemory: true)
        #expect(try fresh.container.viewContext.count(for: Item.fetchRequest()) == 0)
    }

    @Test("Observers read ObjectsDidChange and DidSaveObjectIDs through the typed keys")
    func typedNotificationKeys() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.newBackgroundContext()
        let observer = ChangeObserver()
        observer.observe(context)
        try context.performAndWait {
            _ = Item.make(in: context, title: "One")
            _ = Item.make(in: context, title: "Two")
            context.processPendingChanges()
            try context.save()
        }
        #expect(observer.insertedCount == 2)
        #expect(observer.savedIDs.count == 2)
        #expect(NSManagedObjectContext.NotificationKey.insertedObjects.rawValue == NSInsertedObjectsKey)
        #expect(NSManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue == NSInvalidatedAllObjectsKey)
        #expect(NSManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue == NSDeletedObjectIDsKey)
    }

    @Test("Adding and removing stores posts StoresDidChange with the added and removed stores, and WillRemoveStore")
    func storeNotifications() throws {
        let model = try corpusModel()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let observer = ChangeObserver()
        let changes = Recorder<Int>()
        observer.observeStores(of: coordinator) { stores in changes.append(stores.count) }
        let willRemove = Recorder<String>()
        let token = NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorWillRemoveStore, object: nil, queue: nil) { note in
            willRemove.append((note.object as? NSPersistentStore)?.type ?? "?")
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let added = Recorder<ObjectIdentifier>()
        let removed = Recorder<ObjectIdentifier>()
        let addToken = NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil) { note in
            for store in note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore] ?? [] { added.append(ObjectIdentifier(store)) }
            for store in note.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore] ?? [] { removed.append(ObjectIdentifier(store)) }
        }
        defer { NotificationCenter.default.removeObserver(addToken) }
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        #expect(added.values == [ObjectIdentifier(store)])
        #expect(removed.values.isEmpty)
        try coordinator.remove(store)
        #expect(removed.values == [ObjectIdentifier(store)])
        #expect(changes.values == [1, 1])
        #expect(willRemove.values == [NSInMemoryStoreType])
    }

    @Test("An asynchronous fetch returns at once and hands its results to the completion block on the context's queue")
    func asynchronousFetch() async throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await Importer(container: container).importAsync(["a", "b", "c"]) == 3)
        let context = container.newBackgroundContext()
        let count: Int = try await withCheckedThrowingContinuation { continuation in
            context.perform {
                do {
                    try Importer(container: container).asynchronousFetch(in: context) { count in continuation.resume(returning: count) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        #expect(count == 3)
    }

    @Test("An asynchronous fetch's result reports its progress and its objects belong to the context")
    func asynchronousFetchResult() async throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Importer(container: container).importAsync(["x"])
        let context = container.newBackgroundContext()
        let outcome: (Bool, Int64, Bool) = await withCheckedContinuation { continuation in
            context.perform {
                let request = NSAsynchronousFetchRequest(fetchRequest: Item.fetchRequest()) { result in
                    let registered = result.finalResult?.allSatisfy { $0.managedObjectContext === context } ?? false
                    continuation.resume(returning: (registered, result.progress?.completedUnitCount ?? -1, result.operationError == nil))
                }
                _ = try? context.execute(request)
            }
        }
        #expect(outcome.0)
        #expect(outcome.1 == 1)
        #expect(outcome.2)
    }

    @Test("execute(_:) of a request type the stores do not run throws NSPersistentStoreUnsupportedRequestTypeError")
    func unsupportedRequestType() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        #expect(throws: (any Error).self) { try context.execute(NSPersistentStoreRequest()) }
        do {
            try context.execute(NSPersistentStoreRequest())
        } catch let error as NSError {
            #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
            #expect(describe(error) == "unsupported request")
        }
    }

    @Test("assign(_:to:) saves a new object into the chosen store")
    func assignToStore() throws {
        let model = try corpusModel()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.appendingPathComponent("A.sqlite"))
        let second = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.appendingPathComponent("B.sqlite"))
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let item = Item(context: context)
            item.title = "In B"
            context.assign(item, to: second)
            #expect(item.objectID.persistentStore === second)
            try context.save()
            let inFirst = NSFetchRequest<Item>(entityName: "Item")
            inFirst.affectedStores = [first]
            let inSecond = NSFetchRequest<Item>(entityName: "Item")
            inSecond.affectedStores = [second]
            #expect(try context.count(for: inFirst) == 0)
            #expect(try context.fetch(inSecond).map(\.title) == ["In B"])
        }
    }

    @Test("An NSFetchedResultsController-driven data source shows sections by priority and follows inserts, edits and deletes")
    func fetchedResultsDataSource() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        // On the main queue, as a view controller runs (the test itself runs elsewhere).
        try context.performAndWait { () throws in
            let milk = Item.make(in: context, title: "Milk")
            let bread = Item.make(in: context, title: "Bread")
            bread.priority = 1
            try context.save()
            let source = ItemListDataSource(context: context)
            try source.load()
            #expect(source.rows == [["Bread"], ["Milk"]])
            #expect(source.titleForHeader(inSection: 0) == "1")

            let eggs = Item.make(in: context, title: "Eggs")
            eggs.priority = 1
            context.processPendingChanges()
            #expect(source.rows == [["Bread", "Eggs"], ["Milk"]])
            milk.priority = 1
            context.processPendingChanges()
            #expect(source.rows == [["Bread", "Eggs", "Milk"]])
            context.delete(bread)
            try context.save()
            #expect(source.rows == [["Eggs", "Milk"]])
            #expect(source.batches >= 3)
        }
    }

    @Test("A missing to-many NSSet defaults with ?? [] as on Apple platforms")
    func nsSetLiteralDefault() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let item = Item(context: container.viewContext)
        let tags: NSSet = item.tags ?? []
        #expect(tags.count == 0)
        let none: NSSet? = nil
        #expect((none ?? []).count == 0)
        let mutable: NSMutableSet? = nil
        let filled = mutable ?? ["a", "b"]
        filled.add("c")
        #expect(filled.count == 3)
        let ordered: NSOrderedSet = []
        #expect(ordered.count == 0)
    }

    @Test("Xcode-style accessors, sorted to-many arrays and reads through the ordered proxy")
    func accessorsAndSortedSets() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let folder = Folder(context: context)
        let tag = Tag(context: context)
        let items = ["c", "a", "b"].enumerated().map { index, title in
            let item = Item(context: context)
            item.title = title
            item.priority = Int16(index)
            return item
        }
        for item in items { folder.addToItems(item); tag.addToItems(item) }
        #expect(folder.itemTitles == ["c", "a", "b"])
        #expect(folder.firstItem === items[0])
        folder.insertIntoItems(items[2], at: 0)  // already a member: no change
        folder.removeFromItems(at: 0)
        #expect(folder.itemTitles == ["a", "b"])
        #expect(items[0].folder == nil && items[1].folder === folder)
        #expect(tag.sortedItems.map(\.title) == ["a", "b", "c"])
        #expect(tag.itemsByPriority.map(\.title) == ["b", "a", "c"])
        tag.removeFromItems(NSSet(array: [items[0]]))
        #expect(tag.sortedItems.map(\.title) == ["a", "b"])
        #expect((items[0].tags ?? []).count == 0)
        try context.save()
        context.refreshAllObjects()
        #expect(folder.itemTitles == ["a", "b"])
    }

    @Test("JSON import and export through Codable payloads, tags reused by name")
    func jsonImport() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = Data(#"[{"title":"Milk","priority":2,"tags":["home","shop"]},{"title":"Report","priority":5,"tags":["work","home"]}]"#.utf8)
        let items = try ItemImporter.importItems(from: json, into: container.viewContext)
        #expect(items.map(\.title) == ["Milk", "Report"])
        #expect(try container.viewContext.count(for: Tag.fetchRequest()) == 3)
        let exported = try ItemImporter.exportItems(items)
        #expect(String(decoding: exported, as: UTF8.self) == #"[{"priority":2,"tags":["home","shop"],"title":"Milk"},{"priority":5,"tags":["home","work"],"title":"Report"}]"#)
    }

    @Test("A batch delete's object IDs merged into the view context delete its objects; sums by expression")
    func batchDeleteMerge() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let items = (0..<6).map { index -> Item in
            let item = Item(context: context)
            item.title = "item \(index)"
            item.priority = Int16(index)
            return item
        }
        try context.save()
        #expect(try Cleanup.prioritySum(in: context) == 15)
        #expect(try Cleanup.deleteLowPriority(below: 3, container: container) == 3)
        #expect(items.prefix(3).allSatisfy { $0.isDeleted || $0.managedObjectContext == nil })
        #expect(try context.count(for: Item.fetchRequest()) == 3)
        #expect(try Cleanup.prioritySum(in: context) == 12)
    }

    @Test("A Codable managed object decodes into the context its decoder carries, encodes back, and validates on save")
    func codableManagedObject() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let json = Data(#"[{"name":"Ada","age":36,"email":"ada@example.com"},{"name":"Alan"}]"#.utf8)
        let contacts = try ContactDecoding.decode(json, into: context)
        #expect(contacts.map(\.name) == ["Ada", "Alan"])
        #expect(contacts.allSatisfy { $0.managedObjectContext === context && $0.isInserted })
        try context.save()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(contacts), as: UTF8.self)
            == #"[{"age":36,"email":"ada@example.com","name":"Ada"},{"age":0,"name":"Alan"}]"#)

        do {
            _ = try JSONDecoder().decode([Contact].self, from: json)
            Issue.record("decoding without a context in userInfo must throw")
        } catch DecoderConfigurationError.missingManagedObjectContext {}

        _ = try ContactDecoding.decode(Data(#"[{"name":"Eve","email":"nowhere"}]"#.utf8), into: context)
        #expect(throws: (any Error).self) { try context.save() }
        do { try context.save() } catch {
            #expect((error as NSError).code == NSValidationStringPatternMatchingError)
        }
        context.rollback()
        #expect(try context.count(for: Contact.fetchRequest()) == 2)
    }

    @Test("Store housekeeping: batch inserts and updates, typed destroy, URIs, searches and grouped counts")
    func storeMaintenance() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Maintenance.sqlite")
        let container = try StoreMaintenance.makeContainer(model: try corpusModel(), at: url)
        let context = container.viewContext
        #expect(try StoreMaintenance.batchInsert(titles: ["Apple", "apricot", "Banana"], into: context))
        #expect(try StoreMaintenance.batchInsert(count: 2, into: context).count == 2)
        #expect(try context.count(for: Item.fetchRequest()) == 5)

        let found = try StoreMaintenance.search(["ap", "gen"], before: Date(), in: context)
        #expect(found.map(\.title) == ["generated 0", "generated 1", "apricot", "Apple"])
        let apricot = try #require(found.first { $0.title == "apricot" })
        #expect(try StoreMaintenance.bumpPriority(matching: "AP", container: container) == 2)
        #expect(apricot.priority == 7)
        #expect(try StoreMaintenance.countsByPriority(in: context) == [7: 2, 2: 1, 9: 2])

        let uri = apricot.objectID.uriRepresentation()
        #expect(StoreMaintenance.item(forURI: uri, in: container) === apricot)
        #expect(StoreMaintenance.item(forURI: URL(string: "x-coredata://nowhere/Item/p1")!, in: container) == nil)

        try StoreMaintenance.destroyStore(of: container)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("A store's metadata tells whether it needs migrating and which model wrote it; a manual migration runs a custom policy")
    func migrationCheck() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sourceURL = directory.appendingPathComponent("V1.sqlite")
        let version1 = try corpusModel()
        let version2 = try corpusModel()
        let note = NSAttributeDescription()
        note.name = "note"
        note.attributeType = .stringAttributeType
        note.isOptional = true
        try #require(version2.entitiesByName["Item"]).properties.append(note)

        #expect(try !MigrationCheck.requiresMigration(at: sourceURL, to: version2))
        do {
            let container = try StoreMaintenance.makeContainer(model: version1, at: sourceURL)
            for title in ["one", "two"] { Item(context: container.viewContext).title = title }
            try container.viewContext.save()
            for store in container.persistentStoreCoordinator.persistentStores {
                try container.persistentStoreCoordinator.remove(store)
            }
        }
        #expect(try MigrationCheck.requiresMigration(at: sourceURL, to: version2))
        #expect(try !MigrationCheck.requiresMigration(at: sourceURL, to: version1))
        #expect(try MigrationCheck.sourceModel(at: sourceURL, among: [version2, version1]) === version1)

        let destinationURL = directory.appendingPathComponent("V2.sqlite")
        try MigrationCheck.migrate(from: sourceURL, source: version1, to: version2, into: destinationURL,
                                   itemPolicy: String(reflecting: UppercaseTitlePolicy.self))
        #expect(try !MigrationCheck.requiresMigration(at: destinationURL, to: version2))
        let migrated = try StoreMaintenance.makeContainer(model: version2, at: destinationURL)
        let items = try migrated.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
        #expect(items.compactMap { $0.value(forKey: "title") as? String }.sorted() == ["ONE", "TWO"])
        #expect(items.allSatisfy { $0.value(forKey: "note") == nil })
    }

    @Test("The Managed protocol pattern: typed entity names, sorted requests, find-or-create, save-or-rollback")
    func managedProtocol() throws {
        let (container, directory) = try makeContainer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        #expect(Tag.entityName == "Tag")
        let work = Tag.findOrCreate(in: context, matching: NSPredicate(format: "name == %@", "work")) { $0.name = "work" }
        let again = Tag.findOrCreate(in: context, matching: NSPredicate(format: "name == %@", "work")) { $0.name = "other" }
        #expect(work === again)
        _ = Tag.findOrCreate(in: context, matching: NSPredicate(format: "name == %@", "home")) { $0.name = "home" }
        #expect(context.saveOrRollback())
        context.reset()
        let fetched = Tag.findOrFetch(in: context, matching: NSPredicate(format: "name == %@", "home"))
        #expect(fetched?.name == "home")
        #expect(try context.fetch(Tag.sortedFetchRequest).map(\.name) == ["home", "work"])
        #expect(Tag.count(in: context) == 2)
        #expect(Tag.count(in: context) { $0.predicate = NSPredicate(format: "name BEGINSWITH 'w'") } == 1)
    }

    @Test("History from another author is fetched after a token and merged into the view context; async perform returns IDs")
    func historyAndAsyncPerform() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try NSPersistentContainer(loadingModelNamed: "Corpus", in: [Bundle.module])
        let description = try #require(container.persistentStoreDescriptions.first)
        description.url = directory.appendingPathComponent("Corpus.sqlite")
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }

        let processor = HistoryProcessor(container: container)
        #expect(try processor.processNewTransactions() == 0)
        let ids = try await AsyncWork.createItems(["x", "y"], container: container)
        #expect(ids.count == 2 && ids.allSatisfy { !$0.isTemporaryID })
        // The importer's own transaction is filtered out by author.
        #expect(try processor.processNewTransactions() == 0)
        let other = container.newBackgroundContext()
        other.transactionAuthor = "sync"
        try other.performAndWait {
            let item = Item(context: other)
            item.title = "z"
            try other.save()
        }
        #expect(try processor.processNewTransactions() == 1)
        #expect(try processor.processNewTransactions() == 0)
        let titles = try container.viewContext.fetch(Item.fetchRequest()).compactMap(\.title).sorted()
        #expect(titles == ["x", "y", "z"])
    }
}

/// Collects values posted from notification blocks.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var stored: [Value] = []
    func append(_ value: Value) { lock.lock(); stored.append(value); lock.unlock() }
    var values: [Value] { lock.lock(); defer { lock.unlock() }; return stored }
}
