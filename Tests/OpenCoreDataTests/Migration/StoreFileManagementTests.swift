import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// The coordinator's store-file management (issue #16, Must 6): `destroyPersistentStore`,
/// `replacePersistentStore` and `migratePersistentStore`, as apps use them to reset, restore
/// and move stores.
@Suite("Store file management")
struct StoreFileManagementTests {
    typealias M = TestModels

    /// A SQLite store with `count` notes, left open in WAL mode (rows may still be in `-wal`).
    static func store(notes count: Int) throws -> (NSPersistentStoreCoordinator, URL) {
        let url = TestStoreFiles.newStoreURL()
        let context = try M.sqliteContext(M.todoModel(), url: url)
        try context.performAndWait {
            for index in 0..<count {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("T\(index)", forKey: "title")
            }
            try context.save()
        }
        return (try #require(context.persistentStoreCoordinator), url)
    }

    static func titles(at url: URL, type: NSPersistentStore.StoreType = .sqlite) throws -> [String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: M.todoModel())
        try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
    }

    @Test("destroyPersistentStore removes the database, -wal, -shm and the support folder, and the store this coordinator had there")
    func destroyRemovesEveryFile() throws {
        let (coordinator, url) = try Self.store(notes: 3)
        let support = SQLiteStoreFiles.supportFolder(of: url)
        try FileManager.default.createDirectory(at: support.appendingPathComponent("_EXTERNAL_DATA"), withIntermediateDirectories: true)
        try coordinator.destroyPersistentStore(at: url, type: .sqlite)
        #expect(coordinator.persistentStores.isEmpty)
        for path in [url.path, url.path + "-wal", url.path + "-shm", support.path] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path)")
        }
        // Destroying what is not there is an error, as Apple's is (issue 30); a new store can be
        // made at the URL.
        let error = try #require(throws: NSError.self) { try coordinator.destroyPersistentStore(at: url, type: .sqlite) }
        #expect(error.code == CocoaError.Code.fileReadNoSuchFile.rawValue)
        #expect(try Self.titles(at: url).isEmpty)
    }

    @Test("destroyPersistentStore refuses a file that is not a Core Data store and leaves it alone")
    func destroyRefusesOtherFiles() throws {
        let url = TestStoreFiles.newStoreURL("notes.txt")
        try Data("keep me".utf8).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: M.todoModel())
        #expect(throws: (any Error).self) { try coordinator.destroyPersistentStore(at: url, type: .sqlite) }
        let other = TestStoreFiles.newStoreURL("other.sqlite")
        try DatabaseQueue(path: other.path).write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        let error = try #require(throws: (any Error).self) { try coordinator.destroyPersistentStore(at: other, type: .sqlite) } as NSError
        #expect(error.code == NSPersistentStoreInvalidTypeError)
        #expect(try Data(contentsOf: url) == Data("keep me".utf8))
        #expect(FileManager.default.fileExists(atPath: other.path))
    }

    @Test("replacePersistentStore copies a store consistently, rows still in its WAL included, over an existing one")
    func replaceCopiesTheStore() throws {
        let (_, source) = try Self.store(notes: 5)
        let (_, destination) = try Self.store(notes: 2)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: M.todoModel())
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
        #expect(try Self.titles(at: destination) == ["T0", "T1", "T2", "T3", "T4"])
        #expect(try Self.titles(at: source) == ["T0", "T1", "T2", "T3", "T4"])
        // A missing source is an error and leaves the destination as it was.
        let missing = TestStoreFiles.newStoreURL()
        let error = try #require(throws: (any Error).self) {
            try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: missing, type: .sqlite)
        } as NSError
        #expect(error.code == CocoaError.Code.fileReadNoSuchFile.rawValue)
        #expect(try Self.titles(at: destination).count == 5)
    }

    @Test("migratePersistentStore moves every object to a new SQLite or in-memory store, relationships included, and removes the old store")
    func migrateMovesObjects() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try M.sqliteContext(M.todoModel(), url: url)
        let coordinator = try #require(context.persistentStoreCoordinator)
        try context.performAndWait {
            let place = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
            place.setValue("Oslo", forKey: "placeName")
            for index in 0..<3 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("T\(index)", forKey: "title")
                todo.setValue(place, forKey: "location")
            }
            try context.save()
        }
        let old = try #require(coordinator.persistentStores.first)
        let target = TestStoreFiles.newStoreURL("Moved.sqlite")
        let moved = try coordinator.migratePersistentStore(old, to: target, type: .sqlite)
        #expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores.first === moved)
        #expect(moved.url?.standardizedFileURL == target.standardizedFileURL)
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait {
            let todos = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            #expect(todos.count == 3)
            #expect(todos.allSatisfy { ($0.value(forKey: "location") as? NSManagedObject)?.value(forKey: "placeName") as? String == "Oslo" })
            #expect(todos.allSatisfy { $0.objectID.persistentStore === moved })
        }
        #expect(try Self.titles(at: target) == ["T0", "T1", "T2"])
        // And on to memory.
        let inMemory = try coordinator.migratePersistentStore(moved, to: URL(fileURLWithPath: "/dev/null"), type: .inMemory)
        let count = try reader.performAndWait { try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) }
        #expect(count == 3)
        #expect(coordinator.persistentStores.first === inMemory)
    }
}
