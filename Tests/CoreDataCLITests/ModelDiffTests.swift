import Foundation
import Testing
@testable import CoreDataTool

/// `model diff`: what changed between two model versions, paired as lightweight migration pairs
/// them (renaming identifier, else name), and whether `NSMappingModel.inferredMappingModel` can
/// infer the change (Apple's lightweight-migration rules; 134190 otherwise).
@Suite("model diff")
struct ModelDiffTests {
    static let exampleBundle = "CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"

    /// A version of the wibosco example's model, by number (1 is the unnumbered first version).
    static func exampleVersion(_ number: Int) throws -> String {
        try CLIFixtures.model(exampleBundle + "/CoreDataMigration_Example\(number == 1 ? "" : " \(number)").xcdatamodel").path
    }

    /// Writes Xcode model XML with these entities as `<name>.xcdatamodel` in a new folder.
    static func writeModel(_ name: String, _ entities: String) throws -> String {
        let folder = TemporaryFiles.folder().appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            \(entities)
            </model>
            """
        try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder.path
    }

    static let authorBook = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="age" optional="YES" attributeType="String"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        """

    static func json(_ result: RunResult) throws -> JSONObject {
        try #require(try JSONParser.parse(Data(result.out.utf8)).objectValue, "not JSON: \(result.out)")
    }

    // MARK: - Apple's example versions

    @Test("Version 1 → 2 of the wibosco example: 'color' renamed 'hexColor' through its renaming identifier; inferable", .enabled(if: CLIFixtures.enabled))
    func renamedAttribute() throws {
        let result = Harness.run(["model", "diff", try Self.exampleVersion(1), try Self.exampleVersion(2)])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.contains("~ Post  changed; version hash "), "\(result.out)")
        #expect(result.out.contains("~ attribute color → hexColor (renamed)"), "\(result.out)")
        #expect(result.out.contains("Lightweight migration: can be inferred (entity mappings: 1 transform)"), "\(result.out)")
        #expect(!result.out.contains("+ attribute hexColor") && !result.out.contains("- attribute color"))
    }

    @Test("Version 2 → 3: the Section entity and Post.sections added, Post.content removed; inferable", .enabled(if: CLIFixtures.enabled))
    func addedEntityAndRelationship() throws {
        let result = Harness.run(["model", "diff", try Self.exampleVersion(2), try Self.exampleVersion(3)])
        #expect(result.exitCode == 0, "\(result.err)")
        for line in ["Entities: 1 added, 0 removed, 0 renamed, 1 changed, 0 unchanged", "+ Section  added (3 attributes, 1 relationship)",
                     "- attribute content", "+ relationship sections (to-many Section, required)", "entity mappings: 1 transform, 1 add"] {
            #expect(result.out.contains(line), "missing: \(line)\n\(result.out)")
        }
        let json = try Self.json(Harness.run(["model", "diff", try Self.exampleVersion(2), try Self.exampleVersion(3), "--json"]))
        let entities = (json["entities"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(entities.map { $0["name"]?.stringValue } == ["Post", "Section"])
        #expect(entities.map { $0["change"]?.stringValue } == ["changed", "added"])
        let post = try #require(entities.first)
        #expect(post["oldVersionHash"] != post["newVersionHash"])
        let changes = (post["properties"]?.arrayValue ?? []).compactMap(\.objectValue).map { "\($0["change"]?.stringValue ?? "") \($0["name"]?.stringValue ?? "")" }
        #expect(changes == ["added sections", "removed content"])
        #expect(json["lightweightMigration"]?.objectValue?["inferable"] == .bool(true))
    }

    @Test("Version 3 → 4: a required attribute with a default added, a delete rule changed", .enabled(if: CLIFixtures.enabled))
    func requiredWithDefault() throws {
        let result = Harness.run(["model", "diff", try Self.exampleVersion(3), try Self.exampleVersion(4)])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.contains("+ attribute softDeleted (Boolean, required, default false)"), "\(result.out)")
        #expect(result.out.contains("~ relationship sections: delete rule Cascade → Nullify"), "\(result.out)")
        #expect(result.out.contains("Unchanged: Section"), "\(result.out)")
    }

    @Test("An Apple store's cached model (Z_MODELCACHE) compares with the bundle's current version", .enabled(if: CLIFixtures.enabled))
    func storeAgainstBundle() throws {
        let store = try CLIFixtures.copy(try CLIFixtures.store("CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite"))
        let result = Harness.run(["model", "diff", store.path, try CLIFixtures.model(Self.exampleBundle).path])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.contains("Old: Z_MODELCACHE of"), "\(result.out)")
        // Straight from version 1 to 4, 'color' has no renaming identifier to follow any more.
        #expect(result.out.contains("- attribute color") && result.out.contains("+ attribute hexColor"), "\(result.out)")
    }

    // MARK: - Models written here

