import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// objective-audio's CoreDataMigrationSample (issue #16, "Done when"): two bundles, `Model.xcdatamodeld`
/// and `ModelS.xcdatamodeld`, each with the versions "<B>", "<B> 1" and "<B> 2". The first two
/// describe the same entities: `EntityA` and `EntityB` with `group` (Integer 16), `name` (String)
/// and the one-to-one `relationship`, each the other's inverse; only "Model 1"'s version
/// identifier ("v1") tells them apart. "<B> 2" adds the optional String `dummy` to `EntityA`.
/// Every step is inferable by Apple's lightweight-migration rules. There are no Apple-written
/// stores for this sample, so OpenCoreData writes each older version's store and opens it with a
/// newer version through the coordinator's automatic migration and inference.
@Suite("CoreDataMigrationSample migrations", .enabled(if: Fixtures.enabled, "needs ../shared/fixtures"))
struct MigrationSampleFixtureTests {
    static let bundleNames = ["Model", "ModelS"]
    static var migrate: [AnyHashable: Any] { LightweightMigrationTests.migrate }

    // MARK: - Models

    static func bundle(_ name: String) throws -> URL {
        try Fixtures.require().appendingPathComponent(
            "models/CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/\(name).xcdatamodeld")
    }

    /// The version file of step 0 ("<B>"), 1 ("<B> 1") or 2 ("<B> 2").
    static func versionName(_ bundleName: String, _ step: Int) -> String {
        step == 0 ? bundleName : "\(bundleName) \(step)"
    }

