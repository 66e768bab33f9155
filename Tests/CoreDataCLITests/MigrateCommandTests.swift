import Foundation
import GRDB
import Testing
@testable import CoreDataTool

/// `store migrate`: the plan (source model found as Core Data's automatic migration finds it,
/// steps, entity and property mappings), then a migrated copy or an in-place migration after a
/// backup, through the library's lightweight migration.
@Suite("store migrate")
struct MigrateCommandTests {
    static let storeFolder = "CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/"
    static let mappingModel = "CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Migration/Mappings/Migration2to3ModelMapping.xcmappingmodel"

    /// A copy of the Apple-written store of the wibosco example at a version.
    static func exampleStore(_ version: Int) throws -> URL {
        try CLIFixtures.copy(try CLIFixtures.store(storeFolder + "CoreDataMigration_Example_\(version).sqlite"))
    }

    static func bundle() throws -> String { try CLIFixtures.model(ModelDiffTests.exampleBundle).path }

    static func rows(_ store: URL, _ sql: String) throws -> [Row] {
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        return try queue.read { db in try Row.fetchAll(db, sql: sql) }
    }

    static func count(_ store: URL, _ sql: String) throws -> Int? {
        try rows(store, sql).first.map { $0[0] as Int }
    }

    /// Posts as text, in primary-key order.
    static func posts(_ store: URL) throws -> [[String]] {
        try rows(store, "SELECT Z_PK, ZPOSTID, ZHEXCOLOR FROM ZPOST ORDER BY Z_PK").map { ["\($0[0] as Int64)", $0[1] as String? ?? "nil", $0[2] as String? ?? "nil"] }
    }

