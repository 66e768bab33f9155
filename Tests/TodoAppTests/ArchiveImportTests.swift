import OpenCoreData
import Testing
@testable import TodoApp

/// `todo import` through `NSBatchInsertRequest` upserts and one linking save, on SQLite stores
/// (batch requests need one, as on Apple platforms).
@Suite("Archive import")
struct ArchiveImportTests {
    /// A SQLite store in a fresh temporary folder, with the repositories over it.
    struct Store {
        let folder: URL
        let container: NSPersistentContainer
        var todos: TodoRepository { TodoRepository(container: container) }
        var archives: ArchiveRepository { ArchiveRepository(container: container) }

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("todo-import-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            container = try TodoPersistence.makeContainer(storeURL: folder.appendingPathComponent("Todo.sqlite"))
        }

        /// The store's export as JSON (dates in milliseconds, as files hold them).
        func exported() async throws -> Data {
            try TodoArchive.makeEncoder().encode(try await archives.export())
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    static func encode(_ archive: TodoArchive) throws -> Data { try TodoArchive.makeEncoder().encode(archive) }

    /// A date with whole milliseconds, so it survives a trip through the JSON unchanged.
    static func date(_ seconds: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + TimeInterval(seconds)) }

    @Test("import → export gives the same file; a second import updates every record and duplicates none")
    func roundTripAndReimport() async throws {
        let source = try Store()
        let copy = try Store()
        defer { source.remove(); copy.remove() }
        _ = try await source.todos.add(title: "A", tags: ["x", "y"], location: "L")
        let done = try await source.todos.add(title: "B")
        _ = try await source.todos.setDone(done.id, true)
        _ = try await TagRepository(container: source.container).add(title: "unused")
        let data = try await source.exported()

        let first = try await copy.archives.importArchive(data)
        #expect(first == ImportSummary(tagsCreated: 3, locationsCreated: 1, todosCreated: 2))
        #expect(try await copy.exported() == data)
        let second = try await copy.archives.importArchive(data)
        #expect(second == ImportSummary(tagsUpdated: 3, locationsUpdated: 1, todosUpdated: 2))
        #expect(try await copy.todos.stats() == TodoStats(todos: 2, done: 1, open: 1, tags: 3, locations: 1, untagged: 1))
        #expect(try await copy.exported() == data)
    }

    @Test("an import that changes titles and references updates them and links what the file says")
    func reimportChangesTitlesAndLinks() async throws {
        let store = try Store()
        defer { store.remove() }
        let (home, work) = (UUID().uuidString, UUID().uuidString)
        let (shop, office) = (UUID().uuidString, UUID().uuidString)
        let todoId = UUID().uuidString
        var archive = TodoArchive(
            format: "opencoredata-todo", version: 1,
            tags: [.init(tagId: home, title: "home", createdAt: Self.date(0), updatedAt: Self.date(1)),
                   .init(tagId: work, title: "work", createdAt: Self.date(0), updatedAt: Self.date(1))],
            locations: [.init(id: shop, placeName: "Shop", latitude: 1, longitude: 2, altitude: 3),
                        .init(id: office, placeName: "Office")],
            todos: [.init(todoId: todoId, title: "Buy milk", createdAt: Self.date(0), updatedAt: Self.date(2), tags: [home], location: shop)])
        _ = try await store.archives.importArchive(Self.encode(archive))

        archive.tags[0].title = "house"
        archive.todos[0].title = "Buy oat milk"
        archive.todos[0].tags = [work]
        archive.todos[0].location = office
        let summary = try await store.archives.importArchive(Self.encode(archive))
        #expect(summary == ImportSummary(tagsUpdated: 2, locationsUpdated: 2, todosUpdated: 1))
        let item = try await store.todos.get(todoId)
        #expect(item.title == "Buy oat milk")
        #expect(item.tags.map(\.id) == [work])
        #expect(item.location?.id == office)
        #expect(try await TagRepository(container: store.container).list().map(\.title) == ["house", "work"])
        // Upserts update the stored rows in place: still one row per id.
        #expect(try await store.todos.stats() == TodoStats(todos: 1, done: 0, open: 1, tags: 2, locations: 2, untagged: 0))
    }

    @Test("a record without dates keeps the stored ones (the upsert would reset them to the default)")
    func missingDatesKeepStoredValues() async throws {
        let store = try Store()
        defer { store.remove() }
        let tagId = UUID().uuidString
        let todoId = UUID().uuidString
        let dated = TodoArchive(format: "opencoredata-todo", version: 1,
                                tags: [.init(tagId: tagId, title: "t", createdAt: Self.date(10), updatedAt: Self.date(20))], locations: [],
                                todos: [.init(todoId: todoId, title: "a", createdAt: Self.date(10), updatedAt: Self.date(30), tags: [tagId])])
        _ = try await store.archives.importArchive(Self.encode(dated))
        let undated = TodoArchive(format: "opencoredata-todo", version: 1, tags: [.init(tagId: tagId, title: "t2")], locations: [],
                                  todos: [.init(todoId: todoId, title: "b")])
        _ = try await store.archives.importArchive(Self.encode(undated))
        let item = try await store.todos.get(todoId)
        #expect(item.title == "b")
        #expect(item.createdAt == Self.date(10) && item.updatedAt == Self.date(30))
        // The file names no tags for the to-do now, so it has none.
        #expect(item.tags.isEmpty)
        let tag = try #require(try await TagDAO(container: store.container).findOne(id: tagId))
        #expect(tag.title == "t2" && tag.createdAt == Self.date(10) && tag.updatedAt == Self.date(20))
    }

