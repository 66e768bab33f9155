import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Issue 30, point 1: a value of an attribute with `allowsExternalBinaryDataStorage` is never
/// taken for a reference because of its bytes. In a store OpenCoreData created a BLOB is always a
/// value; in a store another implementation created a BLOB shaped like a reference is read as one
/// only when it alone names an existing file, and a file is removed only with the row that owns it.
@Suite("External binary data references")
struct ExternalBinaryDataReferenceTests {
    typealias E = ExternalBinaryDataTests

    // MARK: - Helpers

    /// The issue's shape: one framing byte, a UUID's text, one byte.
    static func framed(_ name: UUID, first: UInt8 = 1) -> Data {
        Data([first]) + Data(name.uuidString.utf8) + Data([0])
    }

    /// Takes OpenCoreData's bookkeeping key out of the store's metadata: to the store it then
    /// looks as one another implementation created (an Apple-written store has no such key).
    static func removeBookkeeping(_ url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.write { db in
            let plist = try #require(try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
            var metadata = try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
            #expect(metadata.removeValue(forKey: SQLiteExternalData.bookkeepingKey) != nil)
            let data = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [data])
        }
    }

    /// A new store without OpenCoreData's bookkeeping key (see `removeBookkeeping`).
    static func foreignStore(options: [AnyHashable: Any]? = nil) throws -> URL {
        let url = TestStoreFiles.newStoreURL()
        let context = try E.open(url, options: options)
        try context.performAndWait { try context.save() }
        try removeBookkeeping(url)
        return url
    }

    static func folder(_ url: URL) -> URL {
        SQLiteStoreFiles.supportFolder(of: url).appendingPathComponent("_EXTERNAL_DATA")
    }

    /// Deletes the documents with the given names and saves, through a fresh coordinator.
    static func delete(_ names: [String], at url: URL, options: [AnyHashable: Any]? = nil) throws {
        let context = try E.open(url, options: options)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Document")
            request.predicate = NSPredicate(format: "name IN %@", names)
            for document in try context.fetch(request) { context.delete(document) }
            try context.save()
        }
    }

    // MARK: - The issue's reproducers

    @Test("A 38-byte value framed like a reference to a missing file reads back as itself after a reopen", arguments: [false, true])
    func framedValueRoundTrips(foreign: Bool) throws {
        let url = foreign ? try Self.foreignStore() : TestStoreFiles.newStoreURL()
        let value = Self.framed(UUID())
        try E.insert(try E.open(url), name: "small", payload: value)
        #expect(try E.payloads(at: url) == [value])
    }

    @Test("A value framed like a reference to another row's file reads as itself, and deleting it keeps the other row's file", arguments: [false, true])
    func framedValueNamingAnotherRowsFile(foreign: Bool) throws {
        let url = foreign ? try Self.foreignStore() : TestStoreFiles.newStoreURL()
        let big = E.bytes(10 * E.megabyte, seed: 3)
        let context = try E.open(url)
        try E.insert(context, name: "big", payload: big)
        let file = try #require(E.externalFiles(url).first)
        let fileName = try #require(UUID(uuidString: file))
        let small = Self.framed(fileName)
        try E.insert(context, name: "small", payload: small)
        #expect(try E.payloads(at: url) == [big, small])
        try Self.delete(["small"], at: url)
        #expect(E.externalFiles(url).contains(file))
        #expect(try E.payloads(at: url) == [big])
    }

    @Test("Every length 0–256 and every framing byte round-trips in the row of a store we created")
    func everyLengthIsAValue() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try E.open(url)
        let name = UUID()
        var values: [Data] = (0...256).map { E.bytes($0, seed: UInt8($0 & 0xFF)) }
        values += (0...31).map { Self.framed(name, first: UInt8($0)) }
        try context.performAndWait {
            for (index, value) in values.enumerated() {
                let document = NSEntityDescription.insertNewObject(forEntityName: "Document", into: context)
                document.setValue(String(format: "%04d", index), forKey: "name")
                document.setValue(value, forKey: "payload")
            }
            try context.save()
        }
        #expect(E.externalFiles(url).isEmpty)
        #expect(try E.payloads(at: url) == values)
    }

    // MARK: - Stores another implementation created

    @Test("In a store another implementation made, a framed value we save goes to a file of its own with a marker")
    func foreignStoreWritesFramedValuesToFiles() throws {
        let url = try Self.foreignStore()
        let value = Self.framed(UUID())
        try E.insert(try E.open(url), name: "a", payload: value)
        #expect(E.externalFiles(url).count == 1)
        let stored = try #require(try E.column("ZPAYLOAD", at: url).first)
        guard case .string(let text) = stored.storage else { Issue.record("the row holds \(stored), not a marker"); return }
        #expect(SQLiteExternalData.parseMarker(text)?.byteCount == value.count)
        #expect(try E.payloads(at: url) == [value])
        try Self.delete(["a"], at: url)
        #expect(E.externalFiles(url).isEmpty)
    }

    @Test("Another implementation's BLOB reads its file only when it alone names a file that exists; a file goes only with its owner")
    func foreignOwnership() throws {
        let url = try Self.foreignStore()
        let context = try E.open(url)
        let big = E.bytes(E.megabyte, seed: 5)
        try E.insert(context, name: "a", payload: big)
        for name in ["b", "c", "d", "e", "f"] { try E.insert(context, name: name, payload: nil) }
        let ownedName = try #require(E.externalFiles(url).first)
        let owned = try #require(UUID(uuidString: ownedName))
        let orphan = UUID(), shared = UUID(), missing = UUID()
        try E.bytes(700, seed: 1).write(to: Self.folder(url).appendingPathComponent(orphan.uuidString))
        try E.bytes(900, seed: 2).write(to: Self.folder(url).appendingPathComponent(shared.uuidString))
        let rows: [(String, Data)] = [("b", Self.framed(owned, first: 2)), ("c", Self.framed(orphan, first: 2)),
                                      ("d", Self.framed(missing, first: 2)), ("e", Self.framed(shared, first: 2)),
                                      ("f", Self.framed(shared, first: 3))]
        for (name, blob) in rows {
            try E.execute("UPDATE ZDOCUMENT SET ZPAYLOAD = ? WHERE ZNAME = ?", [blob, name], at: url)
        }
        // b names a's file (a's marker names it too): a value. c alone names an existing file:
        // the other implementation's reference. d's file is missing: a value. e and f name one
        // file: both values.
        #expect(try E.payloads(at: url) == [big, rows[0].1, E.bytes(700, seed: 1), rows[2].1, rows[3].1, rows[4].1])
        try Self.delete(["b", "e"], at: url)
        #expect(Set(E.externalFiles(url)) == [owned.uuidString, orphan.uuidString, shared.uuidString])
        // With e gone, f alone names its file: it now owns it, and its row's deletion removes it.
        #expect(try E.payloads(at: url) == [big, E.bytes(700, seed: 1), rows[2].1, E.bytes(900, seed: 2)])
        try Self.delete(["c", "f"], at: url)
        #expect(E.externalFiles(url) == [owned.uuidString])
        #expect(try E.payloads(at: url) == [big, rows[2].1])
    }

    @Test("A batch update may not write a framed constant into a store another implementation made")
    func foreignBatchUpdateRefusesFramedConstant() throws {
        let url = try Self.foreignStore()
        let context = try E.open(url)
        try E.insert(context, name: "a", payload: nil)
        try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Document")
            update.propertiesToUpdate = ["payload": Self.framed(UUID())]
            let error = try #require(throws: (any Error).self) { try context.execute(update) } as NSError
            #expect(error.domain == NSCocoaErrorDomain)
        }
        #expect(try E.payloads(at: url) == [nil])
    }

    // MARK: - The bookkeeping key

    @Test("A store we create records the key; metadata writes keep it; a migration neither adds nor drops it")
    func bookkeepingKey() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try E.open(url)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        #expect(SQLiteExternalData.isOpenCoreDataBookkeeping(store.metadata ?? [:]))
        coordinator.setMetadata(["app": "value"], for: store)
        try context.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Document", into: context)
            try context.save()
        }
        // An app that rebuilds the metadata from the keys it knows leaves ours out.
        var closed = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        closed.removeValue(forKey: SQLiteExternalData.bookkeepingKey)
        closed["other"] = 1
        try NSPersistentStoreCoordinator.setMetadata(closed, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
        #expect(SQLiteExternalData.isOpenCoreDataBookkeeping(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)))
        let migrate: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        _ = try E.payloads(at: url, model: E.model(note: true), options: migrate)
        #expect(SQLiteExternalData.isOpenCoreDataBookkeeping(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)))

        let foreign = try Self.foreignStore()
        _ = try E.payloads(at: foreign, model: E.model(note: true), options: migrate)
        #expect(!SQLiteExternalData.isOpenCoreDataBookkeeping(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: foreign)))
    }
}
