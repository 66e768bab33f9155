import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Files that are not stores, damaged stores, wrong locations and locks: a clear
/// NSCocoaErrorDomain error each time, and the file is never overwritten or truncated.
@Suite("SQLite bad files and locks")
struct SQLiteBadFileTests {
    private func open(_ url: URL, options: [AnyHashable: Any]? = nil, model: NSManagedObjectModel = TestModels.todoModel()) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
    }

    /// Opens `url` expecting a failure; returns the NSError and checks the bytes did not change.
    private func expectOpenFailure(_ url: URL, options: [AnyHashable: Any]? = nil, model: NSManagedObjectModel = TestModels.todoModel(),
                                   sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        let before = try? Data(contentsOf: url)
        var failure: NSError?
        do {
            try open(url, options: options, model: model)
            Issue.record("Opening \(url.lastPathComponent) succeeded", sourceLocation: sourceLocation)
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
            failure = error
        }
        #expect((try? Data(contentsOf: url)) == before, "the file changed", sourceLocation: sourceLocation)
        return failure
    }

    /// A valid store with a few rows, closed.
    private func makeStore() throws -> URL {
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try context.performAndWait {
            for index in 0..<200 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue(String(repeating: "x", count: 200) + "\(index)", forKey: "title")
            }
            try context.save()
            for store in context.persistentStoreCoordinator!.persistentStores { try context.persistentStoreCoordinator!.remove(store) }
        }
        return url
    }

    @Test("A text file is not an SQLite store: 259, untouched")
    func notSQLite() throws {
        let url = TestStoreFiles.newStoreURL()
        try Data("hello, this is not a database\n".utf8).write(to: url)
        let error = expectOpenFailure(url)
        #expect(error?.code == CocoaError.Code.fileReadCorruptFile.rawValue)
        #expect(throws: (any Error).self) { try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url) }
    }

    @Test("A truncated store and a store with garbage pages fail cleanly, untouched")
    func damaged() throws {
        let truncated = try makeStore()
        let bytes = try Data(contentsOf: truncated)
        try bytes.prefix(bytes.count / 3).write(to: truncated)
        let truncatedError = expectOpenFailure(truncated)
        #expect([CocoaError.Code.fileReadCorruptFile.rawValue, NSPersistentStoreOpenError, NSPersistentStoreInvalidTypeError].contains(truncatedError?.code ?? 0))

        let garbage = try makeStore()
        var damaged = try Data(contentsOf: garbage)
        for index in 100..<min(damaged.count, 8192) { damaged[index] = UInt8(truncatingIfNeeded: index &* 31) }
        try damaged.write(to: garbage)
        let garbageError = expectOpenFailure(garbage)
        #expect([CocoaError.Code.fileReadCorruptFile.rawValue, NSPersistentStoreOpenError].contains(garbageError?.code ?? 0))
    }

    @Test("An SQLite database that is not a Core Data store: 134000, untouched")
    func foreignDatabase() throws {
        let url = TestStoreFiles.newStoreURL()
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')") }
        try queue.close()
        let error = expectOpenFailure(url)
        #expect(error?.code == NSPersistentStoreInvalidTypeError)
    }

    @Test("A directory, a missing folder and an unwritable place: 134080")
    func locations() throws {
        let folder = TestStoreFiles.newStoreURL().deletingLastPathComponent()
        #expect(expectOpenFailure(folder)?.code == NSPersistentStoreOpenError)
        #expect(expectOpenFailure(folder.appendingPathComponent("missing/Store.sqlite"))?.code == NSPersistentStoreOpenError)
        #expect(expectOpenFailure(URL(fileURLWithPath: "/proc/OpenCoreDataTest.sqlite"))?.code == NSPersistentStoreOpenError)
        let readOnlyMissing = folder.appendingPathComponent("Nope.sqlite")
        #expect(expectOpenFailure(readOnlyMissing, options: [NSReadOnlyPersistentStoreOption: true])?.code == NSPersistentStoreOpenError)
        #expect(!FileManager.default.fileExists(atPath: readOnlyMissing.path))
    }

    @Test("Incompatible hashes: 134100 naming the entities, and the file is not touched")
    func incompatible() throws {
        let url = try makeStore()
        let before = try Data(contentsOf: url)
        let other = TestModels.todoModel()
        other.entitiesByName["TagEntity"]!.properties += [TestModels.attribute("color", .stringAttributeType)]
        let error = expectOpenFailure(url, model: other)
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.userInfo[OCDMismatchedEntitiesErrorKey] as? [String] == ["TagEntity"])
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test("A store locked by another writer: opening times out, saving fails and keeps the changes")
    func locked() throws {
        let url = try makeStore()
        // Another connection takes the write lock and keeps it.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? other.close() }

        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url, options: [NSPersistentStoreTimeoutOption: 0.2])
        try other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE; UPDATE ZTODOENTITY SET ZTITLE = 'other' WHERE Z_PK = 1") }
        context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("blocked", forKey: "title")
            do {
                try context.save()
                Issue.record("A save went through another writer's lock.")
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == NSPersistentStoreSaveError)
                #expect(error.userInfo[NSSQLiteErrorDomain] as? Int == 5)
            }
            #expect(context.hasChanges)
            #expect(todo.isInserted)
        }
        try other.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        try context.performAndWait {
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) == 201)
        }

        // An exclusive lock also blocks readers: opening times out.
        let exclusive = try makeStore()
        let holder = try DatabaseQueue(path: exclusive.path, configuration: configuration)
        defer { try? holder.close() }
        try holder.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE ZTODOENTITY SET ZTITLE = 'held' WHERE Z_PK = 1")
        }
        let error = expectOpenFailure(exclusive, options: [NSPersistentStoreTimeoutOption: 0.2])
        #expect([NSPersistentStoreTimeoutError, NSPersistentStoreOpenError].contains(error?.code ?? 0))
        try holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    }

    @Test("Store options: read-only refuses saves; pragmas apply; bad pragmas are refused; file protection is ignored")
    func options() throws {
        let url = try makeStore()
        let readOnly = try TestModels.sqliteContext(TestModels.todoModel(), url: url,
                                                    options: [NSReadOnlyPersistentStoreOption: true, NSPersistentStoreFileProtectionKey: "NSFileProtectionComplete"])
        try readOnly.performAndWait { () throws -> Void in
            #expect(try readOnly.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) == 200)
            _ = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: readOnly)
            #expect(throws: (any Error).self) { try readOnly.save() }
        }
        let withPragmas = try TestModels.sqliteContext(TestModels.todoModel(), url: url, options: [NSSQLitePragmasOption: ["cache_size": 500]])
        let store = try #require(withPragmas.persistentStoreCoordinator?.persistentStores.first?.backend as? SQLiteStore)
        let cacheSize = try store.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        #expect(cacheSize == 500)
        let bad = expectOpenFailure(url, options: [NSSQLitePragmasOption: ["cache_size": "1; DROP TABLE ZTODOENTITY"]])
        #expect(bad?.code == NSCoreDataError)
        let check = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        #expect(try check.performAndWait { try check.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) } == 200)
    }

    @Test("A live -wal file: a read-only open of a copy sees rows that are only in the WAL")
    func liveWAL() throws {
        let url = try makeStore()
        var configuration = Configuration()
        configuration.prepareDatabase { db in SQLiteStoreFunctions.register(in: db) }
        let writer = try DatabasePool(path: url.path, configuration: configuration)
        defer { try? writer.close() }
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        try writer.write { db in
            try db.execute(sql: "INSERT INTO ZTODOENTITY (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1000, 3, 1, 'only in the WAL')")
        }
        let copy = TestStoreFiles.newStoreURL()
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix) }
        let walSize = (try FileManager.default.attributesOfItem(atPath: copy.path + "-wal")[.size] as? Int) ?? 0
        #expect(walSize > 0)
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: copy, options: [NSReadOnlyPersistentStoreOption: true])
        try context.performAndWait {
            let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            #expect(all.count == 201)
            #expect(all.contains { $0.value(forKey: "title") as? String == "only in the WAL" })
        }
    }
}
