import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// `allowsExternalBinaryDataStorage` on the SQLite store (issue #16, Must 7): Apple documents that
/// such an attribute's value "may be stored in a file external to the persistent store itself";
/// its files live in `.<Store>_SUPPORT/_EXTERNAL_DATA/`. Large values go there, small ones stay
/// in the row, reads return the same bytes, and no save, failure or rollback leaves a stray file.
@Suite("External binary data")
struct ExternalBinaryDataTests {
    typealias M = TestModels

    // MARK: - Helpers

    /// `Document`: `name`, `payload` (binary, external storage), `thumbnail` (binary, in the row),
    /// `archive` (transformable, external storage); optionally `note` and `payload` without the flag.
    static func model(note: Bool = false, externalPayload: Bool = true) -> NSManagedObjectModel {
        let payload = M.attribute("payload", .binaryDataAttributeType)
        payload.allowsExternalBinaryDataStorage = externalPayload
        let archive = M.attribute("archive", .transformableAttributeType)
        archive.allowsExternalBinaryDataStorage = true
        var properties: [NSPropertyDescription] = [M.attribute("name", .stringAttributeType), payload, M.attribute("thumbnail", .binaryDataAttributeType), archive]
        if note { properties.append(M.attribute("note", .stringAttributeType)) }
        let model = NSManagedObjectModel()
        model.entities = [M.entity("Document", properties)]
        return model
    }

