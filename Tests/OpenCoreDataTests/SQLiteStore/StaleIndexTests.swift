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
        // Torn or missing index headers are not trusted either. The log header below is valid:
        // little-endian checksums (magic ...82), version 3007000, 4096-byte pages, and the
        // checksum of its first 24 bytes.
        var index = [UInt8](repeating: 0, count: 96)
        var log: [UInt8] = [0x37, 0x7F, 0x06, 0x82, 0x00, 0x2D, 0xE2, 0x18, 0x00, 0x00, 0x10, 0x00] + [UInt8](repeating: 0, count: 20)
        Self.sealLogHeader(&log)
        #expect(WALIndexCheck.logHeaderIsValid(log))
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
        #expect(!WALIndexCheck.indexMatches(index: index, log: log), "a log whose checksum no longer matches its header")
        Self.sealLogHeader(&log)
        #expect(WALIndexCheck.indexMatches(index: index, log: log), "frames under the log's salts")
        for offset in [0, 3, 5, 9, 25, 31] {
            var damaged = log
            damaged[offset] ^= 0x5A
            #expect(!WALIndexCheck.logHeaderIsValid(damaged), "byte \(offset) damaged")
        }
        #expect(!WALIndexCheck.indexMatches(index: Array(index.prefix(50)), log: log), "too short")
    }

    /// Writes the checksum of a little-endian log header's first 24 bytes into bytes 24–31, as
    /// SQLite's documentation defines it (computed here independently of `WALIndexCheck`).
    static func sealLogHeader(_ log: inout [UInt8]) {
        var s0: UInt32 = 0, s1: UInt32 = 0
        func littleEndianWord(_ at: Int) -> UInt32 { UInt32(log[at]) | UInt32(log[at + 1]) << 8 | UInt32(log[at + 2]) << 16 | UInt32(log[at + 3]) << 24 }
        for at in stride(from: 0, to: 24, by: 8) {
            s0 = s0 &+ littleEndianWord(at) &+ s1
            s1 = s1 &+ littleEndianWord(at + 4) &+ s0
        }
        for (index, value) in [s0, s1].enumerated() {
            for byte in 0..<4 { log[24 + 4 * index + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
        }
    }

    @Test("Every byte of a damaged log header sends the read to a private copy, answered with the database file's rows")
    func damagedLogHeaders() throws {
        let url = try Self.storeWithCheckpointAndWAL()
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        #expect(WALIndexCheck.logHeaderIsValid([UInt8](wal.prefix(32))), "SQLite's own log header passes")
        for offset in [0, 3, 8, 11, 20, 27] {
            let copy = TestStoreFiles.newStoreURL()
            for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix) }
            var damaged = wal
            damaged[offset] ^= 0x5A
            try damaged.write(to: URL(fileURLWithPath: copy.path + "-wal"))
            #expect(!WALIndexCheck.indexMatchesLog(copy.path), "byte \(offset)")
            #expect(try Self.todoCount(copy, readOnly: true) == 20, "byte \(offset)")
        }
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
