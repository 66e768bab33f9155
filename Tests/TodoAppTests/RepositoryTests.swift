import OpenCoreData
import Testing
@testable import TodoApp

/// The repository layer over an in-memory store.
@Suite("Repositories")
struct RepositoryTests {
    let container: NSPersistentContainer
    let todos: TodoRepository
    let tags: TagRepository
    let locations: LocationRepository
    let archives: ArchiveRepository

    init() throws {
        container = try TodoPersistence.makeContainer(storeURL: nil)
        todos = TodoRepository(container: container)
        tags = TagRepository(container: container)
        locations = LocationRepository(container: container)
        archives = ArchiveRepository(container: container)
    }

    @Test func addFindsOrCreatesTagsAndLocationByName() async throws {
        let first = try await todos.add(title: "  Buy milk ", tags: ["home", "Home", "shop"], location: "Market")
        #expect(first.title == "Buy milk")
        #expect(first.tags.map(\.title) == ["home", "shop"])
        #expect(first.location?.placeName == "Market")
        let second = try await todos.add(title: "Buy eggs", tags: ["HOME"], location: "market")
        #expect(second.tags.map(\.id) == [first.tags[0].id])
        #expect(second.location?.id == first.location?.id)
        #expect(try await tags.list().map(\.todoCount) == [2, 1])
        #expect(try await locations.list().count == 1)
        await #expect(throws: TodoAppError.self) { try await todos.add(title: " ") }
    }

    @Test func listFiltersPagesAndSortsNewestFirst() async throws {
        for index in 1...5 { _ = try await todos.add(title: "Task \(index)", tags: index.isMultiple(of: 2) ? ["even"] : []) }
        let all = try await todos.list()
        #expect(all.items.map(\.title) == ["Task 5", "Task 4", "Task 3", "Task 2", "Task 1"])
        let page2 = try await todos.list(page: 2, pageSize: 2)
        #expect(page2.items.map(\.title) == ["Task 3", "Task 2"])
        #expect(page2.total == 5)
        #expect(try await todos.list(tag: "even").items.map(\.title) == ["Task 4", "Task 2"])
        #expect(try await todos.list(search: "task 1").items.map(\.title) == ["Task 1"])
        _ = try await todos.setDone(all.items[4].id, true)
        #expect(try await todos.list(isDone: true).items.map(\.title) == ["Task 1"])
        #expect(try await todos.list(isDone: false).total == 4)
        // Marking done counts as a change, so the to-do moves to the top.
        #expect(try await todos.list().items.first?.title == "Task 1")
        await #expect(throws: TodoAppError.self) { try await todos.list(tag: "missing") }
        await #expect(throws: TodoAppError.self) { try await todos.list(page: 0) }
        await #expect(throws: TodoAppError.self) { try await todos.list(pageSize: 0) }
    }

    @Test func doneKeepsItsDateAndUndoneClearsIt() async throws {
        let item = try await todos.add(title: "Ship")
        let done = try await todos.setDone(item.id, true)
        #expect(done.isDone)
        #expect(try await todos.setDone(item.id, true).completedAt == done.completedAt)
        #expect(try await todos.setDone(item.id, false).completedAt == nil)
    }

    @Test func editChangesTitleTagsAndLocation() async throws {
        let item = try await todos.add(title: "Old", tags: ["a", "b"], location: "Here")
        let edited = try await todos.edit(item.id, title: "New", addTags: ["c"], removeTags: ["a"], location: "There")
        #expect(edited.title == "New")
        #expect(edited.tags.map(\.title) == ["b", "c"])
        #expect(edited.location?.placeName == "There")
        #expect(try await todos.edit(item.id, location: "").location == nil)
        await #expect(throws: TodoAppError.self) { try await todos.edit(item.id, removeTags: ["nope"]) }
    }

