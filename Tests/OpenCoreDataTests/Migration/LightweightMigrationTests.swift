import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Automatic lightweight migration of SQLite stores (issue #16): Apple-written stores opened with
/// a later model version and `NSMigratePersistentStoresAutomaticallyOption` +
/// `NSInferMappingModelAutomaticallyOption` migrate in place, keeping every row.
@Suite("Lightweight migration", .enabled(if: Fixtures.enabled, "needs ../shared/fixtures"))
struct LightweightMigrationTests {
    static var migrate: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    /// The wibosco example's model bundle and its version files.
    static func exampleBundle() throws -> URL {
        try Fixtures.require().appendingPathComponent(
            "models/CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld")
    }

    static func exampleStore(_ version: Int) throws -> URL {
        try Fixtures.copy(Fixtures.store("CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_\(version).sqlite"))
    }

    /// A coordinator with the store added under `options`.
    static func open(_ url: URL, model: NSManagedObjectModel, options: [AnyHashable: Any]?) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test("Without the migration options a store of an older version fails with 134100 and is not changed")
    func withoutOptionsNothingChanges() throws {
        let url = try Self.exampleStore(1)
        let before = try Data(contentsOf: url)
        let model = try NSManagedObjectModel.load(contentsOf: Self.exampleBundle())
        #expect(throws: (any Error).self) { try Self.open(url, model: model, options: nil) }
        do { _ = try Self.open(url, model: model, options: nil) } catch { #expect((error as NSError).code == NSPersistentStoreIncompatibleVersionHashError) }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("Version 1 to 2: 'color' renamed 'hexColor' by its renaming identifier; 10 posts keep Z_PK, Z_OPT and their values")
    func renameAttribute() throws {
        let url = try Self.exampleStore(1)
        let source = try DatabaseQueue(path: url.path)
        let expected = try source.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_OPT, ZCOLOR, ZCONTENT, ZDATE, ZPOSTID FROM ZPOST ORDER BY Z_PK") }
        try source.close()
        let bundle = try Self.exampleBundle()
        let model = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("CoreDataMigration_Example 2.xcdatamodel"))
        model.versionBundleURL = bundle
        let context = try Self.open(url, model: model, options: Self.migrate)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
            request.sortDescriptors = [NSSortDescriptor(key: "postID", ascending: false)]
            let posts = try context.fetch(request)
            #expect(posts.count == 10)
            let newest = try #require(posts.first)
            #expect(newest.value(forKey: "postID") as? String == "FFFECB21-6645-4FDD-B8B0-B960D0E61F5A")
            #expect(newest.value(forKey: "hexColor") as? String == "1BB732")
            #expect(newest.value(forKey: "content") as? String == "Test body")
            let date = try #require(newest.value(forKey: "date") as? Date)
            #expect(abs(date.timeIntervalSince1970 - 1547494150.058821) < 0.001)
        }
        let migrated = try DatabaseQueue(path: url.path)
        let rows = try migrated.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_OPT, ZHEXCOLOR, ZCONTENT, ZDATE, ZPOSTID FROM ZPOST ORDER BY Z_PK") }
        #expect(rows.map { [$0[0], $0[1], $0[2], $0[3], $0[4], $0[5]] as [DatabaseValue] } == expected.map { [$0[0], $0[1], $0[2], $0[3], $0[4], $0[5]] as [DatabaseValue] })
        let columns = try migrated.read { db in try db.columns(in: "ZPOST").map(\.name) }
        #expect(!columns.contains("ZCOLOR"))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test("Version 3 to 4: the non-optional 'softDeleted' gets its default NO; 12 posts and 14 sections keep their relationships")
    func nonOptionalWithDefault() throws {
        let url = try Self.exampleStore(3)
        let model = try NSManagedObjectModel.load(contentsOf: Self.exampleBundle())
        let context = try Self.open(url, model: model, options: Self.migrate)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
            request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
            let posts = try context.fetch(request)
            #expect(posts.count == 12)
            let newest = try #require(posts.first)
            #expect(newest.value(forKey: "postID") as? String == "7BC43935-3209-404E-836A-06F3C6518CB1")
            #expect(newest.value(forKey: "softDeleted") as? Bool == false)
            #expect(newest.value(forKey: "hexColor") as? String == "BAEFB6")
            let sections = try #require(newest.value(forKey: "sections") as? Set<NSManagedObject>)
            #expect(sections.count == 2)
            #expect(sections.first { ($0.value(forKey: "index") as? Int) == 0 }?.value(forKey: "title") as? String == "This post will have 2 sections")
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Section")) == 14)
            #expect(posts.allSatisfy { $0.value(forKey: "softDeleted") as? Bool == false })
        }
    }

    @Test("CoreDataPlus SampleModel V1 → V2 with the store's own Z_MODELCACHE as source: the same rows, columns and indexes as Apple's migrated V2 store")
    func sampleModelLikeApple() throws {
        let fixtures = "CoreDataPlus/Tests/Resources/SampleModel/Fixtures/"
        let url = try Fixtures.copy(Fixtures.store(fixtures + "SampleModel_V1.sqlite"))
        let apple = try Fixtures.store(fixtures + "SampleModel_V2.sqlite")
        // The version file alone: no bundle to search, so the source model is the store's cache.
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.store(fixtures + "SampleModel.momd/SampleModel2.mom"))
        #expect(model.versionBundleURL == nil)
        let context = try Self.open(url, model: model, options: Self.migrate)
        try context.performAndWait {
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Car")) == 125)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 20)
            _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "LuxuryCar"))
        }
        func snapshot(_ path: URL) throws -> (rows: [String: [[String: DatabaseValue]]], indexes: [String], keys: [[Int64]]) {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path.path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                var rows: [String: [[String: DatabaseValue]]] = [:]
                for table in ["ZCAR", "ZPERSON"] {
                    rows[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY Z_PK").map { row in
                        Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as DatabaseValue) })
                    }
                }
                let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
                let keys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { [$0[0], $0[1], $0[2]] as [Int64] }
                return (rows, indexes, keys)
            }
        }
        let mine = try snapshot(url), theirs = try snapshot(apple)
        #expect(mine.rows["ZCAR"]?.count == 125 && mine.rows["ZPERSON"]?.count == 20)
        #expect(mine.rows == theirs.rows)
        #expect(mine.indexes == theirs.indexes)
        #expect(mine.keys == theirs.keys)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == (try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: apple))[NSStoreUUIDKey] as? String)
    }
}
