import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Access to shared/fixtures: Apple-written models, compiled models and stores.
///
/// The folder is `$OPENCOREDATA_FIXTURES`, or `../shared/fixtures` relative to the package root.
/// When it is missing, fixture tests are skipped, except with `CI=true`, where they fail.
/// Fixtures are never written: stores are opened read-only and immutable.
enum ModelFixtures {
    /// The fixtures folder, or nil when it is missing.
    static let root: URL? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["OPENCOREDATA_FIXTURES"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidate = packageRoot.appendingPathComponent("../shared/fixtures", isDirectory: true).standardizedFileURL
        return FileManager.default.fileExists(atPath: candidate.appendingPathComponent("models").path) ? candidate : nil
    }()

    /// Whether fixture tests run: the fixtures exist, or CI demands them (and `require` then fails).
    static var enabled: Bool {
        root != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The fixtures folder; fails the test when it is missing on CI.
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        try #require(root, "shared/fixtures is missing (set OPENCOREDATA_FIXTURES); CI=true requires it", sourceLocation: sourceLocation)
    }

    /// A path under `fixtures/models`.
    static func model(_ path: String) throws -> URL {
        try require().appendingPathComponent("models").appendingPathComponent(path)
    }

    /// A path under `fixtures/stores`.
    static func store(_ path: String) throws -> URL {
        try require().appendingPathComponent("stores").appendingPathComponent(path)
    }

    /// A store's `Z_METADATA` plist and its `Z_MODELCACHE` blob, read without writing anything.
    static func storeContents(_ url: URL) throws -> (metadata: [String: Any], modelCache: Data?) {
        var configuration = Configuration()
        configuration.readonly = true
        let path = "file:\(url.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? url.path)?mode=ro&immutable=1"
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        return try queue.read { db in
            let plistData = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") ?? Data()
            let metadata = try PropertyListSerialization.propertyList(from: plistData, options: [], format: nil) as? [String: Any] ?? [:]
            let hasCache = try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'Z_MODELCACHE'") ?? false
            let cache = hasCache ? try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") : nil
            return (metadata, cache)
        }
    }

    /// The model/store pairs Apple wrote (shared/tools/verify_fixtures.py): the `.xcdatamodel` a
    /// store was created with, relative to `models/` and `stores/`.
    static let storePairs: [(model: String, store: String)] = [
        ("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel",
         "CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite"),
        ("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel",
         "CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite"),
        ("CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel",
         "CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite"),
        ("CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel",
         "CoreDataPlus-2018/Tests/SampleModelV1.sqlite"),
        ("CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel",
         "CoreDataPlus-2018/Tests/SampleModelV2.sqlite"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example.xcdatamodel",
         "CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 2.xcdatamodel",
         "CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 3.xcdatamodel",
         "CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_3.sqlite"),
    ]

    /// Every store in the fixtures, those without a source model included.
    static let allStores: [String] = storePairs.map(\.store) + [
        "CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite",
        "CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite",
    ]

    /// Every compiled model bundle with the source bundle it was compiled from (paths under the fixtures root).
    static let compiledModels: [(momd: String, source: String)] = [
        ("stores/CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd",
         "models/CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"),
        ("stores/CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd",
         "models/CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld"),
        ("models/CoreDataPlus-2018/Tests/SampleModel.momd",
         "models/CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld"),
    ]

    /// Every `.xcdatamodel` folder (and bare `contents` XML) under `models/`.
    static func allSourceModels() throws -> [URL] {
        let models = try require().appendingPathComponent("models")
        var found: [URL] = []
        guard let enumerator = FileManager.default.enumerator(at: models, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in enumerator {
            if url.lastPathComponent == "contents" { found.append(url.deletingLastPathComponent()) }
        }
        return found.sorted { $0.path < $1.path }
    }
}

// MARK: - Comparing models

extension NSManagedObjectModel {
    /// A description of everything the store and the hashes depend on, for comparing models loaded
    /// from different forms: entities, inheritance, properties with their persistent settings, hashes.
    ///
    /// Left out because Apple's tools change them: some stores' model caches record every class as
    /// `NSManagedObject` (`includeClassNames`), Xcode 10's compiler renamed fetch indexes after
    /// their elements (`maker_numberPlate`), and Xcode 15's drops a transformable's custom class.
    var persistentSummary: [String] { summary(includeClassNames: true) }

    /// ``persistentSummary`` with or without the entity class names.
    func summary(includeClassNames: Bool) -> [String] {
        var lines: [String] = []
        for entity in entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            lines.append("entity \(entity.name ?? "") class=\(includeClassNames ? entity.managedObjectClassName ?? "" : "-") abstract=\(entity.isAbstract) super=\(entity.superentity?.name ?? "-") subs=\(entity.subentities.compactMap(\.name).sorted()) renaming=\(entity.renamingIdentifier ?? entity.name ?? "") vhm=\(entity.versionHashModifier ?? "-") unique=\(entity.uniquenessConstraints.map { $0.map { "\($0)" } }) indexes=\(entity.indexes.map { $0.elements.map { "\($0.propertyName ?? "")\($0.isAscending ? "+" : "-")" } }) hash=\(entity.versionHash.hex)")
            for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
                var line = "  \(type(of: property)) \(property.name) optional=\(property.isOptional) transient=\(property.isTransient) renaming=\(property.renamingIdentifier ?? property.name) hash=\(property.versionHash.hex)"
                if let attribute = property as? NSAttributeDescription {
                    line += " type=\(attribute.attributeType.xmlName) class=\(attribute.attributeType == .transformableAttributeType ? "-" : attribute.attributeValueClassName ?? "-") transformer=\(attribute.valueTransformerName ?? "-") default=\(attribute.defaultValue.map { "\($0)" } ?? "-") preserve=\(attribute.preservesValueInHistoryOnDeletion)"
                }
                if let relationship = property as? NSRelationshipDescription {
                    line += " to=\(relationship.destinationEntity?.name ?? "?") inverse=\(relationship.inverseRelationship?.name ?? "-") min=\(relationship.minCount) max=\(relationship.maxCount) rule=\(relationship.deleteRule.rawValue) ordered=\(relationship.isOrdered)"
                }
                lines.append(line)
            }
        }
        return lines
    }
}

/// The lines only in `left` (prefixed "-") and only in `right` (prefixed "+").
func summaryDifference(_ left: [String], _ right: [String]) -> [String] {
    let leftSet = Set(left), rightSet = Set(right)
    return left.filter { !rightSet.contains($0) }.map { "- " + $0 } + right.filter { !leftSet.contains($0) }.map { "+ " + $0 }
}

extension Data {
    /// Lower-case hexadecimal.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
