import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Lightweight migrations that add uniqueness constraints, and migrations of stores that keep
/// persistent history (found while moving the to-do app's import to batch inserts).
@Suite("Inferred migration: constraints and history")
struct MigrationConstraintsTests {
    typealias Inferred = InferredMigrationTests

    static func indexes(_ url: URL) throws -> [String] {
        try DatabaseQueue(path: url.path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%UNIQUE%' ORDER BY name")
        }
    }

    @Test("A version that only adds a uniqueness constraint is inferred; the migration creates its unique index")
    func addedConstraintCreatesTheUniqueIndex() throws {
        let url = TestStoreFiles.newStoreURL()
        try Inferred.populate(url)
        #expect(try Self.indexes(url).isEmpty)
        let context = try Inferred.open(url, Inferred.version2 { model in Inferred.entity(model, "Author").uniquenessConstraints = [["name"]] })
        #expect(try Self.indexes(url) == ["Z_Author_UNIQUE_name"])
        let count = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) }
        #expect(count == 3)
    }

    @Test("Rows that break an added uniqueness constraint fail the migration with an NSError; the store is unchanged")
    func duplicatesFailTheMigration() throws {
        let url = TestStoreFiles.newStoreURL()
        try Inferred.populate(url)
        let before = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        // Every novel's genre is "crime".
        let destination = try Inferred.version2 { model in Inferred.entity(model, "Novel").uniquenessConstraints = [["genre"]] }
        let error = try #require(throws: (any Error).self) { try Inferred.open(url, destination) } as NSError
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSMigrationError)
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(after[NSStoreModelVersionHashesKey] as? NSDictionary == before[NSStoreModelVersionHashesKey] as? NSDictionary)
        #expect(try Self.indexes(url).isEmpty)
    }

    @Test("A store keeping persistent history keeps recording it after a migration (its Z_PRIMARYKEY rows 16001–16003 stay)")
    func historyKeepsRecordingAfterMigration() throws {
        let url = TestStoreFiles.newStoreURL()
        let options: [AnyHashable: Any] = Inferred.migrate.merging([NSPersistentHistoryTrackingKey: true]) { $1 }
        func save(_ model: NSManagedObjectModel, name: String) throws {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue(name, forKey: "label")
                try context.save()
            }
            try coordinator.persistentStores.forEach { try coordinator.remove($0) }
        }
        try save(Inferred.version1(), name: "before")
        try save(Inferred.version2 { model in Inferred.entity(model, "Tag").uniquenessConstraints = [["label"]] }, name: "after")
        let (keys, transactions) = try DatabaseQueue(path: url.path).read { db in
            (try Int.fetchAll(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? 0)
        }
        #expect(keys == [16001, 16002, 16003])
        #expect(transactions == 2)
    }
}
