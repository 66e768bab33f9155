import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Deferred lightweight migration (`NSPersistentStoreDeferredLightweightMigrationOptionKey`,
/// `finishDeferredLightweightMigration()`, `finishDeferredLightweightMigrationTask()`): the
/// migration runs on open, its clean-up (dropping the old tables) waits until the app asks, and
/// the store's metadata holds the key while some is pending, as Apple documents.
@Suite("Deferred lightweight migration")
struct DeferredMigrationTests {
    typealias Inferred = InferredMigrationTests

    static var deferring: [AnyHashable: Any] {
        Inferred.migrate.merging([NSPersistentStoreDeferredLightweightMigrationOptionKey: true]) { $1 }
    }

    static func open(_ url: URL, _ model: NSManagedObjectModel, options: [AnyHashable: Any]) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// The old tables still waiting to be dropped, read from the file.
    static func deferredTables(_ url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '\\_OCD\\_DEFERRED\\_%' ESCAPE '\\' ORDER BY name")
        }
    }

    static func isPending(_ metadata: [String: Any]) -> Bool {
        metadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true
    }

    @Test("With the option the store migrates on open, keeps the old tables, and its metadata says a deferred migration is pending")
    func defersCleanup() throws {
        let url = TestStoreFiles.newStoreURL()
        try Inferred.populate(url)
        let (coordinator, context) = try Self.open(url, try Inferred.version2(Inferred.renameAuthor), options: Self.deferring)
        try context.performAndWait {
            let writers = try Inferred.fetch(context, "Writer", sortedBy: "fullName")
            #expect(writers.map { $0.value(forKey: "fullName") as? String } == ["A0", "A1", "A2"])
            #expect(writers.allSatisfy { ($0.value(forKey: "books") as? Set<NSManagedObject>)?.count == 2 })
        }
        #expect(try Self.deferredTables(url).isEmpty == false)
        #expect(try Self.isPending(NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)))
        #expect(Self.isPending(coordinator.persistentStores[0].metadata))

        try coordinator.finishDeferredLightweightMigration()
        #expect(try Self.deferredTables(url).isEmpty)
        #expect(try !Self.isPending(NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)))
        #expect(!Self.isPending(coordinator.persistentStores[0].metadata))
        try context.performAndWait {
            let books = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book"))
            let tags = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag"))
            #expect(books == 6 && tags == 2)
        }
        // Nothing pending: finishing again changes nothing.
        let before = try Data(contentsOf: url)
        try coordinator.finishDeferredLightweightMigration()
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("finishDeferredLightweightMigrationTask runs one task at a time until none is left")
    func oneTaskAtATime() throws {
        let url = TestStoreFiles.newStoreURL()
        try Inferred.populate(url)
        let (coordinator, _) = try Self.open(url, try Inferred.version2(Inferred.renameAuthor), options: Self.deferring)
        var remaining = try Self.deferredTables(url).count
        #expect(remaining >= 2)
        while remaining > 0 {
            try coordinator.finishDeferredLightweightMigrationTask()
            let now = try Self.deferredTables(url).count
            #expect(now == remaining - 1)
            #expect(Self.isPending(coordinator.persistentStores[0].metadata) == (now > 0))
            remaining = now
        }
        #expect(try !Self.isPending(NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)))
    }

    @Test("A later migration finishes the clean-up an earlier deferred one left, then migrates")
    func laterMigrationFinishesPendingCleanup() throws {
        let url = TestStoreFiles.newStoreURL()
        try Inferred.populate(url)
        do {
            let (coordinator, _) = try Self.open(url, try Inferred.version2(Inferred.renameAuthor), options: Self.deferring)
            try coordinator.persistentStores.forEach { try coordinator.remove($0) }
        }
        let pending = try Self.deferredTables(url)
        #expect(!pending.isEmpty)
        let version3 = try Inferred.version2 { model in
            Inferred.renameAuthor(model)
            Inferred.entity(model, "Tag").properties.append(TestModels.attribute("colour", .stringAttributeType))
        }
        let (coordinator, context) = try Self.open(url, version3, options: Inferred.migrate)
        #expect(try Self.deferredTables(url).isEmpty)
        #expect(!Self.isPending(coordinator.persistentStores[0].metadata))
        try context.performAndWait {
            let labels = try Inferred.fetch(context, "Tag", sortedBy: "label").map { $0.value(forKey: "label") as? String }
            let writers = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Writer"))
            #expect(labels == ["blue", "red"] && writers == 3)
        }
    }

    @Test("Without the option the old tables are dropped in the migration and nothing is pending")
    func withoutOption() throws {
        let (context, url) = try Inferred.migrated(Inferred.renameAuthor)
        #expect(try Self.deferredTables(url).isEmpty)
        #expect(!Self.isPending(context.persistentStoreCoordinator!.persistentStores[0].metadata))
        try context.persistentStoreCoordinator?.finishDeferredLightweightMigration()
    }
}
