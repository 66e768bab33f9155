import Foundation
import GRDB
import Testing
@testable import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Apple's lightweight migration of a SQLite store happens in place and is crash-safe: a process
/// killed while migrating leaves the old store or the migrated one, never a mix (issue #16,
/// Must 3). The child is this test binary, re-invoked to run `migrationChild`; the parent kills
/// it with SIGKILL at random points, from before it opens the store to after it committed.
@Suite("Migration crash safety")
struct MigrationCrashTests {
    typealias M = TestModels
    static let childVariable = "OPENCOREDATA_MIGRATION_CHILD_STORE"
    static let authors = 3_500
    static let booksPerAuthor = 12
    static let rounds = 32
    static var migrate: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    // MARK: - Models

    /// Version 1: `Author` (name, age, note) ↔ to-many `books` ↔ `Book` (title, pages).
    static func version1() -> NSManagedObjectModel {
        let author = M.entity("Author", [M.attribute("name", .stringAttributeType), M.attribute("age", .integer64AttributeType),
                                         M.attribute("note", .stringAttributeType)])
        let book = M.entity("Book", [M.attribute("title", .stringAttributeType), M.attribute("pages", .integer32AttributeType)])
        let books = M.relationship("books", to: book, toMany: true)
        let writer = M.relationship("author", to: author, toMany: false)
        M.inverse(books, writer)
        author.properties += [books]
        book.properties += [writer]
        let model = NSManagedObjectModel()
        model.entities = [author, book]
        return model
    }

    /// Version 2: `Author` renamed `Writer` and its `name` renamed `fullName` (renaming
    /// identifiers), and a new non-optional `rating` with the default 5.
    static func version2() -> NSManagedObjectModel {
        let model = version1()
        let writer = model.entitiesByName["Author"]!
        writer.name = "Writer"
        writer.renamingIdentifier = "Author"
        let name = writer.attributesByName["name"]!
        name.name = "fullName"
        name.renamingIdentifier = "name"
        writer.properties += [M.attribute("rating", .integer32AttributeType, optional: false, defaultValue: 5)]
        return model
    }

