import Foundation
import Testing
@testable import CoreDataTool

/// `model graph`: DOT and SVG of a model, through the library's renderer.
@Suite("model graph")
struct ModelGraphTests {
    @Test("DOT names every entity and relationship; SVG is a picture of the same entities")
    func dotAndSVG() throws {
        let model = try TestModel.write()
        let dot = Harness.run(["model", "graph", model])
        #expect(dot.exitCode == 0, "\(dot.err)")
        #expect(dot.out.contains("digraph"))
        for name in ["Author", "Book", "Tag", "books", "tags"] { #expect(dot.out.contains(name), "\(name)") }
        let svg = Harness.run(["model", "graph", model, "--format", "svg"])
        #expect(svg.exitCode == 0)
        #expect(svg.out.contains("<svg") && svg.out.contains("</svg>"))
        for name in ["Author", "Book", "Tag"] { #expect(svg.out.contains(name)) }
        let bare = Harness.run(["model", "graph", model, "--no-attributes"])
        #expect(!bare.out.contains("isbn") && dot.out.contains("isbn"))
    }

    @Test("--output picks the format from the extension and writes the file")
    func output() throws {
        let folder = TemporaryFiles.folder()
        let file = folder.appendingPathComponent("model.svg")
        let result = Harness.run(["model", "graph", try TestModel.write(), "-o", file.path])
        #expect(result.exitCode == 0, "\(result.err)")
        #expect(result.err.contains("wrote SVG of 3 entities"))
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("<svg"))
        let bad = Harness.run(["model", "graph", try TestModel.write(), "-o", "/nonexistent-folder/m.dot"])
        #expect(bad.exitCode == 2 && bad.err.hasPrefix("coredata: error: cannot write"))
    }
}
