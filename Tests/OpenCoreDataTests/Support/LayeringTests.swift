import Foundation
import Testing

/// Issue #15: the store seam's dependency rules hold over the library's sources, and the check
/// really fails when a rule is broken.
@Suite("Layering: the store seam's dependency rules")
struct LayeringTests {
    @Test("No folder uses what its rules forbid (Stores ↛ ObjectGraph, StoreInterface ↛ ObjectGraph and stores, Model ↛ stores, ObjectGraph ↛ backends)")
    func sourcesFollowTheRules() throws {
        let check = LayerCheck(root: LayerCheck.sourceRoot)
        try #require(!check.declaredTypes(in: "ObjectGraph").isEmpty, "no sources at \(LayerCheck.sourceRoot.path)")
        #expect(check.declaredTypes(in: "StoreInterface").isSuperset(of: ["PersistentStoreBackend", "StoreFetchRequest", "RowSnapshot", "NSManagedObjectID", "EntityLayout"]))
        let violations = check.violations()
        #expect(violations.isEmpty, "\(violations.map(\.description).joined(separator: "\n"))")
    }

    /// A throwaway source tree with one file per (path, text).
    static func tree(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("LayerCheck-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test("A deliberate violation is reported with its file, line and rule; comments and strings are not uses")
    func deliberateViolationFails() throws {
        let root = try Self.tree([
            "ObjectGraph/Object/Thing.swift": "package final class ManagedThing {\n    struct Column {}\n}\n",
            "Stores/Good.swift": "// ManagedThing is mentioned in a comment only\nlet text = \"ManagedThing\"\nstruct Column {}\n",
            "Stores/SQL/Bad.swift": "import Foundation\n\nfunc f(_ thing: ManagedThing) {}\n",
            "ObjectGraph/Fetch.swift": "func g(store: Store) { _ = store.backend }\n",
            "Stores/SQL/Driver.swift": "import GRDB\n\nlet value: DatabaseValue = .null\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let check = LayerCheck(root: root)
        #expect(check.declaredTypes(in: "ObjectGraph") == ["ManagedThing"])
        let violations = check.violations()
        #expect(violations.map(\.file).sorted() == ["ObjectGraph/Fetch.swift", "Stores/SQL/Bad.swift", "Stores/SQL/Driver.swift", "Stores/SQL/Driver.swift"], "\(violations)")
        #expect(violations.first { $0.file == "Stores/SQL/Bad.swift" }?.line == 3)
        #expect(violations.first { $0.file == "Stores/SQL/Bad.swift" }?.name == "ManagedThing")
        #expect(violations.first { $0.file == "ObjectGraph/Fetch.swift" }?.name == "backend")
        // The SQL layer names no driver: neither its module nor its value type.
        #expect(violations.filter { $0.file == "Stores/SQL/Driver.swift" }.map { "\($0.line):\($0.name)" } == ["1:GRDB", "3:DatabaseValue"])
    }

    @Test("Comments, block comments and string literals are blanked; line numbers are kept")
    func codeStripping() {
        let code = LayerCheck.code("a /* b\nc */ d // e\n\"f\" g \"\"\"\nh\n\"\"\" i")
        #expect(LayerCheck.words(Substring(code)) == ["a", "d", "g", "i"])
        #expect(code.filter { $0 == "\n" }.count == 4)
    }
}
