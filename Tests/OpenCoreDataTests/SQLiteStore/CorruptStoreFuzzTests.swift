import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Fuzz targets "corrupt store" and "read-only open": real store files (ours and copies of
/// Apple's fixtures) with random values written into their tables or random bytes changed,
/// then opened read-write (fetched, faulted, saved) or read-only (fetched, faulted).
///
/// What must hold for every input: no trap (a trap ends the test run), every failure an NSError
/// in NSCocoaErrorDomain, a failed open and a read-only open leave every file in the folder
/// byte-identical. Inputs per target: `OCD_STORE_FUZZ_COUNT`, else `OCD_FUZZ_COUNT`, else
/// `defaultCounts`; seed `OCD_FUZZ_SEED` (docs/Fuzzing.md, "Stores").
@Suite("Corrupt-store fuzzing")
struct CorruptStoreFuzzTests {
    /// Inputs per target in a plain `swift test` (and so in CI): 20,000 each. Alone, in a debug
    /// build with the files in /dev/shm, a read-only input costs about 2.5 ms and a read-write one
    /// (an open, fetches, faults and a save) about 3.5 ms; next to the other suites, about twice
    /// that (docs/Fuzzing.md).
    static let defaultCounts: (readOnlyOpen: Int, corruptStore: Int) = (20_000, 20_000)
    /// The inputs per target given in the environment, for every target.
    static let countOverride: Int? = {
        let environment = ProcessInfo.processInfo.environment
        return (environment["OCD_STORE_FUZZ_COUNT"] ?? environment["OCD_FUZZ_COUNT"]).flatMap(Int.init)
    }()
    /// The inputs a target runs: the override, else its default.
    static func count(for target: Target) -> Int {
        countOverride ?? (target == .readOnlyOpen ? defaultCounts.readOnlyOpen : defaultCounts.corruptStore)
    }
    static let seed: UInt64 = ProcessInfo.processInfo.environment["OCD_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5107_E14

    /// A store to mutate: its bytes (closed), the `-wal` and `-shm` a writer left beside it (or
    /// none), and the model to open it with.
    struct Base {
        let name: String
        let bytes: Data
        var wal: Data?
        var shm: Data?
        let model: NSManagedObjectModel
        let isOurs: Bool
    }

    static func bases() throws -> [Base] {
        let ours = try HardeningStores.todoStore()
        var bases = [Base(name: "todo", bytes: try Data(contentsOf: ours), model: TestModels.todoModel(), isOurs: true)]
        guard Fixtures.root != nil else { return bases }
        for pair in FixtureStoreRowTests.pairs where pair.model != nil {
            let copy = try Fixtures.copy(Fixtures.store(pair.store))
            bases.append(Base(name: pair.store, bytes: try Data(contentsOf: copy), model: try FixtureStoreRowTests.model(for: pair, copy: copy), isOurs: false))
        }
        return bases
    }

    /// A store whose last rows are still in its -wal, with its writer's -shm: its inputs damage
    /// the log or the index (issue 30, Must 6: a damaged log beside a stale index). Its inputs
    /// come from a generator of their own, after the other bases', so those keep their sequence.
    static func loggedBase() throws -> Base {
        let logged = try StaleIndexTests.storeWithCheckpointAndWAL()
        return Base(name: "todo-wal", bytes: try Data(contentsOf: logged), wal: try Data(contentsOf: URL(fileURLWithPath: logged.path + "-wal")),
                    shm: try Data(contentsOf: URL(fileURLWithPath: logged.path + "-shm")), model: TestModels.todoModel(), isOurs: true)
    }

    // MARK: - Mutations

    /// A random SQLite value: the types and edge values a damaged file can hold.
    static func randomValue(_ random: inout SeededGenerator) -> (sql: String, argument: DatabaseValue) {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return ("?", .null)
        case 1: return ("?", [Int64.max, Int64.min, -1, 0, 1, Int64(Int32.max) + 1, 65_536].randomElement(using: &random)!.databaseValue)
        case 2: return ("?", Int64.random(in: -1000...1000, using: &random).databaseValue)
        case 3: return ("?", Int64.random(in: Int64.min...Int64.max, using: &random).databaseValue)
        case 4: return ("?", [1e300, -1e300, 0.5, -0.0, 9.3e18, Double.infinity].randomElement(using: &random)!.databaseValue)
        case 5: return ("?", String((0..<Int.random(in: 0...12, using: &random)).map { _ in Character(UnicodeScalar(UInt8.random(in: 32...126, using: &random))) }).databaseValue)
        case 6: return ("CAST(? AS TEXT)", randomBytes(&random).databaseValue)  // text that is not UTF-8
        case 7: return ("?", randomBytes(&random).databaseValue)
        case 8: return ("?", (Data("bplist00".utf8) + randomBytes(&random)).databaseValue)
        case 9: return ("?", ["TodoEntity", "", "Z_METADATA", "\u{0}", "é"].randomElement(using: &random)!.databaseValue)
        case 10: return ("?", (try? PropertyListSerialization.data(fromPropertyList: ["NSStoreType": 7, "NSStoreModelVersionHashes": ["TodoEntity": 1]], format: .binary, options: 0))?.databaseValue ?? .null)
        default: return ("?", Data(repeating: 0xFF, count: Int.random(in: 0...64, using: &random)).databaseValue)
        }
    }

    static func randomBytes(_ random: inout SeededGenerator) -> Data {
        Data((0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// Writes a random value into a random row and column of a random table (Core Data's own
    /// tables more often); a write SQLite refuses (a non-integer rowid) leaves the file as it was.
    static func mutateValue(_ url: URL, _ random: inout SeededGenerator) throws {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            guard !tables.isEmpty else { return }
            let table: String
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2 where tables.contains("Z_PRIMARYKEY"): table = "Z_PRIMARYKEY"
            case 3...4 where tables.contains("Z_METADATA"): table = "Z_METADATA"
            default: table = tables.randomElement(using: &random)!
            }
            let columns = try db.columns(in: table).map(\.name)
            guard let column = columns.randomElement(using: &random) else { return }
            let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") ?? 0
            guard rows > 0 else { return }
            let value = randomValue(&random)
            let offset = Int.random(in: 0..<rows, using: &random)
            let sql = "UPDATE \"\(table)\" SET \"\(column)\" = \(value.sql) WHERE rowid = (SELECT rowid FROM \"\(table)\" ORDER BY rowid LIMIT 1 OFFSET \(offset))"
            do { try db.execute(sql: sql, arguments: [value.argument]) } catch {}
        }
    }

    /// Changes a few bytes: in the header half the time, anywhere the rest; sometimes truncates.
    static func mutateBytes(_ data: inout Data, _ random: inout SeededGenerator) {
        if Int.random(in: 0..<10, using: &random) == 0 {
            data = data.prefix(Int.random(in: 0...data.count, using: &random))
            return
        }
        for _ in 0..<Int.random(in: 1...6, using: &random) where !data.isEmpty {
            let offset = Bool.random(using: &random) ? Int.random(in: 0..<min(100, data.count), using: &random) : Int.random(in: 0..<data.count, using: &random)
            data[offset] = UInt8.random(in: 0...255, using: &random)
        }
    }

    // MARK: - Running an input

    /// Reads everything a context can reach: every entity's objects, their values and relationships.
    static func exercise(_ context: NSManagedObjectContext, model: NSManagedObjectModel, save: Bool) -> [NSError] {
        var errors: [NSError] = []
        context.performAndWait {
            for entity in model.entities {
                guard let name = entity.name else { continue }
                do {
                    let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: name))
                    _ = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: name))
                    for object in objects.prefix(8) {
                        for property in entity.propertiesByName.keys {
                            if let set = object.value(forKey: property) as? Set<NSManagedObject> { _ = set.map(\.objectID) }
                        }
                    }
                    if save, let first = objects.first {
                        if let attribute = entity.attributesByName.first(where: { $0.value.attributeType == .stringAttributeType })?.key {
                            first.setValue("fuzzed", forKey: attribute)
                        }
                        if objects.count > 1 { context.delete(objects[objects.count - 1]) }
                    }
                } catch let error as NSError {
                    errors.append(error)
                }
            }
            guard save else { return }
            if model.entitiesByName["TodoEntity"] != nil {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("new", forKey: "title")
            }
            do { try context.save() } catch let error as NSError { errors.append(error) }
        }
        return errors
    }

    private func removeStores(_ context: NSManagedObjectContext) {
        context.performAndWait {
            let coordinator = context.persistentStoreCoordinator!
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
    }

    /// What a target does with each mutated file.
    enum Target {
        /// Open read-only, read everything; nothing may change, opened or not.
        case readOnlyOpen
        /// Open read-write, read everything, change and save; a failed open writes nothing.
        case corruptStore
    }

    /// One input: a mutated copy of a base store, run through a target.
    @discardableResult
    private func run(_ target: Target, _ base: Base, input: Int, random: inout SeededGenerator) throws -> String {
        let url = TestStoreFiles.newStoreURL(in: TestStoreFiles.memoryRoot)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var bytes = base.bytes
        let mutation: String
        if var wal = base.wal, var shm = base.shm {
            // The log's header (its salts most often), its frames, or the index.
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                for offset in 16..<24 where Bool.random(using: &random) { wal[offset] = UInt8.random(in: 0...255, using: &random) }
                mutation = "wal salts"
            case 1:
                Self.mutateBytes(&wal, &random)
                mutation = "wal bytes"
            case 2:
                Self.mutateBytes(&shm, &random)
                mutation = "shm bytes"
            default:
                Self.mutateBytes(&wal, &random)
                Self.mutateBytes(&shm, &random)
                mutation = "wal and shm bytes"
            }
            try bytes.write(to: url)
            try wal.write(to: URL(fileURLWithPath: url.path + "-wal"))
            try shm.write(to: URL(fileURLWithPath: url.path + "-shm"))
        } else {
            let byteMutation = Bool.random(using: &random)
            if byteMutation { Self.mutateBytes(&bytes, &random) }
            try bytes.write(to: url)
            if !byteMutation { try Self.mutateValue(url, &random) }
            mutation = byteMutation ? "bytes" : "value"
        }
        let label = "input \(input) (\(base.name), \(mutation))"
        let before = try StoreFolderSnapshot(of: url)

        switch target {
        case .readOnlyOpen:
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: base.model)
            do {
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                   options: [NSReadOnlyPersistentStoreOption: true, OCDReadOnlyIgnoringVersionHashesOption: true])
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                context.persistentStoreCoordinator = coordinator
                for error in Self.exercise(context, model: base.model, save: false) {
                    #expect(error.domain == NSCocoaErrorDomain, "\(label): \(error)")
                }
                removeStores(context)
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain, "\(label): read-only open: \(error)")
            }
            let after = try StoreFolderSnapshot(of: url)
            #expect(after == before, "\(label): the read-only open changed \(after.differences(from: before))")

        case .corruptStore:
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: base.model)
            do {
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain, "\(label): open: \(error)")
                let after = try StoreFolderSnapshot(of: url)
                #expect(after == before, "\(label): the failed open (\(error.code)) changed \(after.differences(from: before))")
                return label
            }
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            for error in Self.exercise(context, model: base.model, save: true) {
                #expect(error.domain == NSCocoaErrorDomain, "\(label): \(error)")
            }
            removeStores(context)
        }
        return label
    }

    /// Runs `count` inputs through a target and prints the slowest (hangs are reported, not asserted).
    private func fuzz(_ target: Target, seed: UInt64) throws {
        let bases = try Self.bases()
        var random = SeededGenerator(seed: seed)
        var slowest: (input: Int, duration: Duration) = (0, .zero)
        let clock = ContinuousClock()
        let start = clock.now
        let count = Self.count(for: target)
        for input in 0..<count {
            var label = ""
            let duration = try clock.measure { label = try run(target, bases[input % bases.count], input: input, random: &random) }
            if duration > slowest.duration { slowest = (input, duration) }
            // Reported, not asserted (no timing assertions): an input this slow is a hang to look at.
            if duration > .seconds(2) { print("\(target) fuzzing: \(label) took \(duration)") }
        }
        let logged = try Self.loggedBase()
        var loggedRandom = SeededGenerator(seed: seed ^ 0x0057_A1E5)
        for input in count..<(count + max(1, count / 10)) {
            var label = ""
            let duration = try clock.measure { label = try run(target, logged, input: input, random: &loggedRandom) }
            if duration > slowest.duration { slowest = (input, duration) }
            if duration > .seconds(2) { print("\(target) fuzzing: \(label) took \(duration)") }
        }
        print("\(target) fuzzing: \(count) inputs in \(clock.now - start), seed \(seed), slowest input \(slowest.input) took \(slowest.duration)")
    }

    @Test("Corrupt stores opened read-write: no trap, Cocoa errors only, a failed open writes nothing")
    func corruptStores() throws {
        try fuzz(.corruptStore, seed: Self.seed)
    }

    @Test("Corrupt stores opened read-only: no trap, Cocoa errors only, no file created or changed")
    func readOnlyOpens() throws {
        try fuzz(.readOnlyOpen, seed: Self.seed ^ 0x0BAD_F00D)
    }
}