    /// A version loaded from its own file, knowing its bundle (so migration can try every version).
    static func model(_ bundleName: String, _ step: Int) throws -> NSManagedObjectModel {
        let bundle = try bundle(bundleName)
        let model = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent(versionName(bundleName, step) + ".xcdatamodel"))
        model.versionBundleURL = bundle
        return model
    }

    // MARK: - Data

    /// One object as the object graph shows it; `partner` is the name at the other end of `relationship`.
    struct Object: Hashable {
        var entity: String
        var name: String?
        var group: Int16?
        var partner: String?
        var dummy: String?
    }

    /// Writes a store with `model` and closes it: 10 `EntityA` and 11 `EntityB`, the first 8 of
    /// each paired through `relationship`, the rest alone; groups cover Integer 16's range and nil;
    /// `dummy` is set where the model has it. Returns what was written.
    static func populate(_ url: URL, model: NSManagedObjectModel) throws -> Set<Object> {
        let groups: [Int16?] = [0, 1, -1, .max, .min, nil, 7, 3, 300, -300, 5]
        let hasDummy = model.entitiesByName["EntityA"]?.attributesByName["dummy"] != nil
        let context = try TestModels.sqliteContext(model, url: url)
        try context.performAndWait {
            var byEntity: [String: [NSManagedObject]] = [:]
            for (entity, count) in [("EntityA", 10), ("EntityB", 11)] {
                for index in 0..<count {
                    let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                    // Names with non-ASCII text and an empty one: values must come over byte for byte.
                    object.setValue(index == 9 ? "" : name(entity, index), forKey: "name")
                    object.setValue(groups[index].map { NSNumber(value: $0) }, forKey: "group")
                    if hasDummy && entity == "EntityA" && index % 2 == 0 { object.setValue("dummy \(index)", forKey: "dummy") }
                    byEntity[entity, default: []].append(object)
                }
            }
            for index in 0..<8 {
                byEntity["EntityA"]?[index].setValue(byEntity["EntityB"]?[index], forKey: "relationship")
            }
            try context.save()
        }
        let written = try objects(in: context)
        try close(context)
        // What later comparisons rest on: every object, its values and its pairing read back.
        #expect(written.count == 21 && written.filter { $0.partner != nil }.count == 16)
        #expect(written.contains { $0.group == .min } && written.contains { $0.group == .max } && written.contains { $0.group == nil })
        #expect(written.contains { $0.name == "" } && written.contains { $0.name == name("EntityB", 10) })
        #expect(written.contains { $0.dummy != nil } == hasDummy)
        return written
    }

    /// The name `populate` gives an object: "A3 · Grüße".
    static func name(_ entity: String, _ index: Int) -> String {
        "\(entity.suffix(1))\(index) · Grüße"
    }

    static func close(_ context: NSManagedObjectContext) throws {
        guard let coordinator = context.persistentStoreCoordinator else { return }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    /// Every object of both entities, read through `context`.
    static func objects(in context: NSManagedObjectContext) throws -> Set<Object> {
        try context.performAndWait {
            var result = Set<Object>()
            for entity in ["EntityA", "EntityB"] {
                for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
                    let partner = object.value(forKey: "relationship") as? NSManagedObject
                    let dummy = object.entity.attributesByName["dummy"] == nil ? nil : object.value(forKey: "dummy") as? String
                    result.insert(Object(entity: entity, name: object.value(forKey: "name") as? String,
                                         group: (object.value(forKey: "group") as? NSNumber)?.int16Value,
                                         partner: partner?.value(forKey: "name") as? String, dummy: dummy))
                }
            }
            return result
        }
    }

    /// What `written` looks like to a model with or without `dummy`: a new attribute without a
    /// default value is nil in every migrated row; a removed one is gone.
    static func expected(_ written: Set<Object>, dummyValues: Bool) -> Set<Object> {
        Set(written.map { object in
            var object = object
            if !dummyValues { object.dummy = nil }
            return object
        })
    }

    /// Every row of `ZENTITYA` and `ZENTITYB` by column, read with SQLite alone.
    static func rawRows(_ url: URL) throws -> [String: [[String: DatabaseValue]]] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            var tables: [String: [[String: DatabaseValue]]] = [:]
            for table in ["ZENTITYA", "ZENTITYB"] {
                tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY Z_PK").map { row in
                    Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as DatabaseValue) })
                }
            }
            return tables
        }
    }

    /// The rows without the columns `dropping` names.
    static func rows(_ tables: [String: [[String: DatabaseValue]]], dropping columns: Set<String>) -> [String: [[String: DatabaseValue]]] {
        tables.mapValues { $0.map { $0.filter { !columns.contains($0.key) } } }
    }

    /// The store's metadata on disk records `model`'s entity hashes and version identifiers.
    static func expectMetadata(_ url: URL, of model: NSManagedObjectModel, _ comment: Comment? = nil) throws {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        let hashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.compactMapValues { $0 as? Data }
        #expect(hashes == model.entityVersionHashesByName, comment)
        let identifiers = (metadata[NSStoreModelVersionIdentifiersKey] as? [Any])?.compactMap { $0 as? String }
        #expect(identifiers.map(Set.init) == Set(model.versionIdentifiers.compactMap { $0 as? String }), comment)
    }

    // MARK: - Versions

    @Test("Version hashes use only what affects persistence: '<B>' and '<B> 1' hash alike (their version identifiers differ); '<B> 2' changes EntityA only", arguments: bundleNames)
    func versionHashes(bundleName: String) throws {
        let (first, second, third) = (try Self.model(bundleName, 0), try Self.model(bundleName, 1), try Self.model(bundleName, 2))
        #expect(first.entityVersionHashesByName == second.entityVersionHashesByName)
        #expect(third.entityVersionHashesByName["EntityB"] == second.entityVersionHashesByName["EntityB"])
        #expect(third.entityVersionHashesByName["EntityA"] != second.entityVersionHashesByName["EntityA"])
        #expect(Set(third.entityVersionHashesByName.keys) == ["EntityA", "EntityB"])
        if bundleName == "Model" {
            #expect(second.versionIdentifiers.compactMap { $0 as? String } == ["v1"])
            #expect(third.versionIdentifiers.compactMap { $0 as? String } == ["v2"])
        }
        // The two bundles hold the same three models.
        let other = bundleName == "Model" ? "ModelS" : "Model"
        for step in 0..<3 {
            #expect(try Self.model(other, step).entityVersionHashesByName == (try Self.model(bundleName, step)).entityVersionHashesByName)
        }
    }

    @Test("The inferred mapping from '<B> 1' to '<B> 2': EntityA transforms (dummy has no source, so it takes its default), EntityB is copied", arguments: bundleNames)
    func inferredMapping(bundleName: String) throws {
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: try Self.model(bundleName, 1),
                                                             destinationModel: try Self.model(bundleName, 2))
        let byDestination = Dictionary(uniqueKeysWithValues: mapping.entityMappings.map { ($0.destinationEntityName ?? "", $0) })
        #expect(mapping.entityMappings.count == 2)
        let a = try #require(byDestination["EntityA"])
        #expect(a.mappingType == .transformEntityMappingType && a.sourceEntityName == "EntityA")
        let attributes = Dictionary(uniqueKeysWithValues: (a.attributeMappings ?? []).map { ($0.name ?? "", $0) })
        #expect(Set(attributes.keys) == ["dummy", "group", "name"])
        #expect(attributes["dummy"]?.valueExpression == nil)
        #expect(attributes["name"]?.valueExpression?.description == "$source.name")
        #expect((a.relationshipMappings ?? []).map(\.name) == ["relationship"])
        #expect(byDestination["EntityB"]?.mappingType == .copyEntityMappingType)
        // '<B>' to '<B> 1' changes nothing: both entities are copied.
        let unchanged = try NSMappingModel.inferredMappingModel(forSourceModel: try Self.model(bundleName, 0),
                                                               destinationModel: try Self.model(bundleName, 1))
        #expect(unchanged.entityMappings.allSatisfy { $0.mappingType == .copyEntityMappingType })
    }

    // MARK: - Migrations

    @Test("'<B>' to '<B> 1': equal entity hashes make the store compatible, so it opens with no migration and every row, Z_PK and Z_OPT stays", arguments: bundleNames)
    func firstToSecond(bundleName: String) throws {
        let url = TestStoreFiles.newStoreURL()
        let written = try Self.populate(url, model: try Self.model(bundleName, 0))
        let before = try Self.rawRows(url)
        let destination = try Self.model(bundleName, 1)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let context = try LightweightMigrationTests.open(url, model: destination, options: Self.migrate)
        #expect(try Self.objects(in: context) == written)
        try Self.close(context)
        #expect(try Self.rawRows(url) == before)
        let hashes = (try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)[NSStoreModelVersionHashesKey] as? [String: Any])?
            .compactMapValues { $0 as? Data }
        #expect(hashes == destination.entityVersionHashesByName)
    }

    @Test("'<B> 1' to '<B> 2' with automatic migration and inference: the new optional dummy is nil in every row, the other values, Z_PK, Z_OPT and the pairs stay", arguments: bundleNames)
    func secondToThird(bundleName: String) throws {
        let url = TestStoreFiles.newStoreURL()
        let written = try Self.populate(url, model: try Self.model(bundleName, 1))
        let before = try Self.rawRows(url)
        let destination = try Self.model(bundleName, 2)
        // Without the options the store is refused (134100), unchanged.
        do {
            _ = try LightweightMigrationTests.open(url, model: destination, options: nil)
            Issue.record("a store of '\(Self.versionName(bundleName, 1))' opened with '\(Self.versionName(bundleName, 2))' without migrating")
        } catch {
            #expect((error as NSError).code == NSPersistentStoreIncompatibleVersionHashError)
        }
        #expect(try Self.rawRows(url) == before)

        let context = try LightweightMigrationTests.open(url, model: destination, options: Self.migrate)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect((store.metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.compactMapValues { $0 as? Data } == destination.entityVersionHashesByName)
        #expect(try Self.objects(in: context) == Self.expected(written, dummyValues: false))
        try Self.close(context)
        try Self.expectMetadata(url, of: destination)
        // In the file: the same rows with the same Z_PK, Z_ENT, Z_OPT and values, plus an empty ZDUMMY.
        let after = try Self.rawRows(url)
        #expect(Self.rows(after, dropping: ["ZDUMMY"]) == before)
        #expect(after["ZENTITYA"]?.count == 10 && after["ZENTITYB"]?.count == 11)
        #expect(after["ZENTITYA"]?.allSatisfy { $0["ZDUMMY"]?.isNull == true } == true)

        // The migrated store is the new version's: it opens without options and saves the new
        // attribute and new pairings.
        let reopened = try LightweightMigrationTests.open(url, model: destination, options: nil)
        try reopened.performAndWait {
            func fetch(_ entity: String, _ name: String) throws -> NSManagedObject? {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.predicate = NSPredicate(format: "name == %@", name)
                return try reopened.fetch(request).first
            }
            let a8 = try #require(try fetch("EntityA", Self.name("EntityA", 8)))
            a8.setValue("set after migrating", forKey: "dummy")
            a8.setValue(try fetch("EntityB", Self.name("EntityB", 10)), forKey: "relationship")
            try reopened.save()
        }
        try Self.close(reopened)
        let edited = Set(Self.expected(written, dummyValues: false).map { object in
            var object = object
            if object.name == Self.name("EntityA", 8) { (object.partner, object.dummy) = (Self.name("EntityB", 10), "set after migrating") }
            if object.name == Self.name("EntityB", 10) { object.partner = Self.name("EntityA", 8) }
            return object
        })
        let last = try LightweightMigrationTests.open(url, model: destination, options: nil)
        #expect(try Self.objects(in: last) == edited)
        try Self.close(last)
    }

    @Test("'<B>' to '<B> 2' in one open through NSPersistentContainer (migration and inference on by default): the same store as migrating step by step", arguments: bundleNames)
    func firstToThirdInOneOpen(bundleName: String) throws {
        let first = try Self.model(bundleName, 0)
        // As an app does: the bundle's current version. ModelS's .xccurrentversion names none, so
        // its current version is the first one (ModelBundle); there the newest is loaded by file.
        let destination = bundleName == "Model" ? try NSManagedObjectModel.load(contentsOf: try Self.bundle(bundleName))
            : try Self.model(bundleName, 2)
        #expect(destination.entityVersionHashesByName == (try Self.model(bundleName, 2)).entityVersionHashesByName)
        let url = TestStoreFiles.newStoreURL()
        let written = try Self.populate(url, model: first)
        let before = try Self.rawRows(url)
        // The source is found among the bundle's versions: '<B>' and '<B> 1' both match the store.
        let source = try MigrationSourceModel.locate(forStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url),
                                                     destination: destination, modelCache: nil, url: url)
        let sourceNames = [Self.versionName(bundleName, 0), Self.versionName(bundleName, 1)]
        guard case .bundleVersion(let name, _) = source.origin, sourceNames.contains(name) else {
            Issue.record("the source model came from \(source.origin)")
            return
        }
        let stepwise = TestStoreFiles.newStoreURL()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: stepwise.path + suffix)
        }

        let container = NSPersistentContainer(name: "Sample", managedObjectModel: destination)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        #expect(container.persistentStoreDescriptions[0].shouldMigrateStoreAutomatically)
        #expect(container.persistentStoreDescriptions[0].shouldInferMappingModelAutomatically)
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let context = container.newBackgroundContext()
        #expect(try Self.objects(in: context) == Self.expected(written, dummyValues: false))
        try Self.close(context)
        try Self.expectMetadata(url, of: destination)

        // The same store, one version at a time.
        for step in 1...2 {
            let context = try LightweightMigrationTests.open(stepwise, model: try Self.model(bundleName, step), options: Self.migrate)
            try Self.close(context)
        }
        try Self.expectMetadata(stepwise, of: destination)
        let (oneOpen, inSteps) = (try Self.rawRows(url), try Self.rawRows(stepwise))
        #expect(oneOpen == inSteps)
        #expect(Self.rows(oneOpen, dropping: ["ZDUMMY"]) == before)
        #expect(oneOpen["ZENTITYA"]?.allSatisfy { $0["ZDUMMY"]?.isNull == true } == true)
    }

    @Test("'<B> 1' to '<B> 2' with the new version loaded without its bundle: the source model is the store's own Z_MODELCACHE", arguments: bundleNames)
    func sourceFromModelCache(bundleName: String) throws {
        let url = TestStoreFiles.newStoreURL()
        let written = try Self.populate(url, model: try Self.model(bundleName, 1))
        let destination = try NSManagedObjectModel.load(contentsOf: try Self.bundle(bundleName).appendingPathComponent(Self.versionName(bundleName, 2) + ".xcdatamodel"))
        #expect(destination.versionBundleURL == nil)
        let queue = try DatabaseQueue(path: url.path)
        let cache = try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") }
        try queue.close()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        let source = try MigrationSourceModel.locate(forStoreMetadata: metadata, destination: destination, modelCache: cache, url: url)
        #expect(source.origin == .modelCache)
        #expect(source.model.entityVersionHashesByName == (try Self.model(bundleName, 1)).entityVersionHashesByName)

        let context = try LightweightMigrationTests.open(url, model: destination, options: Self.migrate)
        #expect(try Self.objects(in: context) == Self.expected(written, dummyValues: false))
        try Self.close(context)
        try Self.expectMetadata(url, of: destination)
    }

    @Test("After migrating, the store opens read-only unchanged, and its Z_MODELCACHE reads back to a model with the destination's hashes", arguments: bundleNames)
    func readOnlyAfterMigrating(bundleName: String) throws {
        let url = TestStoreFiles.newStoreURL()
        let written = try Self.populate(url, model: try Self.model(bundleName, 0))
        let destination = try Self.model(bundleName, 2)
        try Self.close(try LightweightMigrationTests.open(url, model: destination, options: Self.migrate))
        let bytes = try Data(contentsOf: url)

        let context = try LightweightMigrationTests.open(url, model: destination, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(try Self.objects(in: context) == Self.expected(written, dummyValues: false))
        try Self.close(context)
        #expect(try Data(contentsOf: url) == bytes)

        // What `coredata store info` reads without --model: the metadata and the store's own model.
        var configuration = Configuration()
        configuration.readonly = true
        let location = try SQLiteReadOnlyLocation.forReading(url)
        let queue = try DatabaseQueue(path: location.path, configuration: configuration)
        let cache = try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") }
        let entities = try queue.read { db in try String.fetchAll(db, sql: "SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT") }
        try queue.close()
        let cached = try NSManagedObjectModel.fromModelCache(try #require(cache))
        #expect(cached.entityVersionHashesByName == destination.entityVersionHashesByName)
        #expect(entities == ["EntityA", "EntityB"])
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test("'<B> 2' back to '<B> 1': removing an attribute is inferable too; dummy's values are dropped and the rest stays", arguments: bundleNames)
    func thirdBackToSecond(bundleName: String) throws {
        let url = TestStoreFiles.newStoreURL()
        let written = try Self.populate(url, model: try Self.model(bundleName, 2))
        #expect(written.contains { $0.dummy != nil })
        let destination = try Self.model(bundleName, 1)
        let context = try LightweightMigrationTests.open(url, model: destination, options: Self.migrate)
        #expect(try Self.objects(in: context) == Self.expected(written, dummyValues: false))
        try Self.close(context)
        try Self.expectMetadata(url, of: destination)
        #expect(try Self.rawRows(url)["ZENTITYA"]?.allSatisfy { !$0.keys.contains("ZDUMMY") } == true)
    }
}