    /// A closed version-1 store of `authors` authors with `booksPerAuthor` books each.
    static func makeTemplate() throws -> URL {
        let url = TestStoreFiles.newStoreURL("Template.sqlite")
        let context = try M.sqliteContext(version1(), url: url)
        try context.performAndWait {
            for index in 0..<authors {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue("Author \(index)", forKey: "name")
                author.setValue(Int64(20 + index % 60), forKey: "age")
                author.setValue(String(repeating: "n", count: index % 40), forKey: "note")
                for number in 0..<booksPerAuthor {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue("Book \(index)-\(number)", forKey: "title")
                    book.setValue(Int32(100 + number), forKey: "pages")
                    book.setValue(author, forKey: "author")
                }
            }
            try context.save()
        }
        let coordinator = try #require(context.persistentStoreCoordinator)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    }

    /// A fresh copy of the template (the store alone: closing it checkpointed its WAL).
    static func copy(_ template: URL) throws -> URL {
        let url = TestStoreFiles.newStoreURL()
        try FileManager.default.copyItem(at: template, to: url)
        return url
    }

    // MARK: - Child

    /// The child's work: open the store with version 2 and the migration options, which migrates
    /// it in place, close it, then wait to be killed (its standard input ends if the parent dies).
    /// Does nothing in a normal test run.
    @Test("Migration child process (idle unless re-invoked by the SIGKILL test)")
    func migrationChild() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.version2())
        FileHandle.standardOutput.write(Data("READY\n".utf8))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: Self.migrate)
        try coordinator.remove(store)
        FileHandle.standardOutput.write(Data("MIGRATED\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
    }

    static let holderVariable = "OPENCOREDATA_MIGRATION_HOLDER_STORE"

    /// A writer that opens the store read-write (making its `-wal` and `-shm`) and waits to be
    /// killed. Does nothing in a normal test run.
    @Test("Store holder child process (idle unless re-invoked by the header-only WAL test)")
    func holderChild() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.holderVariable] else { return }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.version1())
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: nil)
        FileHandle.standardOutput.write(Data("READY\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
    }

    @Test("A writer killed before its first WAL frame leaves a header-only -wal and its -shm: the store still opens read-only, with its rows, and nothing beside it changes")
    func headerOnlyWAL() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try M.sqliteContext(Self.version1(), url: url)
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Author", into: context).setValue("Ada", forKey: "name")
            try context.save()
        }
        let coordinator = try #require(context.persistentStoreCoordinator)
        for store in coordinator.persistentStores { try coordinator.remove(store) }

        let (child, output) = try Self.startChild(url, variable: Self.holderVariable, test: "holderChild")
        let ready = Self.wait(for: "READY", in: output)
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(ready.contains("READY"))
        #expect(FileManager.default.fileExists(atPath: url.path + "-shm"), "the killed writer left no -shm")

        // The header a writer writes first: taken from another WAL database of the same page size.
        let donor = TestStoreFiles.newStoreURL("Donor.sqlite")
        let queue = try DatabasePool(path: donor.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        let header = try #require(FileManager.default.contents(atPath: donor.path + "-wal")).prefix(SQLiteReadOnlyLocation.walHeaderSize)
        try queue.close()
        #expect(header.count == SQLiteReadOnlyLocation.walHeaderSize)
        try header.write(to: URL(fileURLWithPath: url.path + "-wal"))
        let companions = [url.path + "-wal", url.path + "-shm"].map { FileManager.default.contents(atPath: $0) }

        let reader = NSPersistentStoreCoordinator(managedObjectModel: Self.version1())
        let store = try reader.addPersistentStore(type: .sqlite, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        let readContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readContext.persistentStoreCoordinator = reader
        let names = try readContext.performAndWait {
            try readContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).map { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["Ada"])
        try reader.remove(store)
        #expect([url.path + "-wal", url.path + "-shm"].map { FileManager.default.contents(atPath: $0) } == companions)
    }

    // MARK: - States

    /// What a reopened store holds.
    enum State: Equatable {
        case old, new
    }

    /// What the template held: author keys and names, and books by author key.
    struct Contents: Equatable {
        var authors: [[String]]
        var books: [[String]]
    }

    /// Reads a store without changing it: the library's read-only open must succeed with exactly
    /// one of the two versions, and the raw file must hold that version's complete contents.
    static func state(of url: URL, expected: Contents) throws -> State {
        let opensAsOld = opensReadOnly(url, version1())
        let opensAsNew = opensReadOnly(url, version2())
        #expect(opensAsOld != opensAsNew, "read-only opens: version 1 \(opensAsOld), version 2 \(opensAsNew)")
        let state: State = opensAsNew ? .new : .old
        // Where and how the library reads a store read-only: nothing beside it is written.
        let location = try SQLiteReadOnlyLocation.forReading(url)
        defer { location.remove() }
        let queue = try DatabaseQueue(path: location.path, configuration: SQLiteStoreFile.readOnlyConfiguration(label: "crash-check"))
        defer { try? queue.close() }
        try queue.read { db in
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            #expect(!tables.contains { $0.hasPrefix("_OCD") }, "tables of a half migration: \(tables.sorted())")
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            let table = state == .old ? "ZAUTHOR" : "ZWRITER", name = state == .old ? "ZNAME" : "ZFULLNAME"
            #expect(tables.contains(table) && !tables.contains(state == .old ? "ZWRITER" : "ZAUTHOR"), "\(tables.sorted())")
            let authors = try Row.fetchAll(db, sql: "SELECT Z_PK, \(name) FROM \(table) ORDER BY Z_PK").map { ["\($0[0] as Int64)", $0[1] as String? ?? "nil"] }
            let books = try Row.fetchAll(db, sql: "SELECT b.Z_PK, b.ZTITLE, b.ZAUTHOR FROM ZBOOK b JOIN \(table) a ON a.Z_PK = b.ZAUTHOR ORDER BY b.Z_PK")
                .map { ["\($0[0] as Int64)", $0[1] as String? ?? "nil", "\($0[2] as Int64)"] }
            #expect(Contents(authors: authors, books: books) == expected, "the \(state) store's rows differ from the template's")
            if state == .new {
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZWRITER WHERE ZRATING = 5") == Self.authors)
            }
            let model = state == .old ? version1() : version2()
            let hashes = model.entityVersionHashesByName
            let metadata = try SQLiteStoreFile.inspect(db, url: url).metadata
            #expect(NSManagedObjectModel.versionHashes(inStoreMetadata: metadata) == hashes, "the \(state) store's metadata hashes")
            let cache = try #require(try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE"))
            #expect(try NSManagedObjectModel.fromModelCache(cache).entityVersionHashesByName == hashes, "the \(state) store's Z_MODELCACHE")
        }
        return state
    }

    /// Whether the store opens read-only with a model (a read-only store is never migrated).
    static func opensReadOnly(_ url: URL, _ model: NSManagedObjectModel) -> Bool {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        guard let store = try? coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSReadOnlyPersistentStoreOption: true]) else { return false }
        try? coordinator.remove(store)
        return true
    }

    static func contents(of url: URL) throws -> Contents {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            Contents(authors: try Row.fetchAll(db, sql: "SELECT Z_PK, ZNAME FROM ZAUTHOR ORDER BY Z_PK").map { ["\($0[0] as Int64)", $0[1] as String? ?? "nil"] },
                     books: try Row.fetchAll(db, sql: "SELECT Z_PK, ZTITLE, ZAUTHOR FROM ZBOOK ORDER BY Z_PK").map { ["\($0[0] as Int64)", $0[1] as String? ?? "nil", "\($0[2] as Int64)"] })
        }
    }

    // MARK: - Parent

    /// Starts a child test (`migrationChild`, or `holderChild`) on a store; returns the process and its output pipe.
    static func startChild(_ url: URL, variable: String = childVariable, test: String = "migrationChild") throws -> (Process, Pipe) {
        var executable = CommandLine.arguments[0]
        if !executable.hasPrefix("/") { executable = FileManager.default.currentDirectoryPath + "/" + executable }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--testing-library", "swift-testing", "--filter", test]
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = url.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        // Never written: it keeps the child waiting after the migration until it is killed.
        process.standardInput = Pipe()
        try process.run()
        let pid = process.processIdentifier
        // A watchdog so a stuck child cannot hang the suite (no timing is asserted).
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { if process.isRunning { kill(pid, SIGKILL) } }
        return (process, output)
    }

    /// Reads the child's output until `line` appears or the output ends.
    static func wait(for line: String, in pipe: Pipe) -> String {
        var text = ""
        while !text.contains(line + "\n") {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        return text
    }

    @Test("SIGKILL at random points of an in-place migration: every reopen finds the untouched old store or the complete new one, and the migration then completes")
    func killedMidMigration() throws {
        let template = try Self.makeTemplate()
        let expected = try Self.contents(of: template)
        #expect(expected.authors.count == Self.authors && expected.books.count == Self.authors * Self.booksPerAuthor)

        // One whole run first: the child migrates completely, and how long that takes spreads the kills.
        let whole = try Self.copy(template)
        let (process, output) = try Self.startChild(whole)
        let ready = Self.wait(for: "READY", in: output)
        let started = Date()
        let rest = Self.wait(for: "MIGRATED", in: output)
        let duration = Date().timeIntervalSince(started)
        #expect(rest.contains("MIGRATED"), "the child failed: \(ready)\(rest)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(try Self.state(of: whole, expected: expected) == .new)

        var outcomes: [State: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<Self.rounds {
            let url = try Self.copy(template)
            let (child, pipe) = try Self.startChild(url)
            let delay: Double
            if round % 8 == 0 {
                // Very early: while the child starts, before it opens the store.
                delay = Double.random(in: 0...0.02, using: &generator)
                usleep(useconds_t(delay * 1_000_000))
            } else {
                // From the open to a little past the commit, most of it during the copy.
                _ = Self.wait(for: "READY", in: pipe)
                delay = Double.random(in: 0...(duration * 1.2), using: &generator)
                usleep(useconds_t(delay * 1_000_000))
            }
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            // The child never exits on its own: every round is a kill.
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the child exited with \(child.terminationStatus)")
            let walBytes = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
            let state = try Self.state(of: url, expected: expected)
            outcomes[state, default: 0] += 1

            // Reopened with the migration options, the store migrates (again, or not at all).
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.version2())
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.migrate)
            try coordinator.remove(store)
            #expect(try Self.state(of: url, expected: expected) == .new,
                    "round \(round): killed after \(delay) s (\(state), \(walBytes) bytes of WAL) and reopened")
            try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
        }
        // The early kills always find the old store.
        #expect((outcomes[.old] ?? 0) >= (Self.rounds + 7) / 8, "\(outcomes)")
    }
}
