import Foundation
import Testing
@testable import CoreDataTool

/// `model show` and `model hashes`.
@Suite("model show and model hashes")
struct ModelCommandTests {
    @Test("show lists entities, attributes, relationships, constraints and fetch indexes", .enabled(if: CLIFixtures.enabled))
    func show() throws {
        let model = try CLIFixtures.model("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel").path
        let result = Harness.run(["model", "show", model])
        #expect(result.exitCode == 0, "\(result.err)")
        for text in ["Entities: 4", "LuxuryCar  (class LuxuryCar; parent SportCar)", "numberPlate            String  no",
                     "cars          Car          to-many  yes       0    *    owner    Nullify", "uniqueness constraints: (numberPlate)",
                     "fetch index byMakerAndNumberPlate: maker ascending, numberPlate ascending", "inherited from Car"] {
            #expect(result.out.contains(text), "missing: \(text)")
        }
        let json = try #require(try JSONParser.parse(Data(Harness.run(["model", "show", model, "--json"]).out.utf8)).objectValue)
        let entities = (json["entities"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(entities.compactMap { $0["name"]?.stringValue } == ["Car", "LuxuryCar", "Person", "SportCar"])
        let car = try #require(entities.first)
        #expect(car["uniquenessConstraints"] == .array([.array([.string("numberPlate")])]))
        let index = car["fetchIndexes"]?.arrayValue?.first?.objectValue
        #expect(index?["name"] == .string("byMakerAndNumberPlate"))
        let owner = car["relationships"]?.arrayValue?.first?.objectValue
        #expect(owner?["destination"] == .string("Person") && owner?["toMany"] == .bool(false) && owner?["deleteRule"] == .string("Nullify"))
    }

    @Test("show reads every attribute type, defaults, validation and transients from the test model")
    func showTestModel() throws {
        let result = Harness.run(["model", "show", try TestModel.write(), "--json"])
        #expect(result.exitCode == 0, "\(result.err)")
        let json = try #require(try JSONParser.parse(Data(result.out.utf8)).objectValue)
        let book = try #require(json["entities"]?.arrayValue?.compactMap(\.objectValue).first { $0["name"] == .string("Book") })
        let types = Dictionary(uniqueKeysWithValues: (book["attributes"]?.arrayValue ?? []).compactMap(\.objectValue).map { ($0["name"]?.stringValue ?? "", $0["type"]?.stringValue ?? "") })
        #expect(types == ["cover": "Binary", "inPrint": "Boolean", "isbn": "Integer 64", "link": "URI", "pages": "Integer 32", "price": "Decimal",
                          "published": "Date", "rating": "Double", "title": "String", "weight": "Float"])
        let author = try #require(json["entities"]?.arrayValue?.compactMap(\.objectValue).first { $0["name"] == .string("Author") })
        let books = author["relationships"]?.arrayValue?.first?.objectValue
        #expect(books?["maxCount"] == .number("3") && books?["deleteRule"] == .string("Cascade"))
        let name = author["attributes"]?.arrayValue?.compactMap(\.objectValue).first { $0["name"] == .string("name") }
        #expect(name?["validation"]?.arrayValue?.isEmpty == false)
    }

    @Test("hashes equal what each fixture store recorded, from the model file", .enabled(if: CLIFixtures.enabled), arguments: CLIFixtures.pairs.indices.filter { CLIFixtures.pairs[$0].model != nil })
    func hashesMatchStores(index: Int) throws {
        let pair = CLIFixtures.pairs[index]
        let copy = try CLIFixtures.copy(try CLIFixtures.store(pair.store))
        let result = Harness.run(["model", "hashes", try CLIFixtures.model(pair.model!).path, "--json"])
        #expect(result.exitCode == 0)
        let json = try #require(try JSONParser.parse(Data(result.out.utf8)).objectValue)
        let file = try StoreFile(path: copy.path)
        defer { file.close() }
        let stored = (file.metadata["NSStoreModelVersionHashes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
        let entities = try #require(json["entities"]?.objectValue)
        #expect(Set(entities.keys) == Set(stored.keys))
        for (name, hash) in stored {
            #expect(entities[name]?.objectValue?["base64"] == .string(hash.base64EncodedString()), "\(pair.store) \(name)")
            #expect(entities[name]?.objectValue?["hex"] == .string(HashesReport.hex(hash)))
        }
        if let digest = file.metadata["NSStoreModelVersionHashesDigest"] as? String {
            #expect(json["digest"] == .string(digest))
        }
        if let checksum = file.metadata["NSStoreModelVersionChecksumKey"] as? String {
            #expect(json["checksum"] == .string(checksum))
        }
    }

    @Test("hashes of a store path use its Z_MODELCACHE; --properties lists property hashes", .enabled(if: CLIFixtures.enabled))
    func hashesOfStore() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store("CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite"))
        let result = Harness.run(["model", "hashes", copy.path, "--properties"])
        #expect(result.exitCode == 0)
        #expect(result.out.contains("Model: Z_MODELCACHE of"))
        #expect(result.out.contains("  .name") && result.out.contains("  .petName"))
        #expect(result.out.contains("Digest (NSStoreModelVersionHashesDigest):"))
    }

    @Test("Bad model paths are clean errors", arguments: ["missing", "text", "folder", "notAModel"])
    func badModels(kind: String) throws {
        let folder = TemporaryFiles.folder()
        var path = folder.appendingPathComponent("Nope.xcdatamodeld").path
        switch kind {
        case "text":
            path = folder.appendingPathComponent("model.mom").path
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        case "folder":
            path = folder.path
        case "notAModel":
            let bundle = folder.appendingPathComponent("Bad.xcdatamodel")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            try Data("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Quaternion\"/></entity></model>".utf8)
                .write(to: bundle.appendingPathComponent("contents"))
            path = bundle.path
        default: break
        }
        for command in [["model", "show"], ["model", "hashes"], ["model", "compile", "--output", folder.appendingPathComponent("Out.mom").path]] {
            let result = Harness.run(command + [path])
            #expect(result.exitCode == 2, "\(kind)")
            #expect(result.err.hasPrefix("coredata: error: "), "\(kind): \(result.err)")
            #expect(result.err.split(separator: "\n").count == 1, "\(kind): \(result.err)")
        }
    }

    @Test("compile writes the .mom that show reads as the same model, and --output names the path")
    func compile() throws {
        let folder = TemporaryFiles.folder()
        let source = URL(fileURLWithPath: try TestModel.write())
        let output = folder.appendingPathComponent("Books.mom")
        let result = Harness.run(["model", "compile", source.path, "--output", output.path])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.out == "wrote \(output.path)\n")
        let fromSource = Harness.run(["model", "hashes", source.path])
        let fromCompiled = Harness.run(["model", "hashes", output.path])
        #expect(fromCompiled.exitCode == 0 && !fromCompiled.out.isEmpty, "\(fromCompiled.err)")
        // Everything after the first line, which names the file.
        func body(_ text: String) -> Substring { text.split(separator: "\n", maxSplits: 1).last ?? "" }
        #expect(body(fromCompiled.out) == body(fromSource.out))
        #expect(body(Harness.run(["model", "show", output.path]).out) == body(Harness.run(["model", "show", source.path]).out))
        let notSource = Harness.run(["model", "compile", output.path])
        #expect(notSource.exitCode == 2 && notSource.err.contains("is not model source"), "\(notSource.err)")
    }
}
