import Foundation
import Testing
@testable import CoreDataTool

/// export → import round trips, idempotent re-imports, and files that import nothing.
@Suite("export and import")
struct TransferTests {
    // MARK: - Helpers

    private func objects(_ exportText: String) throws -> JSONObject {
        try #require(try JSONParser.parse(Data(exportText.utf8)).objectValue?["objects"]?.objectValue)
    }

    /// The import mapping a store records: source URI → local primary key.
    private func importMap(_ store: String) throws -> [String: Int] {
        let file = try StoreFile(path: store)
        defer { file.close() }
        let map = file.metadata[ExportFormat.importMapKey] as? [String: Any] ?? [:]
        return map.compactMapValues { ($0 as? NSNumber)?.intValue }
    }

    private func number(_ value: JSONValue?) -> Double? {
        if case .number(let text)? = value { return Double(text) }
        return nil
    }

    private func writeFile(_ text: String) throws -> String {
        let url = TemporaryFiles.folder().appendingPathComponent("import.json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Rows per table (Z_PRIMARYKEY's Z_MAX included), to show a failed import changed nothing.
    private func contents(_ store: String) throws -> [String] {
        let url = URL(fileURLWithPath: store)
        let tables = try Harness.sqlite(url, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { $0[0] }
        return try tables.map { table in "\(table): " + (try Harness.sqlite(url, "SELECT * FROM \"\(table)\" ORDER BY 1").map { $0.joined(separator: "|") }.joined(separator: "; ")) }
    }

    // MARK: - A hand-written file with every attribute type

    @Test("A new store takes every attribute type, and exports the same values", .enabled(if: Harness.sqlite3Required))
    func everyTypeRoundTrip() throws {
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let file = try writeFile(TestModel.export)
        let first = Harness.run(["import", store, file, "--model", model])
        #expect(first.exitCode == 0, "\(first.err)")
        #expect(first.out == "imported 7 records into \(store): 7 inserted, 0 updated, 0 unchanged\n")

        let exported = Harness.run(["export", store, "--model", model])
        #expect(exported.exitCode == 0, "\(exported.err)")
        let source = try objects(TestModel.export)
        let copy = try objects(exported.out)
        let map = try importMap(store)
        #expect(map.count == 7)
        func local(_ uri: String) -> String? {
            guard let parts = URIParts(uri), let key = map[uri] else { return nil }
            return copy.keys.first { URIParts($0)?.entity == parts.entity && URIParts($0)?.primaryKey == Int64(key) }
        }
        for (uri, record) in source.members {
            let mine = try #require(local(uri).flatMap { copy[$0]?.objectValue }, "\(uri)")
            let attributes = try #require(record.objectValue?["attributes"]?.objectValue)
            for (name, value) in attributes.members {
                let got = mine["attributes"]?.objectValue?[name]
                switch name {
                case "price":
                    // Decimals are stored as REAL, as Apple stores them (docs/StoreFormat.md).
                    #expect(got?.stringValue.flatMap(Double.init) == value.stringValue.flatMap(Double.init))
                case "rating":
                    #expect(number(got) == number(value), "\(uri).\(name)")
                case "email", "age", "link", "cover", "published", "weight", "isbn", "pages", "inPrint", "title", "name", "id":
                    #expect(got == value, "\(uri).\(name)")
                default:
                    Issue.record("unchecked \(name)")
                }
            }
            let relationships = record.objectValue?["relationships"]?.objectValue ?? JSONObject()
            for (name, value) in relationships.members {
                let expected = (value.arrayValue ?? [value]).compactMap(\.stringValue).compactMap(local).sorted()
                let got = mine["relationships"]?.objectValue?[name]
                #expect((got?.arrayValue ?? [got ?? .null]).compactMap(\.stringValue).sorted() == expected, "\(uri).\(name)")
            }
        }
        // The inverse of Book p3's author reached Author p2, which listed no books.
        let stanislaw = try #require(local("x-coredata://SOURCE/Author/p2").flatMap { copy[$0]?.objectValue })
        #expect(stanislaw["relationships"]?.objectValue?["books"]?.arrayValue?.count == 1)
    }

    @Test("Importing the same file again changes nothing; a changed value updates one object", .enabled(if: Harness.sqlite3Required))
    func idempotent() throws {
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let file = try writeFile(TestModel.export)
        #expect(Harness.run(["import", store, file, "--model", model]).exitCode == 0)
        let before = try contents(store)
        let again = Harness.run(["import", store, file, "--model", model])
        #expect(again.out.hasSuffix("0 inserted, 0 updated, 7 unchanged\n"), "\(again.out) \(again.err)")
        #expect(try contents(store) == before)
        // Without --model the store's own Z_MODELCACHE (written when the store was created) is the model.
        let noModel = Harness.run(["import", store, file])
        #expect(noModel.exitCode == 0 && noModel.out.hasSuffix("0 inserted, 0 updated, 7 unchanged\n"), "\(noModel.out) \(noModel.err)")

        let changed = try writeFile(TestModel.export.replacingOccurrences(of: "\"Solaris\"", with: "\"Solaris (1961)\""))
        let update = Harness.run(["import", store, changed, "--model", model])
        #expect(update.out.hasSuffix("0 inserted, 1 updated, 6 unchanged\n"), "\(update.out) \(update.err)")
        let titles = try Harness.sqlite(URL(fileURLWithPath: store), "SELECT ZTITLE FROM ZBOOK ORDER BY ZTITLE").map { $0[0] }
        #expect(titles.count == 3 && titles.contains("Solaris (1961)"))
    }

    @Test("Records from another source match existing objects by uniqueness constraint", .enabled(if: Harness.sqlite3Required))
    func matchesByConstraint() throws {
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        #expect(Harness.run(["import", store, try writeFile(TestModel.export), "--model", model]).exitCode == 0)
        let other = """
        {"objects": {
          "x-coredata://OTHER/Author/p9": {"entity": "Author", "attributes": {"name": "Ursula K.", "id": "6F9619FF-8B86-D011-B42D-00C04FC964FF"}},
          "anything-unique": {"entity": "Author", "attributes": {"name": "Iain", "id": "11111111-2222-3333-4444-555555555555"}}
        }}
        """
        let result = Harness.run(["import", store, try writeFile(other), "--model", model])
        #expect(result.out.hasSuffix("1 inserted, 1 updated, 0 unchanged\n"), "\(result.out) \(result.err)")
        let names = try Harness.sqlite(URL(fileURLWithPath: store), "SELECT ZNAME FROM ZAUTHOR ORDER BY ZNAME").map { $0[0] }
        #expect(names == ["Iain", "Stanisław", "Ursula K."])
    }

    @Test("--dry-run checks and counts without writing, and creates no store")
    func dryRun() throws {
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let result = Harness.run(["import", store, try writeFile(TestModel.export), "--model", model, "--dry-run"])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.hasPrefix("would import 7 records"))
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    // MARK: - Bad files

    static let badFiles: [(name: String, edit: @Sendable (String) -> String, mention: String)] = [
        ("syntax", { $0.replacingOccurrences(of: "\"Solaris\"}", with: "\"Solaris\"") }, "is not valid JSON: line"),
        ("type", { $0.replacingOccurrences(of: "\"pages\": 387", with: "\"pages\": \"many\"") }, "record 3 (\"x-coredata://SOURCE/Book/p1\"): Book.pages (Integer 32): expected an integer"),
        ("range", { $0.replacingOccurrences(of: "\"age\": 88", with: "\"age\": 100000") }, "100000 does not fit in Integer 16"),
        ("date", { $0.replacingOccurrences(of: "1971-01-01T00:00:00Z", with: "last year") }, "is not an ISO 8601 date"),
        ("uuid", { $0.replacingOccurrences(of: "0E984725-C51C", with: "nope") }, "expected a UUID string"),
        ("unknown attribute", { $0.replacingOccurrences(of: "\"pages\": 387", with: "\"pagez\": 387") }, "Book has no attribute named pagez"),
        ("unknown entity", { $0.replacingOccurrences(of: "{\"entity\": \"Tag\", \"attributes\": {\"name\": \"classic\"}}", with: "{\"entity\": \"Label\"}") }, "no entity named Label"),
        ("dangling", { $0.replacingOccurrences(of: "\"tags\": [\"x-coredata://SOURCE/Tag/p2\"]", with: "\"tags\": [\"x-coredata://SOURCE/Tag/p7\"]") }, "refers to x-coredata://SOURCE/Tag/p7, which is neither in the file nor in the store"),
        ("wrong destination", { $0.replacingOccurrences(of: "\"author\": \"x-coredata://SOURCE/Author/p2\"", with: "\"author\": \"x-coredata://SOURCE/Tag/p1\"") }, "must refer to Author objects"),
        ("two to-one targets", { $0.replacingOccurrences(of: "\"author\": \"x-coredata://SOURCE/Author/p2\"", with: "\"author\": [\"x-coredata://SOURCE/Author/p1\", \"x-coredata://SOURCE/Author/p2\"]") }, "is to-one but lists 2 objects"),
        ("validation", { $0.replacingOccurrences(of: "\"Stanisław\"", with: "\"S\"") }, "record 2 (\"x-coredata://SOURCE/Author/p2\")"),
        ("required", { $0.replacingOccurrences(of: "{\"title\": \"Solaris\"}", with: "{}") }, "Book.title is a required value"),
        ("duplicate constraint", { $0.replacingOccurrences(of: "0E984725-C51C-4BF4-9960-E1C80E27ABA0", with: "6F9619FF-8B86-D011-B42D-00C04FC964FF") }, "has the same id as the record \"x-coredata://SOURCE/Author/p1\""),
        ("not an object", { _ in "[1, 2, 3]" }, "expected a JSON object with \"objects\""),
        ("newer format", { $0.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 9") }, "version 9 is not supported"),
    ]

    @Test("A bad file into a new store: a clean error naming the record, and no store left behind", arguments: badFiles.indices)
    func badFileNewStore(index: Int) throws {
        let bad = Self.badFiles[index]
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let result = Harness.run(["import", store, try writeFile(bad.edit(TestModel.export)), "--model", model])
        #expect(result.exitCode == 2, "\(bad.name)")
        #expect(result.err.hasPrefix("coredata: error: "), "\(bad.name): \(result.err)")
        #expect(result.err.contains(bad.mention), "\(bad.name): \(result.err)")
        #expect(result.out.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store), "\(bad.name)")
    }

    @Test("A bad file into an existing store changes nothing in it", .enabled(if: Harness.sqlite3Required), arguments: [1, 6, 7, 10, 12])
    func badFileExistingStore(index: Int) throws {
        let bad = Self.badFiles[index]
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let seed = """
        {"objects": {"x-coredata://SEED/Author/p1": {"entity": "Author", "attributes": {"name": "Octavia", "id": "AAAAAAAA-2222-3333-4444-555555555555"}}}}
        """
        #expect(Harness.run(["import", store, try writeFile(seed), "--model", model]).exitCode == 0)
        let before = try contents(store)
        let result = Harness.run(["import", store, try writeFile(bad.edit(TestModel.export)), "--model", model])
        #expect(result.exitCode == 2, "\(bad.name)")
        #expect(result.err.contains(bad.mention), "\(bad.name): \(result.err)")
        #expect(try contents(store) == before, "\(bad.name)")
    }

    @Test("Missing, empty and unreadable import files are errors")
    func missingFiles() throws {
        let model = try TestModel.write()
        let folder = TemporaryFiles.folder()
        let store = folder.appendingPathComponent("Library.sqlite").path
        let missing = Harness.run(["import", store, folder.appendingPathComponent("nope.json").path, "--model", model])
        #expect(missing.exitCode == 2 && missing.err.contains("no file at"))
        let empty = Harness.run(["import", store, try writeFile(""), "--model", model])
        #expect(empty.exitCode == 2 && empty.err.contains("not valid JSON"))
        let folderAsFile = Harness.run(["import", store, folder.path, "--model", model])
        #expect(folderAsFile.exitCode == 2)
        let noFolder = Harness.run(["import", folder.appendingPathComponent("a/b/c.sqlite").path, try writeFile(TestModel.export), "--model", model])
        #expect(noFolder.exitCode == 2 && noFolder.err.contains("does not exist"))
    }

    // MARK: - Fixture stores

    @Test("Every fixture store: export, import into a new store, export again: the same objects",
          .enabled(if: CLIFixtures.enabled && Harness.sqlite3Required), arguments: CLIFixtures.pairs.indices)
    func fixtureRoundTrip(index: Int) throws {
        let pair = CLIFixtures.pairs[index]
        let copy = try CLIFixtures.copy(try CLIFixtures.store(pair.store))
        let before = try Data(contentsOf: copy)
        let model = try pair.model.map { try CLIFixtures.model($0).path } ?? copy.path
        let exported = Harness.run(["export", copy.path, "--model", model, "--ignore-model-mismatch"])
        #expect(exported.exitCode == 0, "\(exported.err)")
        #expect(try Data(contentsOf: copy) == before)
        let source = try objects(exported.out)

        let target = TemporaryFiles.folder().appendingPathComponent("copy.sqlite").path
        let exportFile = try writeFile(exported.out)
        let imported = Harness.run(["import", target, exportFile, "--model", model])
        #expect(imported.exitCode == 0, "\(pair.store): \(imported.err)")
        #expect(imported.out.hasSuffix("\(source.count) inserted, 0 updated, 0 unchanged\n"), "\(imported.out)")

        let second = Harness.run(["export", target, "--model", model])
        #expect(second.exitCode == 0, "\(second.err)")
        let copied = try objects(second.out)
        #expect(copied.count == source.count)
        let map = try importMap(target)
        let uuid = try Harness.sqliteValue(URL(fileURLWithPath: target), "SELECT Z_UUID FROM Z_METADATA")
        func local(_ uri: String) -> String {
            guard let parts = URIParts(uri), let key = map[uri] else { return "?" }
            return "x-coredata://\(uuid)/\(parts.entity)/p\(key)"
        }
        func normalized(_ value: JSONValue?) -> [String] {
            (value?.arrayValue ?? [value ?? .null]).compactMap(\.stringValue).sorted()
        }
        for (uri, record) in source.members {
            let mine = try #require(copied[local(uri)]?.objectValue, "\(uri) → \(local(uri))")
            let attributes = record.objectValue?["attributes"]?.objectValue ?? JSONObject()
            // Derived attributes too (SampleModel2's pagesCount): import leaves them out and the save computes them.
            for (name, value) in attributes.members {
                #expect(mine["attributes"]?.objectValue?[name] == value, "\(uri).\(name)")
            }
            for (name, value) in (record.objectValue?["relationships"]?.objectValue ?? JSONObject()).members {
                #expect(normalized(mine["relationships"]?.objectValue?[name]) == normalized(value).map(local).sorted(), "\(uri).\(name)")
            }
        }
        // Imported back into the store it came from (a copy), every record is its own object: nothing changes.
        let home = Harness.run(["import", copy.path, exportFile, "--model", model])
        if pair.model == nil {
            // SampleModel2: our hashes of Book differ from the store's, so it is not opened for writing.
            #expect(home.exitCode == 2 && home.err.contains("version hashes differ"))
        } else {
            #expect(home.out.hasSuffix("0 inserted, 0 updated, \(source.count) unchanged\n"), "\(home.out) \(home.err)")
        }
    }

    @Test("Every fixture store exports with its Z_MODELCACHE alone: every row of every model entity",
          .enabled(if: CLIFixtures.enabled && Harness.sqlite3Required), arguments: CLIFixtures.storeList)
    func exportWithModelCache(relative: String) throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(relative))
        let result = Harness.run(["export", copy.path])
        #expect(result.exitCode == 0, "\(relative): \(result.err)")
        let exported = try objects(result.out)
        // Every row of the tables of entities the store's metadata lists (not persistent history).
        let info = try StoreInfo.read(path: copy.path, modelPath: nil)
        let expected = info.entities.filter { !$0.isInternal }.compactMap(\.rows).reduce(0, +)
        #expect(exported.count == expected, "\(relative)")
        let declared = try #require(try JSONParser.parse(Data(result.out.utf8)).objectValue?["entities"]?.objectValue)
        #expect(declared.members.reduce(0) { $0 + (Int($1.value == .null ? "0" : JSONWriter.render($1.value)) ?? 0) } == expected)
    }

    // MARK: - Streaming

    @Test("Export pages through large entities: every object once, with progress when asked")
    func pagedExport() throws {
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Tags.sqlite").path
        var text = "{\"objects\": {"
        text += (1...1234).map { "\"x-coredata://GEN/Tag/p\($0)\": {\"entity\": \"Tag\", \"attributes\": {\"name\": \"tag \($0)\"}}" }.joined(separator: ",\n")
        text += "}}"
        #expect(Harness.run(["import", store, try writeFile(text), "--model", model]).exitCode == 0)

        let err = StringSink()
        let console = Console(out: StringSink(), err: err)
        let session = try StoreSession.openReadOnly(path: store, modelPath: model, ignoreModelMismatch: false, console: console)
        defer { session.close() }
        let out = StringSink()
        let summary = try Exporter.export(session: session, to: out, batchSize: 7) { total in
            ProgressReporter(console: console, forced: true, verb: "exported", total: total, delay: .zero)
        }
        #expect(summary.total == 1234)
        let exported = try objects(out.text)
        #expect(exported.count == 1234)
        let names = Set(exported.members.compactMap { $0.value.objectValue?["attributes"]?.objectValue?["name"]?.stringValue })
        #expect(names.count == 1234)
        #expect(err.text.contains("exported") && err.text.contains("of 1234 objects"))
        // The context holds no objects after the walk: each page is reset.
        #expect(session.context.performAndWait { session.context.registeredObjects.isEmpty })
    }

    @Test("Import reports its passes on the progress line when asked, and nothing otherwise")
    func importProgress() throws {
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let err = StringSink()
        let console = Console(out: StringSink(), err: err)
        let session = try StoreSession.openForWriting(path: store, modelPath: model)
        let summary = try Importer.run(session: session, data: Data(TestModel.export.utf8), fileName: "export.json") { total in
            ProgressReporter(console: console, forced: true, verb: "importing", total: total, showsCounts: false, delay: .zero)
        }
        session.close()
        #expect(summary.inserted == 7)
        #expect(err.text.contains("importing (") && err.text.contains("saving") && err.text.hasSuffix("done\n"))

        let quiet = StringSink()
        let reporter = ProgressReporter(console: Console(out: StringSink(), err: quiet), forced: false, verb: "exported", total: 10, delay: .zero)
        reporter.advance(by: 10, detail: "Tag")
        reporter.finish()
        #expect(quiet.text.isEmpty, "no progress when standard error is not a terminal and --progress is not given")
    }

    @Test("export --output writes the file whole, and leaves nothing when it fails", .enabled(if: CLIFixtures.enabled))
    func exportToFile() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(QueryTests.carStore))
        let output = copy.deletingLastPathComponent().appendingPathComponent("cars.json")
        let result = Harness.run(["export", copy.path, "--output", output.path])
        #expect(result.exitCode == 0)
        #expect(result.err.contains("exported 156 objects of 5 entities"))
        #expect(try objects(String(decoding: Data(contentsOf: output), as: UTF8.self)).count == 156)
        let folderContents = try FileManager.default.contentsOfDirectory(atPath: copy.deletingLastPathComponent().path)
        #expect(!folderContents.contains { $0.hasSuffix(".partial") })
        let bad = Harness.run(["export", copy.path, "--output", "/nonexistent-folder/x.json"])
        #expect(bad.exitCode == 2 && bad.err.contains("cannot create"))
    }
}