    @Test("a to-do naming a tag that is neither in the file nor stored fails validation: nothing is written")
    func danglingTagReferenceImportsNothing() async throws {
        let store = try Store()
        defer { store.remove() }
        _ = try await store.todos.add(title: "Keep me", tags: ["home"])
        let before = try await store.exported()
        let missing = UUID().uuidString
        let archive = TodoArchive(format: "opencoredata-todo", version: 1,
                                  tags: [.init(tagId: UUID().uuidString, title: "new")], locations: [.init(id: "L1", placeName: "Here")],
                                  todos: [.init(todoId: UUID().uuidString, title: "fine"),
                                          .init(todoId: UUID().uuidString, title: "bad", tags: [missing])])
        await #expect { try await store.archives.importArchive(Self.encode(archive)) } throws: { error in
            "\(error)".hasPrefix("todos[1]") && "\(error)".contains("no tag matches '\(missing)'")
        }
        #expect(try await store.exported() == before)
    }

    @Test("references to tags and locations already in the store are found")
    func referencesToStoredRecords() async throws {
        let store = try Store()
        defer { store.remove() }
        let existing = try await store.todos.add(title: "Old", tags: ["home"], location: "Shop")
        let tag = try #require(existing.tags.first)
        let location = try #require(existing.location)
        let todoId = UUID().uuidString
        let archive = TodoArchive(format: "opencoredata-todo", version: 1, tags: [], locations: [],
                                  todos: [.init(todoId: todoId, title: "New", tags: [tag.id], location: location.id)])
        #expect(try await store.archives.importArchive(Self.encode(archive)) == ImportSummary(todosCreated: 1))
        let item = try await store.todos.get(todoId)
        #expect(item.tags.map(\.id) == [tag.id] && item.location?.id == location.id)
    }

    @Test("2,000 to-dos with 50 tags and 10 locations import with their links; importing again changes no link")
    func largeFile() async throws {
        let store = try Store()
        defer { store.remove() }
        let tags = (0..<50).map { TodoArchive.Tag(tagId: UUID().uuidString, title: "tag \($0)", createdAt: Self.date($0), updatedAt: Self.date($0)) }
        let locations = (0..<10).map { TodoArchive.Location(id: "loc-\($0)", placeName: "Place \($0)", latitude: Double($0)) }
        let todos = (0..<2_000).map { index in
            TodoArchive.Todo(todoId: UUID().uuidString, title: "Task \(index)", createdAt: Self.date(index), updatedAt: Self.date(index),
                             completedAt: index.isMultiple(of: 3) ? Self.date(index + 1) : nil,
                             tags: index.isMultiple(of: 5) ? [] : [tags[index % 50].tagId, tags[(index * 7 + 1) % 50].tagId],
                             location: index.isMultiple(of: 4) ? nil : locations[index % 10].id)
        }
        let archive = TodoArchive(format: "opencoredata-todo", version: 1, tags: tags, locations: locations, todos: todos)
        let data = try Self.encode(archive)
        #expect(try await store.archives.importArchive(data) == ImportSummary(tagsCreated: 50, locationsCreated: 10, todosCreated: 2_000))
        let exported = try await store.archives.export()
        #expect(exported.todos.count == 2_000 && exported.tags.count == 50 && exported.locations.count == 10)
        let byId = Dictionary(uniqueKeysWithValues: exported.todos.map { ($0.todoId, $0) })
        for todo in todos {
            let stored = try #require(byId[todo.todoId])
            #expect(stored.title == todo.title && stored.completedAt == todo.completedAt && stored.updatedAt == todo.updatedAt)
            #expect(Set(stored.tags ?? []) == Set(todo.tags ?? []))
            #expect(stored.location == todo.location)
        }
        #expect(try await store.archives.importArchive(data) == ImportSummary(tagsUpdated: 50, locationsUpdated: 10, todosUpdated: 2_000))
        #expect(try await store.todos.stats().todos == 2_000)
    }

    @Test("an import's batch inserts are in persistent history after the pre-import token, as watch shows them")
    func importShowsUpInHistory() async throws {
        let store = try Store()
        defer { store.remove() }
        let coordinator = store.container.persistentStoreCoordinator
        _ = try await store.todos.add(title: "Before")
        let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
        let (home, todoId) = (UUID().uuidString, UUID().uuidString)
        let archive = TodoArchive(format: "opencoredata-todo", version: 1, tags: [.init(tagId: home, title: "home")], locations: [],
                                  todos: [.init(todoId: todoId, title: "Imported", tags: [home])])
        _ = try await store.archives.importArchive(Self.encode(archive))

        let context = store.container.newBackgroundContext()
        let (inserted, authors) = try await context.perform {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
            let transactions = (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
            let inserted = transactions.flatMap { $0.changes ?? [] }.filter { $0.changeType == .insert }.map { $0.changedObjectID.entity.name ?? "?" }
            return (inserted.sorted(), Set(transactions.compactMap(\.author)))
        }
        #expect(inserted == ["TagEntity", "TodoEntity"])
        #expect(authors == [ArchiveRepository.importAuthor])
        let (lines, _) = try await context.perform { try Watch.describeHistory(after: token, in: context) }
        #expect(lines.contains { $0.hasPrefix("inserted TagEntity \"home\"") })
        #expect(lines.contains { $0.hasPrefix("inserted TodoEntity \"Imported\"") })
        // The linking save sets the imported to-do's tags.
        #expect(lines.contains { $0.hasPrefix("updated TodoEntity \"Imported\"") && $0.contains("tags") })
    }
}
