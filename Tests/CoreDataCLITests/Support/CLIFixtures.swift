import Foundation
import Testing

/// The shared fixtures (`../shared/fixtures` beside the package, or `$OPENCOREDATA_FIXTURES`).
enum CLIFixtures {
    static let root: URL? = {
        if let path = ProcessInfo.processInfo.environment["OPENCOREDATA_FIXTURES"], !path.isEmpty {
            return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil
        }
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("stores").path) ? url : nil
    }()

    /// The package's folder.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Run fixture tests when the fixtures exist, and in CI (where their absence is a failure).
    static let enabled = root != nil || isCI

    struct Missing: Error {}

    static func require() throws -> URL {
        guard let root else {
            Issue.record("The shared fixtures are missing (set OPENCOREDATA_FIXTURES or put shared/ beside the package); CI must have them.")
            throw Missing()
        }
        return root
    }

    /// Store → model, as `shared/tools/verify_fixtures.py` pairs them; nil model = the store's Z_MODELCACHE only.
    static let pairs: [(store: String, model: String?)] = [
        ("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite", "CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"),
        ("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite", "CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        ("CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite", "CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel"),
        ("CoreDataPlus-2018/Tests/SampleModelV1.sqlite", "CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        ("CoreDataPlus-2018/Tests/SampleModelV2.sqlite", "CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite",
         "CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example.xcdatamodel"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite",
         "CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 2.xcdatamodel"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_3.sqlite",
         "CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 3.xcdatamodel"),
        ("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite", nil),
        ("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite", nil),
    ]

    /// Every `.sqlite` store under `stores/`, relative to it (empty without fixtures).
    static let storeList: [String] = {
        guard let root else { return [] }
        let stores = root.appendingPathComponent("stores")
        let enumerator = FileManager.default.enumerator(atPath: stores.path)
        var result: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".sqlite") { result.append(path) }
        }
        return result.sorted()
    }()

    /// Every `.sqlite` store under `stores/`.
    static func allStores() throws -> [URL] {
        let stores = try require().appendingPathComponent("stores")
        let enumerator = FileManager.default.enumerator(at: stores, includingPropertiesForKeys: nil)
        var result: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "sqlite" { result.append(url) }
        }
        return result.sorted { $0.path < $1.path }
    }

    static func store(_ relative: String) throws -> URL {
        try require().appendingPathComponent("stores").appendingPathComponent(relative)
    }

    static func model(_ relative: String) throws -> URL {
        try require().appendingPathComponent("models").appendingPathComponent(relative)
    }

    /// Copies a store (and its -wal/-shm files) into a new temporary folder: fixtures are never opened in place.
    static func copy(_ store: URL) throws -> URL {
        let target = TemporaryFiles.folder().appendingPathComponent(store.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: target.path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path + suffix)
        }
        return target
    }
}

/// Temporary folders, one per call, under the system's temporary directory.
enum TemporaryFiles {
    static func folder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-cli-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