    /// Core Data validates on save (a string attribute's maximum length, from the model); the edit
    /// runs in a child of the view context, so a refused edit is dropped with the child and
    /// neither the view context nor the store ever see it, not even the tag and location it made.
    @Test func anEditTheModelRefusesChangesNothing() async throws {
        let item = try await todos.add(title: "Keep", tags: ["a"], location: "Here")
        let tooLong = String(repeating: "x", count: 201)
        await #expect {
            try await todos.edit(item.id, title: tooLong, addTags: ["new"], location: "Elsewhere")
        } throws: { error in
            let message = (error as? TodoAppError)?.message ?? ""
            return message.contains("title") && message.contains("200") && message.contains("\(NSValidationStringTooLongError)")
        }
        #expect(try await todos.get(item.id) == item)
        #expect(try await tags.list().map(\.title) == ["a"])
        #expect(try await locations.list().map(\.placeName) == ["Here"])
        let viewContext = container.viewContext
        #expect(await viewContext.perform { !viewContext.hasChanges })
        // The longest title the model allows passes, through the same child context.
        let longest = String(repeating: "y", count: 200)
        let edited = try await todos.edit(item.id, title: longest, addTags: ["new", "NEW"], location: "Elsewhere")
        #expect(edited.title == longest)
        #expect(edited.tags.map(\.title) == ["a", "new"])
        #expect(try await todos.get(item.id) == edited)
        #expect(try await tags.list().map(\.title) == ["a", "new"])
        #expect(await viewContext.perform { !viewContext.hasChanges })
        await #expect(throws: TodoAppError.self) { try await todos.add(title: tooLong) }
    }

    @Test func shortIdsResolveUniquely() async throws {
        let item = try await todos.add(title: "One")
        #expect(try await todos.get(String(item.id.prefix(6)).lowercased()).id == item.id)
        await #expect(throws: TodoAppError.self) { try await todos.get("abc") }
        await #expect(throws: TodoAppError.self) { try await todos.get("ffff-not-there") }
        let deleted = try await todos.delete(item.id)
        #expect(deleted.title == "One")
        await #expect(throws: TodoAppError.self) { try await todos.get(item.id) }
    }

    @Test func deletingATagKeepsItsTodos() async throws {
        let item = try await todos.add(title: "Tagged", tags: ["home", "work"])
        let deleted = try await tags.delete("home")
        #expect(deleted.todoCount == 1)
        let after = try await todos.get(item.id)
        #expect(after.tags.map(\.title) == ["work"])
        #expect(try await todos.list().total == 1)
    }

    @Test func renameRefusesATakenTitle() async throws {
        _ = try await tags.add(title: "home")
        _ = try await tags.add(title: "work")
        await #expect(throws: TodoAppError("tag 'work' already exists")) { try await tags.rename("home", to: "Work") }
        #expect(try await tags.rename("home", to: "house").title == "house")
        #expect(try await tags.rename("house", to: "House").title == "House")
        await #expect(throws: TodoAppError.self) { try await tags.add(title: "WORK") }
    }

    @Test func stats() async throws {
        let item = try await todos.add(title: "A", tags: ["x"], location: "L")
        _ = try await todos.add(title: "B")
        _ = try await todos.setDone(item.id, true)
        #expect(try await todos.stats() == TodoStats(todos: 2, done: 1, open: 1, tags: 1, locations: 1, untagged: 1))
    }

    // MARK: - Archives

    // Imports that write need a SQLite store (batch requests): ArchiveImportTests. These fail
    // validation, before anything is written, so the in-memory store serves.

    @Test func aFailedImportWritesNothing() async throws {
        let tag = UUID().uuidString
        let json = """
            {"format": "opencoredata-todo", "version": 1,
             "tags": [{"tagId": "\(tag)", "title": "t"}], "locations": [],
             "todos": [{"todoId": "\(UUID().uuidString)", "title": "ok", "tags": ["\(tag)"]},
                       {"todoId": "\(UUID().uuidString)", "title": "bad", "location": "nowhere"}]}
            """
        await #expect { try await archives.importArchive(Data(json.utf8)) } throws: { error in
            "\(error)".hasPrefix("todos[1]") && "\(error)".contains("nowhere")
        }
        #expect(try await archives.export().todos.isEmpty)
        #expect(try await archives.export().tags.isEmpty)
    }

    @Test(arguments: [
        (#"{"format":"opencoredata-todo","version":1,"tags":[],"locations":[],"todos":[{"todoId":"x"}]}"#, "todos[0]: the field 'title' is missing"),
        (#"{"format":"opencoredata-todo","version":1,"tags":[],"locations":[],"todos":[{"todoId":"x","title":3}]}"#, "todos[0].title: expected String"),
        (#"{"format":"opencoredata-todo","version":1,"tags":[{"tagId":"bad","title":"t"}],"locations":[],"todos":[]}"#, "tags[0] (tagId bad): tagId is not a UUID"),
        (#"{"format":"other","version":1,"tags":[],"locations":[],"todos":[]}"#, "format: expected 'opencoredata-todo', found 'other'"),
        (#"{"format":"opencoredata-todo","version":2,"tags":[],"locations":[],"todos":[]}"#, "version: this todo reads version 1, the file is version 2"),
        ("[", "not valid JSON"),
        (#"{"format":"opencoredata-todo","version":1,"tags":[],"locations":[],"todos":[{"todoId":"0CD0BE4C-4200-4000-8000-000000000001","title":"\#(String(repeating: "x", count: 201))"}]}"#,
         "todos[0] (todoId 0CD0BE4C-4200-4000-8000-000000000001): the title is longer than 200 characters"),
    ])
    func badArchivesNameTheRecord(json: String, message: String) async throws {
        await #expect(throws: TodoAppError(message)) { try await archives.importArchive(Data(json.utf8)) }
    }

    @Test func duplicateIdsAreRejected() throws {
        let id = UUID().uuidString
        let archive = TodoArchive(format: "opencoredata-todo", version: 1, tags: [], locations: [],
                                  todos: [.init(todoId: id, title: "a"), .init(todoId: id, title: "b")])
        #expect(throws: TodoAppError("todos[1] (todoId \(id)): this todoId appears twice")) { try ArchiveRepository.check(archive) }
    }
}
