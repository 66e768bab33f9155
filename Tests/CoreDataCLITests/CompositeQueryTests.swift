import Foundation
import Testing
@testable import CoreDataTool

/// `query` and `export` on a store in SwiftData's composite layout, read with its `Z_MODELCACHE`.
@Suite("query and export of composite attributes")
struct CompositeQueryTests {
    private func makeStore() throws -> URL {
        let url = TemporaryFiles.folder().appendingPathComponent("Cocktails.sqlite")
        try CompositeStoreBuilder.makeStore(at: url)
        return url
    }

    @Test("query prints composites as JSON objects, filters on element key paths, and reads the suffixed id")
    func query() throws {
        let url = try makeStore()
        let result = Harness.run(["query", url.path, "Cocktail", "--format", "json", "--sort", "name", "--where", "author.person == 'Ann' OR author == nil"])
        #expect(result.exitCode == 0, "\(result.err)")
        let rows = try #require(try JSONParser.parse(Data(result.out.utf8)).arrayValue).compactMap(\.objectValue)
        #expect(rows.map { $0["name"]?.stringValue } == ["Alaska", "Algonquin"])
        let algonquin = try #require(rows.last)
        #expect(algonquin["id"]?.stringValue == CompositeStoreBuilder.cocktailIDs[0].uuidString)
        let author = try #require(algonquin["author"]?.objectValue)
        #expect(author.keys == ["id", "person", "place", "year"])
        #expect(author["id"]?.stringValue == CompositeStoreBuilder.authorID.uuidString)
        #expect(author["person"]?.stringValue == "Ann")
        #expect(author["year"] == .number("1920"))
        #expect(algonquin["style"]?.objectValue?["algonquin"]?.stringValue == "algonquin")
        #expect(algonquin["style"]?.objectValue?["alaska"] == .null)
        #expect(algonquin["notes"]?.objectValue?["tags"]?.stringValue == Data(CompositeStoreBuilder.tagsJSON.utf8).base64EncodedString())
        #expect(algonquin["origin"]?.objectValue?["geo"]?.objectValue?["lat"] == .number("48.85"))
        #expect(rows.first?["author"] == .null)
    }

    @Test("export writes composites as JSON objects")
    func export() throws {
        let url = try makeStore()
        let output = TemporaryFiles.folder().appendingPathComponent("out.json")
        let result = Harness.run(["export", url.path, "--output", output.path])
        #expect(result.exitCode == 0, "\(result.err)")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.contains(#""person":"Ann""#) || text.contains(#""person": "Ann""#))
        #expect(text.contains("glasswareType"))
    }
}