    /// The store's files and their bytes, to show a command changed nothing.
    static func snapshot(_ store: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let folder = store.deletingLastPathComponent()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            files[name] = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
        }
        return files
    }

    /// A store OpenCoreData made from the CLI tests' model, and a version 2 of that model adding
    /// `Tag.color` and renaming `Book.title` to `name`.
    static func librarySources() throws -> (store: String, version2: String) {
        let store = try TestModel.importedLibrary().store
        // Tag's `name` is the model's only plain required string named so; Book's `title` its only one named so.
        let tagName = "<attribute name=\"name\" attributeType=\"String\"/>", title = "<attribute name=\"title\" attributeType=\"String\"/>"
        #expect(TestModel.xml.components(separatedBy: tagName).count == 2 && TestModel.xml.components(separatedBy: title).count == 2)
        let xml = TestModel.xml
            .replacingOccurrences(of: tagName, with: "<attribute name=\"color\" optional=\"YES\" attributeType=\"String\"/>" + tagName)
            .replacingOccurrences(of: title, with: "<attribute name=\"name\" attributeType=\"String\" elementID=\"title\"/>")
        let folder = TemporaryFiles.folder().appendingPathComponent("Library2.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
        return (store, folder.path)
    }

    // MARK: - Plans

    @Test("--dry-run prints the plan: the source version found in the bundle, one inferred step, entity and property mappings; nothing is written", .enabled(if: CLIFixtures.enabled))
    func dryRunPlan() throws {
        let store = try Self.exampleStore(1)
        let before = Self.snapshot(store)
        let version2 = try Self.bundle() + "/CoreDataMigration_Example 2.xcdatamodel"
        let result = Harness.run(["store", "migrate", store.path, "--model", version2, "--dry-run", "--in-place"])
        #expect(result.exitCode == 0, "\(result.err)")
        for line in ["Source model:      version 'CoreDataMigration_Example' of ", "Destination model: CoreDataMigration_Example 2 (",
                     "Mapping:           inferred (lightweight migration)",
                     "1. CoreDataMigration_Example → CoreDataMigration_Example 2: inferred mapping (lightweight migration",
                     "PostToPost  transform  Post    10    Post", "hexColor = $source.color", "content = $source.content",
                     "Dry run: nothing written. Without --dry-run, the store would be backed up to \(store.deletingLastPathComponent().path)/CoreDataMigration_Example_1-before-migration.sqlite"] {
            #expect(result.out.contains(line), "missing: \(line)\n\(result.out)")
        }
        #expect(Self.snapshot(store) == before, "a dry run changed a file")
    }

    @Test("--dry-run --json: the plan as JSON", .enabled(if: CLIFixtures.enabled))
    func dryRunJSON() throws {
        let store = try Self.exampleStore(3)
        let result = Harness.run(["store", "migrate", store.path, "--model", try Self.bundle(), "--dry-run", "--json"])
        #expect(result.exitCode == 0, "\(result.err)")
        let json = try #require(try JSONParser.parse(Data(result.out.utf8)).objectValue)
        #expect(json["needed"] == .bool(true))
        #expect(json["sourceModel"]?.objectValue?["version"] == .string("CoreDataMigration_Example 3"))
        #expect(json["destinationModel"]?.objectValue?["version"] == .string("CoreDataMigration_Example 4"))
        #expect(json["steps"]?.arrayValue?.count == 1)
        let mappings = (json["entityMappings"]?.arrayValue ?? []).compactMap(\.objectValue)
        let post = try #require(mappings.first { $0["name"] == .string("PostToPost") })
        #expect(post["type"] == .string("transform") && post["sourceRows"] == .number("12"))
        let softDeleted = (post["attributeMappings"]?.arrayValue ?? []).compactMap(\.objectValue).first { $0["name"] == .string("softDeleted") }
        #expect(softDeleted?["valueExpression"] == .null)
        #expect(mappings.first { $0["name"] == .string("SectionToSection") }?["sourceRows"] == .number("14"))
        #expect(json["result"]?.objectValue?["dryRun"] == .bool(true))
    }

    @Test("A store several versions behind migrates in one inferred step, as Core Data's automatic migration does; the plan names the versions it skips", .enabled(if: CLIFixtures.enabled))
    func skippedVersions() throws {
        let store = try Self.exampleStore(1)
        let result = Harness.run(["store", "migrate", store.path, "--model", try Self.bundle(), "--dry-run"])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.contains("1. CoreDataMigration_Example → CoreDataMigration_Example 4: inferred"), "\(result.out)")
        #expect(result.out.contains("the versions between, 'CoreDataMigration_Example 2', 'CoreDataMigration_Example 3', are not passed through"), "\(result.out)")
        // Straight from version 1, 'color' is dropped and 'hexColor' new: the plan shows it.
        #expect(result.out.contains("hexColor = nil (new property: default value)"), "\(result.out)")
        let json = try #require(try JSONParser.parse(Data(Harness.run(["store", "migrate", store.path, "--model", try Self.bundle(), "--dry-run", "--json"]).out.utf8)).objectValue)
        #expect(json["skippedVersions"] == .array([.string("CoreDataMigration_Example 2"), .string("CoreDataMigration_Example 3")]))
    }

    @Test("A store that already matches the model: nothing to migrate, nothing written", .enabled(if: CLIFixtures.enabled))
    func nothingToDo() throws {
        let store = try Self.exampleStore(2)
        let before = Self.snapshot(store)
        let result = Harness.run(["store", "migrate", store.path, "--model", try Self.bundle() + "/CoreDataMigration_Example 2.xcdatamodel", "--in-place"])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.contains("The store already matches the model: nothing to migrate."), "\(result.out)")
        #expect(Self.snapshot(store) == before)
    }

    @Test("--mapping --dry-run prints the mapping model's plan: a custom entity mapping with its policy class, an add mapping", .enabled(if: CLIFixtures.enabled))
    func mappingModelPlan() throws {
        let store = try Self.exampleStore(2)
        let version3 = try Self.bundle() + "/CoreDataMigration_Example 3.xcdatamodel"
        let result = Harness.run(["store", "migrate", store.path, "--model", version3, "--mapping", try CLIFixtures.model(Self.mappingModel).path, "--dry-run"])
        #expect(result.exitCode == 0, "\(result.err)")
        for line in ["Mapping:           mapping model ", "1. CoreDataMigration_Example 2 → CoreDataMigration_Example 3: mapping model",
                     "PostToPost  custom", "CoreDataMigration_Example.Post2ToPost3MigrationPolicy", "Section     add", "hexColor = $source.hexColor"] {
            #expect(result.out.contains(line), "missing: \(line)\n\(result.out)")
        }
        #expect(!result.out.contains("Warnings:"), "\(result.out)")
    }

    // MARK: - Migrating

    @Test("--output migrates a copy (Apple's version 1 store to version 2): rows kept, the new hashes and Z_MODELCACHE; the store is not changed", .enabled(if: CLIFixtures.enabled))
    func migrateCopy() throws {
        let store = try Self.exampleStore(1)
        let before = Self.snapshot(store)
        let copy = TemporaryFiles.folder().appendingPathComponent("Migrated.sqlite")
        let version2 = try Self.bundle() + "/CoreDataMigration_Example 2.xcdatamodel"
        let result = Harness.run(["store", "migrate", store.path, "--model", version2, "--output", copy.path])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.contains("Migrated a copy of the store to \(copy.path) (CoreDataMigration_Example 2); \(store.path) was not changed."), "\(result.out)")
        #expect(Self.snapshot(store) == before)
        let colors = try Self.rows(copy, "SELECT ZHEXCOLOR FROM ZPOST WHERE ZPOSTID = 'FFFECB21-6645-4FDD-B8B0-B960D0E61F5A'")
        #expect(colors.map { $0[0] as String? } == ["1BB732"])
        #expect(try Self.count(copy, "SELECT COUNT(*) FROM ZPOST") == 10)
        // The copy records version 2's hashes, and its Z_MODELCACHE is version 2.
        #expect(Harness.run(["store", "info", copy.path, "--model", version2]).out.contains("Compatible: yes"))
        #expect(Harness.run(["store", "info", copy.path]).out.contains("Compatible: yes"))
    }

    @Test("--in-place writes a named backup beside the store, then migrates it (Apple's version 3 store to version 4); a second backup gets a new name", .enabled(if: CLIFixtures.enabled))
    func migrateInPlace() throws {
        let store = try Self.exampleStore(3)
        let folder = store.deletingLastPathComponent()
        let expected = try Self.posts(store)
        // An earlier backup is never overwritten.
        let earlier = folder.appendingPathComponent("CoreDataMigration_Example_3-before-migration.sqlite")
        try Data("an earlier backup".utf8).write(to: earlier)
        let result = Harness.run(["store", "migrate", store.path, "--model", try Self.bundle(), "--in-place"])
        #expect(result.exitCode == 0, "\(result.err)")
        let backup = folder.appendingPathComponent("CoreDataMigration_Example_3-before-migration-2.sqlite")
        #expect(result.out.contains("Backed up the store to \(backup.path), then migrated \(store.path) in place to CoreDataMigration_Example 4."), "\(result.out)")
        #expect(FileManager.default.contents(atPath: earlier.path) == Data("an earlier backup".utf8))
        // The backup is the version 3 store; the store is version 4 with the same posts.
        #expect(Harness.run(["store", "info", backup.path, "--model", try Self.bundle() + "/CoreDataMigration_Example 3.xcdatamodel"]).out.contains("Compatible: yes"))
        #expect(Harness.run(["store", "info", store.path, "--model", try Self.bundle()]).out.contains("Compatible: yes"))
        #expect(try Self.posts(store) == expected)
        #expect(try Self.count(store, "SELECT COUNT(*) FROM ZPOST WHERE ZSOFTDELETED = 0") == 12)
        #expect(try Self.count(store, "SELECT COUNT(*) FROM ZSECTION") == 14)
    }

    @Test("A store OpenCoreData made migrates from its own Z_MODELCACHE: a renamed attribute and an added one, through the binary too")
    func ownStoreFromModelCache() throws {
        let (store, version2) = try Self.librarySources()
        let plan = Harness.run(["store", "migrate", store, "--model", version2, "--dry-run"])
        #expect(plan.exitCode == 0, "\(plan.err)")
        #expect(plan.out.contains("Source model:      the store's own model (Z_MODELCACHE)"), "\(plan.out)")
        #expect(plan.out.contains("name = $source.title"), "\(plan.out)")
        #expect(plan.out.contains("color = nil (new property: default value)"), "\(plan.out)")
        let copy = TemporaryFiles.folder().appendingPathComponent("Library2.sqlite").path
        let result = Harness.run(["store", "migrate", store, "--model", version2, "--output", copy])
        #expect(result.exitCode == 0, "\(result.err)")
        let query = Harness.run(["query", copy, "Book", "--model", version2, "--sort", "name", "--format", "csv"])
        #expect(query.exitCode == 0, "\(query.err)")
        #expect(query.out.contains("Lathe of Heaven") && query.out.contains("Solaris") && query.out.contains("The Dispossessed"), "\(query.out)")
        let tags = Harness.run(["query", copy, "Tag", "--model", version2, "--format", "json"])
        #expect(tags.out.contains("\"color\": null") || tags.out.contains("\"color\":null"), "\(tags.out)")
        if Harness.binary != nil {
            let inPlace = try Harness.runBinary(["store", "migrate", store, "--model", version2, "--in-place"])
            #expect(inPlace.exitCode == 0, "\(inPlace.err)")
            #expect(FileManager.default.fileExists(atPath: URL(fileURLWithPath: store).deletingLastPathComponent().appendingPathComponent("Library-before-migration.sqlite").path))
        }
    }

    // MARK: - Refusals

    @Test("A change lightweight migration cannot infer: exit 2 naming entity and property (134190); nothing written, no backup")
    func notInferable() throws {
        let (store, _) = try Self.librarySources()
        let xml = TestModel.xml.replacingOccurrences(of: "<attribute name=\"pages\" optional=\"YES\" attributeType=\"Integer 32\" usesScalarValueType=\"YES\"/>",
                                                     with: "<attribute name=\"pages\" optional=\"YES\" attributeType=\"Date\"/>")
        let folder = TemporaryFiles.folder().appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
        let url = URL(fileURLWithPath: store)
        let before = Self.snapshot(url)
        let result = Harness.run(["store", "migrate", store, "--model", folder.path, "--in-place"])
        #expect(result.exitCode == 2)
        #expect(result.err.hasPrefix("coredata: error: lightweight migration cannot migrate \(store) to Broken (entity Book, property pages)"), "\(result.err)")
        #expect(Self.snapshot(url) == before, "a refused migration wrote a file")
    }

    @Test("No source model (no matching version, no Z_MODELCACHE): exit 2 with Core Data's 134130 message")
    func missingSourceModel() throws {
        let (store, version2) = try Self.librarySources()
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in try db.execute(sql: "DELETE FROM Z_MODELCACHE") }
        try queue.close()
        let result = Harness.run(["store", "migrate", store, "--model", version2, "--dry-run"])
        #expect(result.exitCode == 2)
        #expect(result.err.contains("Cannot find the model the store"), "\(result.err)")
    }

    @Test("A real run through a mapping model whose policy class the tool does not contain fails with 134170 naming it: exit 2, no copy, the store unchanged", .enabled(if: CLIFixtures.enabled))
    func mappingModelPolicyMissing() throws {
        let store = try Self.exampleStore(2)
        let before = Self.snapshot(store)
        let version3 = try Self.bundle() + "/CoreDataMigration_Example 3.xcdatamodel"
        let mapping = try CLIFixtures.model(Self.mappingModel).path
        let copy = TemporaryFiles.folder().appendingPathComponent("V3.sqlite")
        // The coredata binary, not the in-process harness: this test process may hold the policy
        // class (other suites register it), the tool never does.
        let result = try Harness.runBinary(["store", "migrate", store.path, "--model", version3, "--mapping", mapping, "--output", copy.path])
        #expect(result.exitCode == 2)
        #expect(result.err.contains("Post2ToPost3MigrationPolicy"), "\(result.err)")
        #expect(Self.snapshot(store) == before, "a file beside the store changed")
        #expect(!FileManager.default.fileExists(atPath: copy.path))
    }

    @Test("Bad arguments never trap: usage errors exit 64, bad files exit 2 with one error line")
    func badArguments() throws {
        let (store, version2) = try Self.librarySources()
        let url = URL(fileURLWithPath: store)
        let before = Self.snapshot(url)
        // Usage: no --model, no target, both targets.
        #expect(Harness.run(["store", "migrate", store, "--dry-run"]).exitCode == 64)
        let noTarget = Harness.run(["store", "migrate", store, "--model", version2])
        #expect(noTarget.exitCode == 64)
        #expect(noTarget.err.contains("--output <copy>"), "\(noTarget.err)")
        #expect(Harness.run(["store", "migrate", store, "--model", version2, "--in-place", "--output", "/tmp/x.sqlite"]).exitCode == 64)
        let text = TemporaryFiles.folder().appendingPathComponent("notes.txt")
        try Data("just text, not a store at all, long enough for a header check".utf8).write(to: text)
        let existing = TemporaryFiles.folder().appendingPathComponent("Existing.sqlite")
        try Data("x".utf8).write(to: existing)
        let cases: [([String], String)] = [
            (["store", "migrate", "/nonexistent/App.sqlite", "--model", version2, "--dry-run"], "no store file at /nonexistent/App.sqlite"),
            (["store", "migrate", text.path, "--model", version2, "--dry-run"], "not an SQLite store"),
            (["store", "migrate", store, "--model", "/nonexistent/M.xcdatamodel", "--dry-run"], "no model at /nonexistent/M.xcdatamodel"),
            (["store", "migrate", store, "--model", version2, "--mapping", "/nonexistent/M.xcmappingmodel", "--dry-run"], "no mapping model at /nonexistent/M.xcmappingmodel"),
            (["store", "migrate", store, "--model", version2, "--mapping", text.path, "--dry-run"], "cannot load the mapping model"),
            (["store", "migrate", store, "--model", version2, "--output", existing.path], "exists; choose a new path"),
            (["store", "migrate", store, "--model", version2, "--output", store], "is the store itself"),
            (["store", "migrate", store, "--model", version2, "--output", "/nonexistent/folder/Copy.sqlite"], "the folder /nonexistent/folder does not exist"),
        ]
        for (arguments, message) in cases {
            let result = Harness.run(arguments)
            #expect(result.exitCode == 2, "\(arguments): \(result.out) \(result.err)")
            #expect(result.err.hasPrefix("coredata: error: ") && result.err.contains(message), "\(arguments): \(result.err)")
        }
        #expect(Self.snapshot(url) == before, "a refused command changed the store's folder")
        #expect(FileManager.default.contents(atPath: existing.path) == Data("x".utf8))
    }
}