    /// Bytes that differ from one position to the next, so a shifted or truncated copy is caught.
    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ ($0 >> 9)) })
    }

    static let megabyte = 1_048_576

    static func open(_ url: URL, model: NSManagedObjectModel = model(), options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        try M.sqliteContext(model, url: url, options: options)
    }

    /// Inserts one document and saves.
    @discardableResult
    static func insert(_ context: NSManagedObjectContext, name: String = "doc", payload: Data?) throws -> NSManagedObjectID {
        try context.performAndWait {
            let document = NSEntityDescription.insertNewObject(forEntityName: "Document", into: context)
            document.setValue(name, forKey: "name")
            document.setValue(payload, forKey: "payload")
            try context.save()
            return document.objectID
        }
    }

    /// The payload of every document, read by a fresh coordinator.
    static func payloads(at url: URL, model: NSManagedObjectModel = model(), options: [AnyHashable: Any]? = nil) throws -> [Data?] {
        let context = try open(url, model: model, options: options)
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Document")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request).map { $0.value(forKey: "payload") as? Data }
        }
    }

    /// The names of the files in the store's `_EXTERNAL_DATA` folder.
    static func externalFiles(_ url: URL) -> [String] {
        let folder = SQLiteStoreFiles.supportFolder(of: url).appendingPathComponent("_EXTERNAL_DATA")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    static func externalFile(_ url: URL, _ name: String) -> URL {
        SQLiteStoreFiles.supportFolder(of: url).appendingPathComponent("_EXTERNAL_DATA").appendingPathComponent(name)
    }

    /// A column's raw values, read with SQL.
    static func column(_ name: String, at url: URL) throws -> [DatabaseValue] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in try DatabaseValue.fetchAll(db, sql: "SELECT \(name) FROM ZDOCUMENT ORDER BY ZNAME") }
    }

    /// Runs SQL on the store file through a connection of its own.
    static func execute(_ sql: String, _ arguments: StatementArguments = [], at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.write { db in try db.execute(sql: sql, arguments: arguments) }
    }

    // MARK: - Writing and reading

    @Test("A 1 MB value is written to an external file, the row holds a marker naming it, and a new coordinator reads the same bytes")
    func largeValueRoundTrips() throws {
        let url = TestStoreFiles.newStoreURL()
        let value = Self.bytes(Self.megabyte)
        try Self.insert(try Self.open(url), payload: value)
        let files = Self.externalFiles(url)
        #expect(files.count == 1)
        let name = try #require(files.first)
        #expect(try Data(contentsOf: Self.externalFile(url, name)) == value)
        let stored = try #require(try Self.column("ZPAYLOAD", at: url).first)
        guard case .string(let text) = stored.storage else { Issue.record("the row holds \(stored), not a marker"); return }
        let marker = try #require(SQLiteExternalData.parseMarker(text))
        #expect(marker.name.uuidString == name && marker.byteCount == value.count)
        #expect(text.utf8.count < 100)
        #expect(try Self.payloads(at: url) == [value])
    }

    @Test("Fetches, dictionary results and nil tests in predicates see the external value's bytes")
    func readPaths() throws {
        let url = TestStoreFiles.newStoreURL()
        let value = Self.bytes(300_000, seed: 3)
        let context = try Self.open(url)
        try Self.insert(context, name: "a", payload: value)
        try Self.insert(context, name: "b", payload: nil)
        let reader = try Self.open(url)
        try reader.performAndWait {
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Document")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["name", "payload"]
            dictionaries.predicate = NSPredicate(format: "name == 'a'")
            #expect(try reader.fetch(dictionaries).first?["payload"] as? Data == value)
            let present = NSFetchRequest<NSManagedObject>(entityName: "Document")
            present.predicate = NSPredicate(format: "payload != nil")
            let found = try reader.fetch(present)
            #expect(found.map { $0.value(forKey: "name") as? String } == ["a"])
            #expect(found.first?.value(forKey: "payload") as? Data == value)
            let absent = NSFetchRequest<NSManagedObject>(entityName: "Document")
            absent.predicate = NSPredicate(format: "payload == nil")
            #expect(try reader.count(for: absent) == 1)
            // A fault fills from the row and its file.
            let id = try #require(found.first?.objectID)
            reader.reset()
            #expect(reader.object(with: id).value(forKey: "payload") as? Data == value)
        }
    }

    @Test("A value at or under the threshold stays in the row as a BLOB; the threshold is a store option")
    func smallValueStaysInRow() throws {
        let url = TestStoreFiles.newStoreURL()
        let small = Self.bytes(SQLiteExternalData.defaultThreshold, seed: 1)
        try Self.insert(try Self.open(url), payload: small)
        #expect(Self.externalFiles(url).isEmpty)
        #expect(try Self.column("ZPAYLOAD", at: url) == [small.databaseValue])
        #expect(try Self.payloads(at: url) == [small])

        let lowered = TestStoreFiles.newStoreURL()
        let options: [AnyHashable: Any] = [OCDExternalBinaryDataThresholdOption: 16]
        let context = try Self.open(lowered, options: options)
        try Self.insert(context, name: "a", payload: Self.bytes(16))
        try Self.insert(context, name: "b", payload: Self.bytes(17))
        #expect(Self.externalFiles(lowered).count == 1)
        #expect(try Self.payloads(at: lowered, options: options) == [Self.bytes(16), Self.bytes(17)])
        // An attribute without the flag keeps even large values in its row.
        try context.performAndWait {
            let document = NSEntityDescription.insertNewObject(forEntityName: "Document", into: context)
            document.setValue("c", forKey: "name")
            document.setValue(Self.bytes(200_000), forKey: "thumbnail")
            try context.save()
        }
        #expect(Self.externalFiles(lowered).count == 1)
        #expect(try Self.column("ZTHUMBNAIL", at: lowered).last == Self.bytes(200_000).databaseValue)
    }

    @Test("A transformable attribute with external storage writes its large archived value to a file too")
    func transformableValue() throws {
        let url = TestStoreFiles.newStoreURL()
        let value = Self.bytes(200_000, seed: 9)
        let context = try Self.open(url)
        try context.performAndWait {
            let document = NSEntityDescription.insertNewObject(forEntityName: "Document", into: context)
            document.setValue("t", forKey: "name")
            document.setValue(value, forKey: "archive")
            try context.save()
        }
        #expect(Self.externalFiles(url).count == 1)
        let reader = try Self.open(url)
        try reader.performAndWait {
            let document = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Document")).first)
            #expect(document.value(forKey: "archive") as? Data == value)
        }
    }

    // MARK: - Removing files

    @Test("Deleting the object and saving removes its file")
    func deleteRemovesFile() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.open(url)
        let id = try Self.insert(context, payload: Self.bytes(Self.megabyte))
        #expect(Self.externalFiles(url).count == 1)
        try context.performAndWait {
            context.delete(context.object(with: id))
            try context.save()
        }
        #expect(Self.externalFiles(url).isEmpty)
        #expect(try Self.payloads(at: url).isEmpty)
    }

    @Test("Updating the value replaces its file; a small new value goes back into the row and the file is removed")
    func updateReplacesFile() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.open(url)
        let id = try Self.insert(context, payload: Self.bytes(Self.megabyte, seed: 1))
        let first = try #require(Self.externalFiles(url).first)
        let second = Self.bytes(Self.megabyte, seed: 2)
        try context.performAndWait {
            context.object(with: id).setValue(second, forKey: "payload")
            try context.save()
        }
        let files = Self.externalFiles(url)
        #expect(files.count == 1 && files.first != first)
        #expect(try Self.payloads(at: url) == [second])
        // Changing another attribute leaves the file alone.
        try context.performAndWait {
            context.object(with: id).setValue("renamed", forKey: "name")
            try context.save()
        }
        #expect(Self.externalFiles(url) == files)
        try context.performAndWait {
            context.object(with: id).setValue(Data([1, 2, 3]), forKey: "payload")
            try context.save()
        }
        #expect(Self.externalFiles(url).isEmpty)
        #expect(try Self.payloads(at: url) == [Data([1, 2, 3])])
    }

    @Test("A save SQLite fails mid-transaction leaves no file behind and the old value's file in place")
    func failedSaveLeavesNoOrphan() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.open(url)
        let kept = Self.bytes(Self.megabyte, seed: 4)
        let id = try Self.insert(context, name: "kept", payload: kept)
        let before = Self.externalFiles(url)
        try Self.execute("CREATE TRIGGER refuse BEFORE INSERT ON ZDOCUMENT WHEN NEW.ZNAME = 'fail' BEGIN SELECT RAISE(ABORT, 'refused'); END", at: url)
        context.performAndWait {
            context.object(with: id).setValue(Self.bytes(Self.megabyte, seed: 5), forKey: "payload")
            let document = NSEntityDescription.insertNewObject(forEntityName: "Document", into: context)
            document.setValue("fail", forKey: "name")
            document.setValue(Self.bytes(Self.megabyte, seed: 6), forKey: "payload")
            #expect(throws: (any Error).self) { try context.save() }
        }
        #expect(Self.externalFiles(url) == before)
        #expect(try Self.payloads(at: url) == [kept])
    }

    @Test("A save that fails with an optimistic-locking conflict (133020) writes no file")
    func conflictLeavesNoOrphan() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.open(url)
        let id = try Self.insert(context, name: "doc", payload: nil)
        context.performAndWait { _ = context.object(with: id).value(forKey: "name") }
        let other = try Self.open(url)
        try other.performAndWait {
            // Another coordinator: the row is fetched there, not reached through this one's ID.
            let document = try #require(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Document")).first)
            document.setValue("changed elsewhere", forKey: "name")
            try other.save()
        }
        try context.performAndWait {
            context.object(with: id).setValue(Self.bytes(Self.megabyte), forKey: "payload")
            let error = try #require(throws: (any Error).self) { try context.save() } as NSError
            #expect(error.code == NSManagedObjectMergeError)
        }
        #expect(Self.externalFiles(url).isEmpty)
    }

    @Test("Rolling the context back leaves no file, and the stored value's file stays")
    func rollbackLeavesNoOrphan() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.open(url)
        let stored = Self.bytes(Self.megabyte, seed: 8)
        let id = try Self.insert(context, name: "a", payload: stored)
        let before = Self.externalFiles(url)
        try context.performAndWait {
            context.object(with: id).setValue(Self.bytes(Self.megabyte, seed: 9), forKey: "payload")
            let document = NSEntityDescription.insertNewObject(forEntityName: "Document", into: context)
            document.setValue("b", forKey: "name")
            document.setValue(Self.bytes(Self.megabyte, seed: 10), forKey: "payload")
            context.rollback()
            try context.save()
            #expect(context.object(with: id).value(forKey: "payload") as? Data == stored)
        }
        #expect(Self.externalFiles(url) == before)
        #expect(try Self.payloads(at: url) == [stored])
    }

    @Test("A read-only store reads external values and never writes or removes a file")
    func readOnlyStore() throws {
        let url = TestStoreFiles.newStoreURL()
        let value = Self.bytes(Self.megabyte)
        try Self.insert(try Self.open(url), payload: value)
        let before = Self.externalFiles(url)
        let options: [AnyHashable: Any] = [NSReadOnlyPersistentStoreOption: true]
        let context = try Self.open(url, options: options)
        try context.performAndWait {
            let document = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Document")).first)
            #expect(document.value(forKey: "payload") as? Data == value)
            document.setValue(Self.bytes(Self.megabyte, seed: 2), forKey: "payload")
            #expect(throws: (any Error).self) { try context.save() }
            context.rollback()
            context.delete(document)
            #expect(throws: (any Error).self) { try context.save() }
        }
        #expect(Self.externalFiles(url) == before)
    }

    // MARK: - Store files

    @Test("replacePersistentStore copies the support folder with the store; destroyPersistentStore removes it")
    func replaceAndDestroy() throws {
        let source = TestStoreFiles.newStoreURL()
        let value = Self.bytes(Self.megabyte)
        try Self.insert(try Self.open(source), payload: value)
        let destination = TestStoreFiles.newStoreURL()
        try Self.insert(try Self.open(destination), payload: Self.bytes(Self.megabyte, seed: 99))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
        #expect(Self.externalFiles(destination) == Self.externalFiles(source))
        #expect(try Self.payloads(at: destination) == [value])
        try coordinator.destroyPersistentStore(at: destination, type: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: SQLiteStoreFiles.supportFolder(of: destination).path))
        #expect(try Self.payloads(at: source) == [value])
    }

    @Test("migratePersistentStore to another SQLite URL writes the values to the new store's own folder")
    func migrateToAnotherURL() throws {
        let source = TestStoreFiles.newStoreURL()
        let value = Self.bytes(Self.megabyte)
        let context = try Self.open(source)
        try Self.insert(context, name: "a", payload: value)
        try Self.insert(context, name: "b", payload: Data([4, 5]))
        let coordinator = try #require(context.persistentStoreCoordinator)
        let target = TestStoreFiles.newStoreURL("Moved.sqlite")
        _ = try coordinator.migratePersistentStore(try #require(coordinator.persistentStores.first), to: target, type: .sqlite)
        #expect(Self.externalFiles(target).count == 1)
        #expect(try Data(contentsOf: Self.externalFile(target, try #require(Self.externalFiles(target).first))) == value)
        #expect(try Self.payloads(at: target) == [value, Data([4, 5])])
    }

    @Test("In-place lightweight migration keeps the files and the markers; dropping the flag puts values back into their rows")
    func lightweightMigration() throws {
        let url = TestStoreFiles.newStoreURL()
        let value = Self.bytes(Self.megabyte)
        try Self.insert(try Self.open(url), payload: value)
        let files = Self.externalFiles(url)
        let marker = try Self.column("ZPAYLOAD", at: url)
        let migrate: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        #expect(try Self.payloads(at: url, model: Self.model(note: true), options: migrate) == [value])
        #expect(Self.externalFiles(url) == files)
        #expect(try Self.column("ZPAYLOAD", at: url) == marker)
        #expect(try Self.column("ZNOTE", at: url) == [.null])

        #expect(try Self.payloads(at: url, model: Self.model(note: true, externalPayload: false), options: migrate) == [value])
        #expect(Self.externalFiles(url).isEmpty)
        #expect(try Self.column("ZPAYLOAD", at: url) == [value.databaseValue])
    }

    // MARK: - References the store cannot resolve

    @Test("A marker whose file is missing (260) or of another size (259) fails the fetch, never nil; a BLOB in a store we created is a value, whatever it names")
    func unresolvableReferences() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.open(url)
        for name in ["a", "b", "c", "d"] { try Self.insert(context, name: name, payload: nil) }
        let missing = UUID()
        try Self.execute("UPDATE ZDOCUMENT SET ZPAYLOAD = ? WHERE ZNAME = 'a'", [SQLiteExternalData.marker(name: missing, byteCount: 10)], at: url)
        // BLOBs shaped like another writer's reference: in a store OpenCoreData created they are
        // values, whether the file they name is missing or exists.
        let framedMissing = Data([2]) + Data(UUID().uuidString.utf8) + Data([0])
        try Self.execute("UPDATE ZDOCUMENT SET ZPAYLOAD = ? WHERE ZNAME = 'b'", [framedMissing], at: url)
        let existing = UUID()
        let framedExisting = Data([2]) + Data(existing.uuidString.utf8) + Data([0])
        try Self.execute("UPDATE ZDOCUMENT SET ZPAYLOAD = ? WHERE ZNAME = 'c'", [framedExisting], at: url)
        let folder = SQLiteStoreFiles.supportFolder(of: url).appendingPathComponent("_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.bytes(5000).write(to: folder.appendingPathComponent(existing.uuidString))
        // A marker whose file is not of the recorded size.
        let truncated = UUID()
        try Self.bytes(100).write(to: folder.appendingPathComponent(truncated.uuidString))
        try Self.execute("UPDATE ZDOCUMENT SET ZPAYLOAD = ? WHERE ZNAME = 'd'", [SQLiteExternalData.marker(name: truncated, byteCount: 200)], at: url)
        // Issue 37: a value the store cannot give is an error, never nil.
        func fetchError(_ name: String) -> NSError? {
            do {
                let context = try Self.open(url)
                return try context.performAndWait {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Document")
                    request.predicate = NSPredicate(format: "name == %@", name)
                    _ = try context.fetch(request)
                    return nil
                }
            } catch {
                return error as NSError
            }
        }
        let missingError = try #require(fetchError("a"))
        #expect(missingError.domain == NSCocoaErrorDomain && missingError.code == CocoaError.Code.fileReadNoSuchFile.rawValue, "\(missingError)")
        #expect((missingError.userInfo[NSFilePathErrorKey] as? String)?.hasSuffix(missing.uuidString) == true)
        let truncatedError = try #require(fetchError("d"))
        #expect(truncatedError.code == CocoaError.Code.fileReadCorruptFile.rawValue && truncatedError.localizedDescription.contains("200"), "\(truncatedError)")
        #expect(fetchError("b") == nil && fetchError("c") == nil)
        try Self.execute("UPDATE ZDOCUMENT SET ZPAYLOAD = NULL WHERE ZNAME IN ('a', 'd')", [], at: url)
        #expect(try Self.payloads(at: url) == [nil, framedMissing, framedExisting, nil])
        // Deleting the BLOB's row leaves the file it names alone: the row does not own it.
        let reader = try Self.open(url)
        try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Document")
            request.predicate = NSPredicate(format: "name == 'c'")
            for document in try reader.fetch(request) { reader.delete(document) }
            try reader.save()
        }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(existing.uuidString).path))
    }

    @Test("Only a BLOB of 37–64 bytes holding one UUID and non-printing framing has a reference's shape")
    func foreignReferenceShape() {
        let uuid = UUID()
        let text = Data(uuid.uuidString.utf8)
        func reference(_ data: Data) -> UUID? { SQLiteExternalData.foreignReference(data) }
        // A bare UUID string is a value an app may store; only a framed one has the shape.
        #expect(reference(text) == nil)
        #expect(reference(Data([0]) + text) == uuid)
        #expect(reference(Data([1, 2]) + text + Data([0])) == uuid)
        #expect(reference(Data("x".utf8) + text) == nil)
        #expect(reference(text + Data([0]) + Data("x".utf8)) == nil)
        #expect(reference(Data(repeating: 0, count: 40)) == nil)
        #expect(reference(Data(repeating: 0, count: 30) + text) == nil)
        #expect(SQLiteExternalData.parseMarker("OCD-EXTERNAL-DATA:1:\(uuid.uuidString):12")?.byteCount == 12)
        #expect(SQLiteExternalData.parseMarker("OCD-EXTERNAL-DATA:1:\(uuid.uuidString)") == nil)
        #expect(SQLiteExternalData.parseMarker("OCD-EXTERNAL-DATA:2:\(uuid.uuidString):12") == nil)
    }
}
