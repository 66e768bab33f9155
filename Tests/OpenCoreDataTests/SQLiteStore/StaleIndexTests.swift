import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// A damaged `-wal` next to a stale `-shm` (issue 30, Must 6): SQLite's read-only mode would
/// retry its read about a hundred times (some 10 s) before failing with `SQLITE_PROTOCOL`, so
/// OpenCoreData checks the index against the log first and reads such a store from a private
/// copy, where SQLite rebuilds the index, or ignores a log whose header is invalid, as a writer's
/// recovery does.
@Suite("Stale WAL index")
struct StaleIndexTests {
    /// A closed store whose first 20 to-dos are in the database file and whose last 7 are in its
    /// `-wal`, with the `-shm` its writer had: the three files copied while the writer was open.
    static func storeWithCheckpointAndWAL() throws -> URL {
        let live = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: live)
        let copy = TestStoreFiles.newStoreURL()
        try context.performAndWait {
            try HardeningStores.fill(context, rows: 20, prefix: "first")
            let checkpointer = try DatabaseQueue(path: live.path)
            try checkpointer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try checkpointer.close()
            try HardeningStores.fill(context, rows: 7, prefix: "second")
            for suffix in ["", "-wal", "-shm"] {
                try FileManager.default.copyItem(atPath: live.path + suffix, toPath: copy.path + suffix)
            }
            for store in context.persistentStoreCoordinator!.persistentStores { try context.persistentStoreCoordinator!.remove(store) }
        }
        return copy
    }

    static func todoCount(_ url: URL, readOnly: Bool) throws -> Int {
        let options: [AnyHashable: Any] = readOnly ? [NSReadOnlyPersistentStoreOption: true] : [:]
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url, options: options)
        return try context.performAndWait {
            defer {
                if let coordinator = context.persistentStoreCoordinator {
                    for store in coordinator.persistentStores { try? coordinator.remove(store) }
                }
            }
            return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
        }
    }

    @Test("An index that matches its log is read in place; one whose log's salts changed is not")
    func indexCheck() throws {
        let url = try Self.storeWithCheckpointAndWAL()
        #expect(WALIndexCheck.indexMatchesLog(url.path))
        #expect(try SQLiteReadOnlyLocation.forReading(url).privateCopy == nil)
        try HardeningStores.patch(URL(fileURLWithPath: url.path + "-wal"), at: 16, [0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03, 0x04])
        #expect(!WALIndexCheck.indexMatchesLog(url.path))
        let location = try SQLiteReadOnlyLocation.forReading(url)
        #expect(location.privateCopy != nil, "a stale index is never handed to readonly_shm")
        location.remove()
        // Torn or missing index headers are not trusted either.
        var index = [UInt8](repeating: 0, count: 96), log = [UInt8](repeating: 0, count: 32)
        #expect(!WALIndexCheck.indexMatches(index: index, log: log), "never initialized")
        index[12] = 1
        index[48 + 12] = 1
        #expect(WALIndexCheck.indexMatches(index: index, log: log), "initialized, no frame")
        index[16] = 3
        #expect(!WALIndexCheck.indexMatches(index: index, log: log), "the two header copies disagree")
        index[48 + 16] = 3
        index[32] = 9
        index[48 + 32] = 9
        #expect(!WALIndexCheck.indexMatches(index: index, log: log), "frames under other salts")
        log[16] = 9
        #expect(WALIndexCheck.indexMatches(index: index, log: log), "frames under the log's salts")
        #expect(!WALIndexCheck.indexMatches(index: Array(index.prefix(50)), log: log), "too short")
    }

    @Test("A damaged -wal next to a stale -shm opens read-only and read-write with the database file's rows, touching nothing read-only")
    func damagedLogOpens() throws {
        let url = try Self.storeWithCheckpointAndWAL()
        #expect(try Self.todoCount(url, readOnly: true) == 27, "an intact log is read")
        // The log's salts no longer match its header checksum: SQLite ignores such a log.
        try HardeningStores.patch(URL(fileURLWithPath: url.path + "-wal"), at: 16, [0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03, 0x04])
        let before = try StoreFolderSnapshot(of: url)
        #expect(try Self.todoCount(url, readOnly: true) == 20)
        #expect(try StoreFolderSnapshot(of: url) == before, "a read-only open writes nothing")
        _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try StoreFolderSnapshot(of: url) == before)
        #expect(try Self.todoCount(url, readOnly: false) == 20)
    }
}
