import Foundation
import Testing
@testable import CoreDataTool

/// `validate` finds violations planted in a store with raw SQL, and passes clean stores.
@Suite("validate", .enabled(if: Harness.sqlite3Required, "needs sqlite3"))
struct ValidateTests {
    /// A store made by importing the test model's sample file (valid), and the model's path.
    private func makeStore() throws -> (store: String, model: String) {
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let file = TemporaryFiles.folder().appendingPathComponent("seed.json")
        try Data(TestModel.export.utf8).write(to: file)
        let result = Harness.run(["import", store, file.path, "--model", model])
        #expect(result.exitCode == 0, "\(result.err)")
        return (store, model)
    }

    /// Writes to the store with the sqlite3 shell, behind Core Data's back.
    private func plant(_ store: String, _ sql: String) throws {
        let result = try Harness.runProcess(Harness.sqlite3, [store, sql])
        #expect(result.exitCode == 0, "\(result.err)")
    }

    @Test("A clean store has no violations and exits 0")
    func clean() throws {
        let (store, model) = try makeStore()
        let result = Harness.run(["validate", store, "--model", model])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out == "7 objects checked, no violations\n")
    }

    @Test("Planted violations are each reported with entity, object, key and code; exit code 1")
    func planted() throws {
        let (store, model) = try makeStore()
        try plant(store, """
            UPDATE ZAUTHOR SET ZNAME = 'X' WHERE ZNAME = 'Stanisław';
            UPDATE ZAUTHOR SET ZEMAIL = 'not an email', ZAGE = 200 WHERE ZNAME = 'Ursula';
            UPDATE ZBOOK SET ZAUTHOR = NULL WHERE ZTITLE = 'Solaris';
            INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZAUTHOR)
                SELECT 100 + n, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'), 1, 'Extra ' || n, (SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = 'Ursula')
                FROM (SELECT 1 AS n UNION SELECT 2);
            """)
        let result = Harness.run(["validate", store, "--model", model, "--json"])
        #expect(result.exitCode == 1, "\(result.err)")
        let json = try #require(try JSONParser.parse(Data(result.out.utf8)).objectValue)
        #expect(json["checked"] == .number("9"))
        let violations = (json["violations"]?.arrayValue ?? []).compactMap(\.objectValue)
        let found = Set(violations.map { "\($0["entity"]?.stringValue ?? "?").\($0["key"]?.stringValue ?? "?") \(JSONWriter.render($0["code"] ?? .null))" })
        #expect(found == [
            "Author.name 1670", "Author.email 1680", "Author.age 1610", "Author.books 1590", "Book.author 1570",
        ])
        let authorKey = try Harness.sqliteValue(URL(fileURLWithPath: store), "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = 'Ursula'")
        #expect(violations.contains { $0["key"] == .string("age") && $0["object"]?.stringValue?.hasSuffix("/Author/p\(authorKey)") == true })
        #expect(violations.allSatisfy { ($0["message"]?.stringValue ?? "").isEmpty == false })

        let text = Harness.run(["validate", store, "--model", model])
        #expect(text.exitCode == 1)
        #expect(text.out.hasSuffix("5 violations in 9 objects\n"))
        #expect(text.out.contains("1680") && text.out.contains("email"))
    }

    @Test("Every fixture store validates with its own model", .enabled(if: CLIFixtures.enabled), arguments: CLIFixtures.pairs.indices)
    func fixtures(index: Int) throws {
        let pair = CLIFixtures.pairs[index]
        let copy = try CLIFixtures.copy(try CLIFixtures.store(pair.store))
        var arguments = ["validate", copy.path]
        if let model = pair.model { arguments += ["--model", try CLIFixtures.model(model).path] }
        let result = Harness.run(arguments)
        #expect(result.exitCode == 0, "\(pair.store): \(result.out) \(result.err)")
        #expect(result.out.hasSuffix("no violations\n"))
    }
}
