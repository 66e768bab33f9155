import Foundation
import GRDB
import Testing
@testable import OpenCoreData
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Destroying, replacing and migrating a store in place never act on what is not a store file
/// (issue 30, Must 0): `/dev/null` (Apple's in-memory convention, and a device a root process
/// could otherwise remove), a FIFO, a symbolic link to a file outside the store's folder, and a
/// missing path. The checks are on the file's type, so the tests hold whoever runs them.
@Suite("Store file safety")
struct StoreFileSafetyTests {
    typealias M = TestModels

    /// A saved SQLite store with one to-do, closed.
    static func store(in folder: URL? = nil) throws -> URL {
        let url = folder.map { $0.appendingPathComponent("Store.sqlite") } ?? TestStoreFiles.newStoreURL()
        let context = try M.sqliteContext(M.todoModel(), url: url)
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context).setValue("keep", forKey: "title")
            try context.save()
        }
        if let coordinator = context.persistentStoreCoordinator {
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        return url
    }

    /// A FIFO in a new folder.
    static func fifo() throws -> URL {
        let url = TestStoreFiles.newStoreURL("Pipe.sqlite")
        try #require(mkfifo(url.path, 0o600) == 0, "mkfifo failed: errno \(errno)")
        return url
    }

    /// A symbolic link in a new folder to a store in another folder.
    static func linkToOutsideStore() throws -> (link: URL, target: URL) {
        let target = try store()
        let link = TestStoreFiles.newStoreURL("Link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        return (link, target)
    }

    /// The kind and, for regular files, the bytes at a path: what must not change.
    static func snapshot(_ url: URL) -> (StoreFileKind, Data?) {
        let kind = StoreFileKind(path: url.path)
        return (kind, kind == .regular ? try? Data(contentsOf: url) : nil)
    }

    static func coordinator() -> NSPersistentStoreCoordinator {
        NSPersistentStoreCoordinator(managedObjectModel: M.todoModel())
    }

    static let devNull = URL(fileURLWithPath: "/dev/null")

    // MARK: - destroyPersistentStore

    @Test("destroyPersistentStore refuses /dev/null with an NSError and leaves the device in place")
    func destroyRefusesDevNull() throws {
        #expect(StoreFileKind(path: Self.devNull.path) == .characterDevice)
        let error = try #require(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: Self.devNull, type: .sqlite) }
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreInvalidTypeError)
        #expect(error.localizedDescription.contains("character device"))
        #expect(StoreFileKind(path: Self.devNull.path) == .characterDevice)
        // The older spelling and a custom store type refuse it too.
        #expect(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: Self.devNull, ofType: NSSQLiteStoreType) }
    }

    @Test("destroyPersistentStore refuses a FIFO without opening it (no wait for a writer) and leaves it")
    func destroyRefusesFIFO() throws {
        let fifo = try Self.fifo()
        let error = try #require(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: fifo, type: .sqlite) }
        #expect(error.code == NSPersistentStoreInvalidTypeError)
        #expect(StoreFileKind(path: fifo.path) == .fifo)
    }

    @Test("destroyPersistentStore refuses a symbolic link to a store elsewhere: the link and its target stay")
    func destroyRefusesSymbolicLink() throws {
        let (link, target) = try Self.linkToOutsideStore()
        let before = Self.snapshot(target)
        let error = try #require(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: link, type: .sqlite) }
        #expect(error.code == NSPersistentStoreInvalidTypeError)
        #expect(StoreFileKind(path: link.path) == .symbolicLink)
        let after = Self.snapshot(target)
        #expect(after.0 == before.0 && after.1 == before.1)
        #expect(try StoreFileManagementTests.titles(at: target) == ["keep"])
    }

    @Test("destroyPersistentStore of a missing store throws 260, as Apple's does, and creates nothing")
    func destroyMissingThrows() throws {
        let missing = TestStoreFiles.newStoreURL()
        let error = try #require(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: missing, type: .sqlite) }
        #expect(error.domain == NSCocoaErrorDomain && error.code == CocoaError.Code.fileReadNoSuchFile.rawValue)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == missing.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: missing.deletingLastPathComponent().path).isEmpty)
    }

    @Test("destroyPersistentStore removes nothing when a companion is not a regular file")
    func destroyChecksCompanionsFirst() throws {
        let url = try Self.store()
        try #require(mkfifo(url.path + "-journal", 0o600) == 0)
        let before = Self.snapshot(url)
        #expect(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: url, type: .sqlite) }
        let after = Self.snapshot(url)
        #expect(after.0 == .regular && after.1 == before.1)
        try FileManager.default.removeItem(atPath: url.path + "-journal")
        try Self.coordinator().destroyPersistentStore(at: url, type: .sqlite)
        #expect(StoreFileKind(path: url.path) == .missing)
    }

    @Test("A custom store type's destroy refuses devices, FIFOs and missing paths too")
    func customTypeDestroyRefuses() throws {
        let type = "StoreFileSafetyTests.Custom"
        NSPersistentStoreCoordinator.registerStoreClass(NSIncrementalStore.self, forStoreType: type)
        #expect(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: Self.devNull, ofType: type) }
        let fifo = try Self.fifo()
        #expect(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: fifo, ofType: type) }
        #expect(StoreFileKind(path: fifo.path) == .fifo)
        let missing = TestStoreFiles.newStoreURL()
        let error = try #require(throws: NSError.self) { try Self.coordinator().destroyPersistentStore(at: missing, ofType: type) }
        #expect(error.code == CocoaError.Code.fileReadNoSuchFile.rawValue)
        #expect(StoreFileKind(path: Self.devNull.path) == .characterDevice)
    }

    // MARK: - replacePersistentStore

    @Test("replacePersistentStore refuses /dev/null, a FIFO and a symbolic link as its destination, changing nothing")
    func replaceRefusesSpecialDestinations() throws {
        let source = try Self.store()
        let (link, target) = try Self.linkToOutsideStore()
        let fifo = try Self.fifo()
        let targetBefore = Self.snapshot(target)
        for destination in [Self.devNull, fifo, link] {
            let before = StoreFileKind(path: destination.path)
            let error = try #require(throws: NSError.self) {
                try Self.coordinator().replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
            }
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreInvalidTypeError, "\(destination.path)")
            #expect(StoreFileKind(path: destination.path) == before, "\(destination.path)")
        }
        let targetAfter = Self.snapshot(target)
        #expect(targetAfter.0 == targetBefore.0 && targetAfter.1 == targetBefore.1)
        // Nothing was left beside the destinations (no temporary copy).
        for folder in [fifo, link].map({ $0.deletingLastPathComponent() }) {
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
        }
    }

    @Test("replacePersistentStore refuses /dev/null and a FIFO as its source without reading them, and a missing source with 260")
    func replaceRefusesSpecialSources() throws {
        let destination = try Self.store()
        let before = Self.snapshot(destination)
        for source in [Self.devNull, try Self.fifo()] {
            let error = try #require(throws: NSError.self) {
                try Self.coordinator().replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
            }
            #expect(error.code == NSPersistentStoreInvalidTypeError, "\(source.path)")
        }
        let missing = TestStoreFiles.newStoreURL()
        let error = try #require(throws: NSError.self) {
            try Self.coordinator().replacePersistentStore(at: destination, withPersistentStoreFrom: missing, type: .sqlite)
        }
        #expect(error.code == CocoaError.Code.fileReadNoSuchFile.rawValue)
        let after = Self.snapshot(destination)
        #expect(after.0 == .regular && after.1 == before.1)
        // A link to a store is a fine source: it is only read.
        let (link, _) = try Self.linkToOutsideStore()
        try Self.coordinator().replacePersistentStore(at: destination, withPersistentStoreFrom: link, type: .sqlite)
        #expect(try StoreFileManagementTests.titles(at: destination) == ["keep"])
    }

    // MARK: - Opening and migrating in place

    @Test("Opening a FIFO or a link to /dev/null as a SQLite store fails with an NSError instead of waiting or writing")
    func openRefusesSpecialFiles() throws {
        let fifo = try Self.fifo()
        let link = TestStoreFiles.newStoreURL("Null.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: Self.devNull.path)
        for url in [fifo, link] {
            let error = try #require(throws: NSError.self) { try Self.coordinator().addPersistentStore(type: .sqlite, at: url) }
            #expect(error.domain == NSCocoaErrorDomain, "\(url.path)")
            #expect(throws: NSError.self) { try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url) }
        }
        #expect(StoreFileKind(path: fifo.path) == .fifo)
        #expect(StoreFileKind(path: link.path) == .symbolicLink)
        #expect(StoreFileKind(path: Self.devNull.path) == .characterDevice)
    }

    @Test("A migration whose destination is /dev/null, a FIFO or a link to a store elsewhere refuses and writes nothing")
    func migrationRefusesSpecialDestinations() throws {
        let source = try MigrationManagerTests.sourceStore()
        let (link, target) = try Self.linkToOutsideStore()
        let fifo = try Self.fifo()
        let targetBefore = Self.snapshot(target)
        let mapping = try MigrationManagerTests.mapping(policy: nil)
        for destination in [Self.devNull, fifo, link] {
            let before = StoreFileKind(path: destination.path)
            #expect(throws: NSError.self, "\(destination.path)") {
                _ = try MigrationManagerTests.migrate(source, to: destination, mapping: mapping)
            }
            #expect(StoreFileKind(path: destination.path) == before, "\(destination.path)")
        }
        let targetAfter = Self.snapshot(target)
        #expect(targetAfter.0 == targetBefore.0 && targetAfter.1 == targetBefore.1)
        for folder in [fifo, link].map({ $0.deletingLastPathComponent() }) {
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
        }
        #expect(StoreFileKind(path: Self.devNull.path) == .characterDevice)
    }
}