    @Test("An entity renamed through its renaming identifier is one renamed entity, not a removal and an addition")
    func renamedEntity() throws {
        let old = try Self.writeModel("V1", Self.authorBook)
        let renamed = Self.authorBook
            .replacingOccurrences(of: "<entity name=\"Author\" representedClassName=\"Author\"", with: "<entity name=\"Writer\" representedClassName=\"Writer\" elementID=\"Author\"")
            .replacingOccurrences(of: "destinationEntity=\"Author\" inverseName=\"books\" inverseEntity=\"Author\"", with: "destinationEntity=\"Writer\" inverseName=\"books\" inverseEntity=\"Writer\"")
        let result = Harness.run(["model", "diff", old, try Self.writeModel("V2", renamed)])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out.contains("~ Author → Writer  renamed (renaming identifier 'Author')"), "\(result.out)")
        #expect(result.out.contains("Entities: 0 added, 0 removed, 1 renamed"), "\(result.out)")
        // Book.author points to the renamed entity: the same destination, not a change.
        #expect(!result.out.contains("destination Author → Writer"), "\(result.out)")
    }

    @Test("A type change lightweight migration cannot infer: exit 1, the reason naming entity and property (134190)")
    func notInferable() throws {
        let old = try Self.writeModel("V1", Self.authorBook)
        let new = try Self.writeModel("V2", Self.authorBook.replacingOccurrences(of: "<attribute name=\"age\" optional=\"YES\" attributeType=\"String\"/>",
                                                                                  with: "<attribute name=\"age\" optional=\"YES\" attributeType=\"Date\"/>"))
        let result = Harness.run(["model", "diff", old, new])
        #expect(result.exitCode == 1)
        #expect(result.out.contains("~ attribute age: type String → Date"), "\(result.out)")
        #expect(result.out.contains("Lightweight migration: cannot be inferred (error 134190; entity Author, property age)"), "\(result.out)")
        let json = try Self.json(Harness.run(["model", "diff", old, new, "--json"]))
        let verdict = try #require(json["lightweightMigration"]?.objectValue)
        #expect(verdict["inferable"] == .bool(false) && verdict["code"] == .number("134190"))
        #expect(verdict["entity"] == .string("Author") && verdict["property"] == .string("age"))
    }

    @Test("Optionality, to-many and ordered changes are listed; to-one → to-many is inferable but noted as not migrated by the SQLite store yet")
    func relationshipShapes() throws {
        let old = try Self.writeModel("V1", Self.authorBook)
        let new = try Self.writeModel("V2", Self.authorBook
            .replacingOccurrences(of: "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>",
                                  with: "<attribute name=\"name\" attributeType=\"String\" defaultValueString=\"anonymous\"/>")
            .replacingOccurrences(of: "<relationship name=\"books\" optional=\"YES\" toMany=\"YES\"", with: "<relationship name=\"books\" optional=\"YES\" toMany=\"YES\" ordered=\"YES\"")
            .replacingOccurrences(of: "<relationship name=\"author\" optional=\"YES\" maxCount=\"1\"", with: "<relationship name=\"author\" optional=\"YES\" toMany=\"YES\""))
        let result = Harness.run(["model", "diff", old, new])
        #expect(result.exitCode == 0, "\(result.err)")
        for line in ["~ attribute name: default none → anonymous; optional yes → no", "~ relationship books: ordered no → yes",
                     "~ relationship author: to-many no → yes; max count 1 → *",
                     "note: OpenCoreData's SQLite store does not migrate this yet: relationship 'author' of 'Book' changes from to-one to many-to-many"] {
            #expect(result.out.contains(line), "missing: \(line)\n\(result.out)")
        }
    }

    @Test("Identical models: nothing changed, no migration needed, exit 0")
    func identical() throws {
        let model = try Self.writeModel("V1", Self.authorBook)
        let result = Harness.run(["model", "diff", model, model])
        #expect(result.exitCode == 0)
        #expect(result.out.contains("Entities: 0 added, 0 removed, 0 renamed, 0 changed, 2 unchanged"), "\(result.out)")
        #expect(result.out.contains("Unchanged: Author, Book"))
        #expect(result.out.contains("Lightweight migration: not needed"))
        #expect(try Self.json(Harness.run(["model", "diff", model, model, "--json"]))["identical"] == .bool(true))
    }

    @Test("Bad arguments: a missing model or a file that is not a model is one error line and exit 2; a missing argument exit 64")
    func badArguments() throws {
        let model = try Self.writeModel("V1", Self.authorBook)
        let missing = Harness.run(["model", "diff", model, "/nonexistent/Model.xcdatamodel"])
        #expect(missing.exitCode == 2)
        #expect(missing.err.hasPrefix("coredata: error: no model at /nonexistent/Model.xcdatamodel"), "\(missing.err)")
        let text = TemporaryFiles.folder().appendingPathComponent("notes.txt")
        try Data("not a model".utf8).write(to: text)
        let notModel = Harness.run(["model", "diff", text.path, model])
        #expect(notModel.exitCode == 2)
        #expect(notModel.err.hasPrefix("coredata: error: cannot load the model"), "\(notModel.err)")
        #expect(Harness.run(["model", "diff", model]).exitCode == 64)
    }
}
