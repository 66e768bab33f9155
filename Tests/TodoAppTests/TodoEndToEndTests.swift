import Foundation
import Testing

/// Drives the built `todo` binary through a whole session against a temporary store.
@Suite("todo end to end", .serialized)
struct TodoEndToEndTests {
    private func items(_ page: Any) -> [[String: Any]] {
        ((page as? [String: Any])?["items"] as? [[String: Any]]) ?? []
    }

    private func total(_ page: Any) -> Int {
        ((page as? [String: Any])?["total"] as? Int) ?? -1
    }

    private func stats(_ todo: TodoBinary) throws -> [String: Int] {
        try todo.json(["stats"]) as? [String: Int] ?? [:]
    }

    @Test("add, list, filter, page, done, tag, export, delete, import")
    func session() throws {
        #expect(TodoBinary.executable != nil, "the todo executable is built next to the tests")
        let todo = try TodoBinary()
        defer { todo.remove() }

        // add
        let milk = try #require(try todo.json(["add", "Buy milk", "--tag", "home", "--location", "Shop"]) as? [String: Any])
        let milkId = try #require(milk["id"] as? String)
        #expect(milk["title"] as? String == "Buy milk")
        #expect((milk["location"] as? [String: Any])?["placeName"] as? String == "Shop")
        let walk = try #require(try todo.json(["add", "Walk the dog", "--tag", "home", "--tag", "outside"]) as? [String: Any])
        let walkId = try #require(walk["id"] as? String)
        try todo.ok(["add", "Write report", "--tag", "work"])
        for title in ["Café visit", "Pay rent", "Read book"] { try todo.ok(["add", title]) }
        #expect(try todo.ok(["add", "Buy milk"]).hasPrefix("Added "))

        // list: all, newest first; search ignores case and accents; tag filter
        let all = try todo.json(["list"])
        #expect(total(all) == 7)
        #expect(items(all).first?["title"] as? String == "Buy milk")
        #expect(total(try todo.json(["list", "--search", "MILK"])) == 2)
        #expect(total(try todo.json(["list", "--search", "cafe"])) == 1)
        let home = try todo.json(["list", "--tag", "home"])
        #expect(Set(items(home).compactMap { $0["id"] as? String }) == [milkId, walkId])

        // paging: pages of 3 cover every to-do once, in order
        var seen: [String] = []
        for page in 1...3 {
            let result = try todo.json(["list", "--page", "\(page)", "--page-size", "3"])
            #expect(total(result) == 7)
            seen += items(result).compactMap { $0["id"] as? String }
        }
        #expect(seen == items(all).compactMap { $0["id"] as? String })
        #expect(items(try todo.json(["list", "--page", "4", "--page-size", "3"])).isEmpty)
        #expect(try todo.ok(["list", "--page-size", "3"]).contains("Page 1 of 3 (7 to-do(s))"))

        // done / undone, by short id
        try todo.ok(["done", String(milkId.prefix(8))])
        #expect(items(try todo.json(["list", "--done"])).compactMap { $0["id"] as? String } == [milkId])
        #expect(total(try todo.json(["list", "--open"])) == 6)
        try todo.ok(["undone", milkId])
        #expect(total(try todo.json(["list", "--done"])) == 0)
        try todo.ok(["done", milkId])

        // edit and tags
        try todo.ok(["edit", walkId, "--title", "Walk the dog twice", "--remove-tag", "outside", "--add-tag", "pets"])
        let tags = try #require(try todo.json(["tag", "list"]) as? [[String: Any]])
        let counts = Dictionary(uniqueKeysWithValues: tags.compactMap { tag in (tag["title"] as? String).map { ($0, tag["todoCount"] as? Int ?? -1) } })
        #expect(counts == ["home": 2, "outside": 0, "pets": 1, "work": 1])
        try todo.ok(["tag", "add", "errands"])
        try todo.ok(["tag", "rename", "errands", "chores"])
        try todo.ok(["location", "add", "Office", "--latitude", "48.85", "--longitude", "2.35"])
        #expect(try todo.ok(["location", "list"]).contains("Office"))
        #expect(try todo.ok(["list"]).contains("Walk the dog twice"))

        // export
        let exportFile = todo.directory.appendingPathComponent("export.json")
        try todo.ok(["export", "--output", exportFile.path])
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: exportFile)) as? [String: Any])
        #expect((exported["todos"] as? [Any])?.count == 7)
        #expect((exported["tags"] as? [Any])?.count == 5)
        #expect((exported["locations"] as? [Any])?.count == 2)
        let before = try stats(todo)

        // delete a to-do, then a tag: the tag's to-dos stay
        try todo.ok(["delete", walkId])
        #expect(total(try todo.json(["list"])) == 6)
        try todo.ok(["tag", "delete", "home"])
        #expect(total(try todo.json(["list"])) == 6)
        let milkAfter = try #require(items(try todo.json(["list", "--search", "milk", "--done"])).first)
        #expect((milkAfter["tags"] as? [Any])?.isEmpty == true)
        #expect(try todo.run(["list", "--tag", "home"]).status != 0)

        // import restores what was deleted; importing again changes nothing
        try todo.ok(["import", exportFile.path])
        #expect(try stats(todo) == before)
        #expect(Set(items(try todo.json(["list", "--tag", "home"])).compactMap { $0["id"] as? String }) == [milkId, walkId])
        let second = try #require(try todo.json(["import", exportFile.path]) as? [String: Int])
        #expect(second["todosCreated"] == 0 && second["tagsCreated"] == 0 && second["locationsCreated"] == 0)
        #expect(second["todosUpdated"] == 7)
        #expect(try stats(todo) == before)
    }

    @Test("export → import into an empty store → export gives the same records")
    func roundTrip() throws {
        let first = try TodoBinary()
        let second = try TodoBinary()
        defer { first.remove(); second.remove() }
        try first.ok(["add", "Buy milk", "--tag", "home", "--location", "Shop"])
        let report = try #require(try first.json(["add", "Write report", "--tag", "work", "--tag", "home"]) as? [String: Any])
        try first.ok(["done", try #require(report["id"] as? String)])
        try first.ok(["tag", "add", "unused"])
        let file = first.directory.appendingPathComponent("a.json")
        try first.ok(["export", "--output", file.path])

        try second.ok(["import", file.path])
        try second.ok(["import", file.path])
        let original = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? NSDictionary
        let copy = try JSONSerialization.jsonObject(with: Data(second.ok(["export"]).utf8)) as? NSDictionary
        #expect(original != nil)
        #expect(original == copy)
        #expect(try stats(second) == (try stats(first)))
    }

    @Test("a bad file imports nothing and names the record")
    func atomicImport() throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        try todo.ok(["add", "Keep me", "--tag", "home"])
        let before = try stats(todo)
        let good = UUID().uuidString
        let badFiles: [(json: String, record: String)] = [
            // an id that is not a UUID, after a good record
            (#"{"format":"opencoredata-todo","version":1,"tags":[],"locations":[],"todos":[{"todoId":"\#(good)","title":"New"},{"todoId":"nope","title":"Bad"}]}"#, "todos[1]"),
            // a missing title
            (#"{"format":"opencoredata-todo","version":1,"tags":[],"locations":[],"todos":[{"todoId":"\#(good)"}]}"#, "todos[0]"),
            // a tag that exists nowhere: found by validation, before the batch inserts write anything
            (#"{"format":"opencoredata-todo","version":1,"tags":[],"locations":[],"todos":[{"todoId":"\#(good)","title":"New"},{"todoId":"\#(UUID().uuidString)","title":"Bad","tags":["\#(UUID().uuidString)"]}]}"#, "todos[1]"),
            ("not json", "not valid JSON"),
        ]
        for (index, bad) in badFiles.enumerated() {
            let file = todo.directory.appendingPathComponent("bad\(index).json")
            try Data(bad.json.utf8).write(to: file)
            let result = try todo.run(["import", file.path])
            #expect(result.status != 0)
            #expect(result.stderr.contains(bad.record), "\(result.stderr)")
            #expect(result.stderr.contains("nothing was imported"))
            #expect(try stats(todo) == before)
        }
    }

    @Test("edit works in a child context: an edit the model's validation refuses exits with the error and changes nothing")
    func refusedEditChangesNothing() throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        let added = try #require(try todo.json(["add", "Buy milk", "--tag", "home", "--location", "Shop"]) as? [String: Any])
        let id = try #require(added["id"] as? String)
        let before = try todo.ok(["export"])

        // The model caps TodoEntity.title at 200 characters; the child's save refuses 201.
        let tooLong = String(repeating: "x", count: 201)
        let refused = try todo.run(["edit", String(id.prefix(8)), "--title", tooLong, "--add-tag", "errands", "--location", "Office"])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("TodoEntity.title") && refused.stderr.contains("200"), "\(refused.stderr)")
        #expect(refused.stderr.contains("NSCocoaErrorDomain 1660"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("Fatal error"))
        // The store has the to-do as it was, and neither the tag nor the location the edit made.
        #expect(try todo.ok(["export"]) == before)
        let listed = items(try todo.json(["list"]))
        #expect(listed.count == 1 && listed.first?["title"] as? String == "Buy milk")
        #expect(try todo.ok(["tag", "list"]).contains("errands") == false)

        // A valid edit still saves the child, then the view context, to the store.
        try todo.ok(["edit", String(id.prefix(8)), "--title", "Buy oat milk", "--add-tag", "errands", "--location", "Office"])
        let after = try #require(items(try todo.json(["list"])).first)
        #expect(after["title"] as? String == "Buy oat milk")
        #expect(((after["tags"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["errands", "home"])
        #expect((after["location"] as? [String: Any])?["placeName"] as? String == "Office")
    }

    @Test("errors go to stderr with a non-zero status and no stack trace; --help shows examples")
    func errorsAndHelp() throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        try todo.ok(["add", "Only one"])
        for arguments in [["done", "ffffffff"], ["done", "ab"], ["list", "--done", "--open"], ["list", "--page", "0"],
                          ["tag", "delete", "nope"], ["add", "  "], ["import", "/nonexistent/file.json"], ["frobnicate"]] {
            let result = try todo.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(!result.stderr.isEmpty, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"), "\(arguments)")
        }
        let help = try todo.run(["--help"], store: false)
        #expect(help.status == 0)
        #expect(help.stdout.contains("Examples:") && help.stdout.contains("todo add \"Buy milk\" --tag home"))
        #expect(try todo.run(["list", "--help"], store: false).stdout.contains("--page-size"))
    }
}
