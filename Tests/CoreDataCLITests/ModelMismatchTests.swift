import Foundation
import Testing
@testable import CoreDataTool

/// Reading a store with a model that is not its own (`--ignore-model-mismatch`).
@Suite("Models that do not match the store")
struct ModelMismatchTests {
    private func model(_ name: String, _ entities: String) throws -> String {
        let bundle = TemporaryFiles.folder().appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">\(entities)</model>
        """
        try Data(xml.utf8).write(to: bundle.appendingPathComponent("contents"))
        return bundle.path
    }

    @Test("An entity the store lacks is refused when it would be read from another entity's rows")
    func collidingEntityNumbers() throws {
        let original = try model("A", """
            <entity name="Alpha" representedClassName="Alpha"><attribute name="a" optional="YES" attributeType="String"/></entity>
            <entity name="Beta" representedClassName="Beta"><attribute name="b" optional="YES" attributeType="String"/></entity>
            """)
        let other = try model("B", """
            <entity name="Beta" representedClassName="Beta"><attribute name="b" optional="YES" attributeType="String"/></entity>
            <entity name="Zeta" representedClassName="Zeta"><attribute name="z" optional="YES" attributeType="String"/></entity>
            """)
        let folder = TemporaryFiles.folder()
        let store = folder.appendingPathComponent("s.sqlite").path
        let file = folder.appendingPathComponent("d.json")
        try Data(#"{"objects": {"1": {"entity": "Alpha", "attributes": {"a": "x"}}, "2": {"entity": "Beta", "attributes": {"b": "beta row"}}}}"#.utf8).write(to: file)
        #expect(Harness.run(["import", store, file.path, "--model", original]).exitCode == 0)

        let refused = Harness.run(["query", store, "Beta", "--model", other])
        #expect(refused.exitCode == 2 && refused.err.contains("version hashes differ for Alpha, Zeta"))
        let forced = Harness.run(["query", store, "Beta", "--model", other, "--ignore-model-mismatch"])
        #expect(forced.exitCode == 2)
        #expect(forced.err.contains("entity Zeta is not in the store") && forced.err.contains("entity Beta (Z_ENT 2)"), "\(forced.err)")
        // With its own model the rows read as they are.
        let own = Harness.run(["query", store, "Beta", "--model", original, "--format", "csv"])
        #expect(own.out.contains("beta row"))
    }
}
