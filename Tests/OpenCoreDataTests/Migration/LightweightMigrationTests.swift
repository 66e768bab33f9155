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
}
