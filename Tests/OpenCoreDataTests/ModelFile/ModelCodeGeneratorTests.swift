import Foundation
import Testing
@testable import OpenCoreData

/// The Swift `ocd-modelgen` writes, checked against golden files in `Tests/Golden/CodeGeneration`.
///
/// Run with `OCD_UPDATE_GOLDEN=1` to rewrite the golden files after an intended change, then
/// review the diff. Examples/GeneratedModel compiles and runs the same code.
@Suite("Code generation from models")
struct ModelCodeGeneratorTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let recipesModel = packageRoot.appendingPathComponent("Examples/GeneratedModel/Sources/RecipeModel/Recipes.xcdatamodeld")
    static let todoModel = packageRoot.appendingPathComponent("Examples/GeneratedModel/Sources/TodoModel/Todo.xcdatamodeld")
    static let seedModel = "arnosolo-blog/demo5_todo_list.xcdatamodeld"

    /// The files as one text, each under a `// ===== name =====` line.
    static func render(_ files: [ModelCodeGenerator.File]) -> String {
        files.map { "// ===== \($0.name) =====\n\($0.contents)" }.joined(separator: "\n")
    }

    /// Compares text with a golden file, or rewrites the file when `OCD_UPDATE_GOLDEN=1`.
    static func expectGolden(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = packageRoot.appendingPathComponent("Tests/Golden/CodeGeneration/\(name)")
        if ProcessInfo.processInfo.environment["OCD_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        if text != golden {
            let got = text.split(separator: "\n", omittingEmptySubsequences: false)
            let want = golden.split(separator: "\n", omittingEmptySubsequences: false)
            let line = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, want.count)
            Issue.record("""
                generated code differs from \(name) at line \(line + 1):
                  got:  \(line < got.count ? String(got[line]) : "<end>")
                  want: \(line < want.count ? String(want[line]) : "<end>")
                (OCD_UPDATE_GOLDEN=1 rewrites the golden file)
                """, sourceLocation: sourceLocation)
        }
    }

    static func generator(xml body: String, name: String = "Test.xcdatamodel") throws -> ModelCodeGenerator {
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(Data(ModelXML.model(body).utf8), url: nil, into: model)
        return ModelCodeGenerator(model: model, sourceName: name)
    }

    // MARK: - Golden files

    @Test("The seed to-do model: classes, properties and to-many accessors, as Xcode writes them",
          .enabled(if: ModelFixtures.enabled))
    func seedModel() throws {
        let url = try ModelFixtures.model(Self.seedModel)
        let generator = ModelCodeGenerator(model: try NSManagedObjectModel.load(contentsOf: url), sourceName: url.lastPathComponent)
        let files = try generator.files(for: .codegenSettings)
        #expect(files.map(\.name) == [
            "LocationEntity+CoreDataClass.swift", "LocationEntity+CoreDataProperties.swift",
            "TagEntity+CoreDataClass.swift", "TagEntity+CoreDataProperties.swift",
            "TodoEntity+CoreDataClass.swift", "TodoEntity+CoreDataProperties.swift",
        ])
        try Self.expectGolden(Self.render(files), "seed-todo.txt")

        // The sample package's own model has the same shape, so it generates the same code.
        let sample = ModelCodeGenerator(model: try NSManagedObjectModel.load(contentsOf: Self.todoModel), sourceName: url.lastPathComponent)
        #expect(Self.render(try sample.files(for: .codegenSettings)) == Self.render(files))
    }

    @Test("Inheritance, an ordered to-many, every attribute type and every Codegen setting")
    func recipesModel() throws {
        let generator = ModelCodeGenerator(model: try NSManagedObjectModel.load(contentsOf: Self.recipesModel),
                                           sourceName: "Recipes.xcdatamodeld")
        let files = try generator.files(for: .codegenSettings)
        // Ingredient is Category/Extension (no class file), Note is Manual/None (nothing).
        #expect(files.map(\.name) == [
            "Ingredient+CoreDataProperties.swift",
            "Item+CoreDataClass.swift", "Item+CoreDataProperties.swift",
            "Recipe+CoreDataClass.swift", "Recipe+CoreDataProperties.swift",
            "Step+CoreDataClass.swift", "Step+CoreDataProperties.swift",
        ])
        try Self.expectGolden(Self.render(files), "recipes.txt")

        // The build plugin's single file holds the same declarations.
        let combined = try generator.combinedSource(for: .codegenSettings, fileName: "Recipes+CoreDataModel.swift")
        try Self.expectGolden(combined, "recipes-combined.txt")
        for file in files {
            let body = file.contents.components(separatedBy: "import OpenCoreData\n").last ?? ""
            #expect(combined.contains(body.trimmingCharacters(in: .newlines)), "\(file.name) is in the combined file")
        }
    }

    @Test("Manual generation writes every entity, with classes for entities that have none",
          .enabled(if: ModelFixtures.enabled))
    func manualGeneration() throws {
        let url = try ModelFixtures.model("mogenerator/test/test.xcdatamodel")
        let generator = ModelCodeGenerator(model: try NSManagedObjectModel.load(contentsOf: url), sourceName: url.lastPathComponent)
        let files = try generator.files(for: .manual(entities: nil))
        try Self.expectGolden(Self.render(files), "mogenerator-manual.txt")
        let text = Self.render(files)
        // Entities whose class is NSManagedObject get a class named after the entity.
        #expect(text.contains("public class EntitySansCustomClass2: NSManagedObject {"))
        #expect(text.contains("public class ConcreteEntityWithCustomClass1: EntitySansCustomClass2 {"))
        #expect(text.contains("public class ChildMO: HumanMO {"))
        // Only the root of an inheritance tree declares Identifiable.
        #expect(text.contains("extension HumanMO : Identifiable {"))
        #expect(!text.contains("extension ChildMO : Identifiable {"))
        #expect(text.contains("public func insertIntoOrderedChildren(_ value: ChildMO, at idx: Int) {"))

        let some = try generator.files(for: .manual(entities: ["Uncle"]))
        #expect(some.map(\.name) == ["UncleMO+CoreDataClass.swift", "UncleMO+CoreDataProperties.swift"])
        // A subentity's class names its parent's class, generated or not.
        #expect(some[0].contents.contains("public class UncleMO: HumanMO {"))
    }

    @Test("Every fixture model generates code or a clear error", .enabled(if: ModelFixtures.enabled))
    func everyFixture() throws {
        for url in try ModelFixtures.allSourceModels() {
            let model = try NSManagedObjectModel.load(contentsOf: url)
            let generator = ModelCodeGenerator(model: model, sourceName: url.lastPathComponent)
            for selection in [ModelCodeGenerator.Selection.codegenSettings, .manual(entities: nil)] {
                do {
                    let files = try generator.files(for: selection)
                    if selection != .codegenSettings { #expect(files.count == 2 * model.entities.count, "\(url.path)") }
                } catch let error as ModelCodeGenerationError {
                    #expect(error.entity != nil, "\(url.path): \(error)")
                }
            }
        }
    }

    // MARK: - Names and types

    @Test("Types follow Xcode: scalars where usesScalarValueType is set, optionals otherwise")
    func attributeTypes() throws {
        let generator = try Self.generator(xml: """
            <entity name="E" representedClassName="E" codeGenerationType="class">
                <attribute name="a" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                <attribute name="b" optional="YES" attributeType="Integer 16"/>
                <attribute name="c" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="d" optional="YES" attributeType="Boolean" usesScalarValueType="NO"/>
                <attribute name="e" optional="YES" attributeType="Date" usesScalarValueType="YES"/>
                <attribute name="f" attributeType="String"/>
                <attribute name="g" optional="YES" attributeType="Transformable" customClassName="[String: Int]"/>
                <attribute name="h" optional="YES" transient="YES" attributeType="Undefined"/>
                <attribute name="i" optional="YES" attributeType="Transformable" customClassName="NSArray"/>
            </entity>
            """)
        let text = try generator.combinedSource(for: .codegenSettings, fileName: "T.swift")
        for line in [
            "@Managed public var a: Int16", "@Managed public var b: NSNumber?", "@Managed public var c: Bool",
            "@Managed public var d: NSNumber?", "@Managed public var e: Date?", "@Managed public var f: String?",
            "@Managed public var g: [String: Int]?", "@Managed public var h: NSObject?", "@Managed public var i: NSArray?",
        ] {
            #expect(text.contains(line + "\n"), "\(line)")
        }
    }

    @Test("Class names drop a module prefix or leading dot; keywords are escaped")
    func names() throws {
        let generator = try Self.generator(xml: """
            <entity name="A" representedClassName="MyApp.Alpha" codeGenerationType="class">
                <attribute name="default" optional="YES" attributeType="String"/>
                <relationship name="others" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="B"/>
            </entity>
            <entity name="B" representedClassName=".Beta" codeGenerationType="category"/>
            <entity name="C" codeGenerationType="class"/>
            """)
        let files = try generator.files(for: .codegenSettings)
        #expect(files.map(\.name) == [
            "Alpha+CoreDataClass.swift", "Alpha+CoreDataProperties.swift", "Beta+CoreDataProperties.swift",
            "C+CoreDataClass.swift", "C+CoreDataProperties.swift",
        ])
        let text = Self.render(files)
        #expect(text.contains("@Managed public var `default`: String?"))
        #expect(text.contains("public func addToOthers(_ value: Beta) {"))
        #expect(text.contains("return NSFetchRequest<Alpha>(entityName: \"A\")"))
    }

    @Test("Names that can't be Swift are errors naming the entity and property")
    func badNames() throws {
        func expectError(_ xml: String, entity: String?, property: String?, mentioning fragment: String,
                         selection: ModelCodeGenerator.Selection = .codegenSettings,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
            let generator = try Self.generator(xml: xml)
            do {
                _ = try generator.files(for: selection)
                Issue.record("expected an error", sourceLocation: sourceLocation)
            } catch let error as ModelCodeGenerationError {
                #expect(error.entity == entity, sourceLocation: sourceLocation)
                #expect(error.property == property, sourceLocation: sourceLocation)
                #expect(error.description.contains(fragment), "\(error)", sourceLocation: sourceLocation)
            }
        }
        try expectError(#"<entity name="E" representedClassName="My-Class" codeGenerationType="class"/>"#,
                        entity: "E", property: nil, mentioning: "'My-Class' is not a valid Swift class name")
        try expectError("""
            <entity name="E" representedClassName="E" codeGenerationType="class">
                <attribute name="description" optional="YES" attributeType="String"/>
            </entity>
            """, entity: "E", property: "description", mentioning: "already a member of NSManagedObject")
        try expectError("""
            <entity name="E" representedClassName="E" codeGenerationType="class">
                <attribute name="x" optional="YES" attributeType="Transformable" customClassName="Int }; import Evil; struct X {"/>
            </entity>
            """, entity: "E", property: "x", mentioning: "is not a Swift type")
        try expectError("""
            <entity name="E" representedClassName="Same" codeGenerationType="class"/>
            <entity name="F" representedClassName="Other.Same" codeGenerationType="class"/>
            """, entity: "E", property: nil, mentioning: "entities 'E' and 'F' would both generate class 'Same'")
        try expectError(#"<entity name="E" representedClassName="E"/>"#, entity: "Missing", property: nil,
                        mentioning: "no such entity", selection: .manual(entities: ["Missing"]))
    }

    @Test("Strings in generated code are escaped")
    func stringLiterals() {
        #expect(swiftStringLiteral(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(swiftStringLiteral("line\nbreak\u{1}") == #""line\nbreak\u{1}""#)
    }
}
