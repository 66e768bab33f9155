import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Where the shared fixtures are: `$OPENCOREDATA_FIXTURES`, or `../shared/fixtures` beside the package.
enum Fixtures {
    static let root: URL? = {
        if let path = ProcessInfo.processInfo.environment["OPENCOREDATA_FIXTURES"], !path.isEmpty {
            return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let url = package.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("stores").path) ? url : nil
    }()

    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Run fixture tests when the fixtures exist, and in CI (where their absence is a failure).
    static let enabled = root != nil || isCI

    /// The fixtures folder; records an issue when it is missing in CI.
    static func require() throws -> URL {
        guard let root else {
            Issue.record("The shared fixtures are missing (set OPENCOREDATA_FIXTURES or put shared/ beside the package); CI must have them.")
            throw FixtureMissing()
        }
        return root
    }

    struct FixtureMissing: Error {}

    /// Every `.sqlite` store under `stores/`.
    static func allStores() throws -> [URL] {
        let stores = try require().appendingPathComponent("stores")
        let enumerator = FileManager.default.enumerator(at: stores, includingPropertiesForKeys: nil)
        var result: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "sqlite" { result.append(url) }
        }
        return result.sorted { $0.path < $1.path }
    }

    /// Copies a store (and its -wal/-shm files) into a fresh temporary folder; fixtures are never opened in place.
    static func copy(_ store: URL) throws -> URL {
        let target = TestStoreFiles.newStoreURL(store.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: target.path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path + suffix)
        }
        return target
    }

    static func store(_ relative: String) throws -> URL {
        try require().appendingPathComponent("stores").appendingPathComponent(relative)
    }
}

/// Apple-written stores from shared/fixtures/stores, opened read-only (on copies).
@Suite("Apple fixture stores", .enabled(if: Fixtures.enabled, "shared/fixtures not found beside the package; set OPENCOREDATA_FIXTURES"))
struct FixtureStoreTests {
    /// The file's bytes, to show that nothing was written.
    private func fileDigest(_ url: URL) throws -> Data {
        try Data(contentsOf: url)
    }

    private func rawCount(_ url: URL, _ sql: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: SQLiteReadOnlyLocation.forReading(url).path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    private func readOnlyContext(_ model: NSManagedObjectModel, _ url: URL) throws -> NSManagedObjectContext {
        try TestModels.sqliteContext(model, url: url, options: [NSReadOnlyPersistentStoreOption: true])
    }

    @Test("Every fixture store's metadata reads, without changing the file")
    func metadataOfEveryStore() throws {
        let stores = try Fixtures.allStores()
        #expect(stores.count >= 10)
        for original in stores {
            let copy = try Fixtures.copy(original)
            let before = try fileDigest(copy)
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: copy)
            #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType, "\(original.lastPathComponent)")
            #expect(!NSManagedObjectModel.versionHashes(inStoreMetadata: metadata).isEmpty, "\(original.lastPathComponent)")
            #expect(NSManagedObjectModel.versionHashes(inStoreMetadata: metadata).values.allSatisfy { $0.count == 32 })
            #expect((metadata[NSStoreModelVersionHashesVersionKey] as? NSNumber)?.intValue == 3)
            #expect(UUID(uuidString: metadata[NSStoreUUIDKey] as? String ?? "") != nil, "\(original.lastPathComponent)")
            #expect(try fileDigest(copy) == before, "reading metadata changed \(original.lastPathComponent)")
            #expect(!FileManager.default.fileExists(atPath: copy.path + "-shm"), "a -shm file appeared next to \(original.lastPathComponent)")
        }
    }

    @Test("Our version hashes equal those Apple recorded in the fixture stores")
    func versionHashes() throws {
        let pairs: [(NSManagedObjectModel, String)] = [
            (FixtureModels.coreDataPlusSampleModelV1(), "CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite"),
            (FixtureModels.coreDataPlus2018SampleModel3(), "CoreDataPlus-2018/Tests/SampleModelV2.sqlite"),
        ]
        for (model, path) in pairs {
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: Fixtures.copy(Fixtures.store(path)))
            #expect(NSManagedObjectModel.versionHashes(inStoreMetadata: metadata) == model.entityVersionHashesByName, "\(path)")
            #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(path)")
            if let digest = metadata[NSStoreModelVersionHashesDigestKey] as? String {
                #expect(VersionHasher.digest(of: model.entityVersionHashesByName) == digest)
            }
        }
    }

    @Test("SampleModel_V1: inheritance in one table, UUIDs, dates and to-one/to-many relationships read")
    func sampleModelV1() throws {
        let url = try Fixtures.copy(Fixtures.store("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite"))
        let before = try fileDigest(url)
        let carCount = try rawCount(url, "SELECT COUNT(*) FROM ZCAR")
        let personCount = try rawCount(url, "SELECT COUNT(*) FROM ZPERSON")
        let ownedCount = try rawCount(url, "SELECT COUNT(*) FROM ZCAR WHERE ZOWNER IS NOT NULL")
        let expensiveCount = try rawCount(url, "SELECT COUNT(*) FROM ZCAR WHERE Z_ENT = 3")
        let context = try readOnlyContext(FixtureModels.coreDataPlusSampleModelV1(), url)
        try context.performAndWait {
            let cars = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car"))
            #expect(cars.count == carCount)
            #expect(cars.filter { $0.entity.name == "ExpensiveSportCar" }.count == expensiveCount)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "ExpensiveSportCar")) == expensiveCount)
            for car in cars {
                #expect(car.value(forKey: "numberPlate") is String)
                if car.entity.name == "ExpensiveSportCar" { #expect(car.value(forKey: "isLimitedEdition") is Bool) }
            }
            #expect(cars.filter { $0.value(forKey: "owner") != nil }.count == ownedCount)
            let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(people.count == personCount)
            var carsThroughPeople = 0
            for person in people {
                #expect(person.value(forKey: "id") is UUID)
                #expect(person.value(forKey: "updatedAt") is Date)
                let owned = (person.value(forKey: "cars") as? Set<NSManagedObject>) ?? []
                for car in owned { #expect((car.value(forKey: "owner") as? NSManagedObject) === person) }
                carsThroughPeople += owned.count
            }
            #expect(carsThroughPeople == ownedCount)
        }
        #expect(try fileDigest(url) == before)
    }

    @Test("CoreDataPlus-2018 SampleModelV2: the many-to-many join table Z_1PREVIOUSOWNERS reads from both sides")
    func joinTable() throws {
        let url = try Fixtures.copy(Fixtures.store("CoreDataPlus-2018/Tests/SampleModelV2.sqlite"))
        let before = try fileDigest(url)
        let pairs = try rawCount(url, "SELECT COUNT(*) FROM Z_1PREVIOUSOWNERS")
        let firstCarPrevious = try rawCount(url, "SELECT COUNT(*) FROM Z_1PREVIOUSOWNERS WHERE Z_1PREVIOUSCARS = 1")
        let context = try readOnlyContext(FixtureModels.coreDataPlus2018SampleModel3(), url)
        try context.performAndWait {
            let cars = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car"))
            #expect(cars.count == 125)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 20)
            let makers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Maker"))
            #expect(Set(makers.compactMap { $0.value(forKey: "name") as? String }).isSuperset(of: ["FIAT", "Volkswagen", "Renault"]))
            var fromCars = 0
            for car in cars {
                fromCars += ((car.value(forKey: "previousOwners") as? Set<NSManagedObject>) ?? []).count
            }
            #expect(fromCars == pairs)
            var fromPeople = 0
            for person in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) {
                let previous = (person.value(forKey: "previousCars") as? Set<NSManagedObject>) ?? []
                for car in previous {
                    #expect(((car.value(forKey: "previousOwners") as? Set<NSManagedObject>) ?? []).contains(person))
                }
                fromPeople += previous.count
            }
            #expect(fromPeople == pairs)
            let first = try #require(cars.first { $0.objectID.primaryKey == 1 })
            #expect(((first.value(forKey: "previousOwners") as? Set<NSManagedObject>) ?? []).count == firstCarPrevious)
            #expect((first.value(forKey: "createdBy") as? NSManagedObject)?.value(forKey: "name") != nil)
            #expect(first.value(forKey: "model") as? String == "Panda")
            // The store is read-only: a save is refused and nothing is written.
            first.setValue("Changed", forKey: "model")
            #expect(throws: (any Error).self) { try context.save() }
        }
        #expect(try fileDigest(url) == before)
    }

    @Test("A store opened with another model's hashes is refused (134100) and left untouched")
    func incompatibleFixture() throws {
        let url = try Fixtures.copy(Fixtures.store("CoreDataPlus-2018/Tests/SampleModelV2.sqlite"))
        let before = try fileDigest(url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: FixtureModels.coreDataPlusSampleModelV1())
        do {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            Issue.record("An incompatible store opened.")
        } catch let error as NSError {
            #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
            let entities = error.userInfo[OCDMismatchedEntitiesErrorKey] as? [String] ?? []
            #expect(entities.contains("Car"))
            #expect(entities.contains("Maker"))
            #expect(error.localizedDescription.contains("Car"))
        }
        #expect(try fileDigest(url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test("Apple's derived-attribute triggers run on our connections (their SQL functions are registered)")
    func derivedAttributeTriggers() throws {
        let url = try Fixtures.copy(Fixtures.store("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite"))
        let options = try SQLiteStoreOptions(nil)
        let queue = try DatabaseQueue(path: url.path, configuration: options.configuration(label: "test"))
        defer { try? queue.close() }
        let (before, after) = try queue.write { db -> (Int?, Int?) in
            let book = try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ZBOOK ORDER BY Z_PK LIMIT 1") ?? 1
            let before = try Int.fetchOne(db, sql: "SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = ?", arguments: [book])
            try db.execute(sql: "INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZBOOK, Z1_BOOK) VALUES (100000, 4, 1, 999, ?, 1)", arguments: [book])
            return (before, try Int.fetchOne(db, sql: "SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = ?", arguments: [book]))
        }
        #expect(after == (before ?? 0) + 1)
        let matched = try queue.read { db in try Int.fetchOne(db, sql: "SELECT \(SQLiteStoreFunctions.matchesFunctionName)('abc', 'a.c', 0)") }
        #expect(matched == 1)
    }

    @Test("The seed model loaded from its .xcdatamodel writes the same schema as its copy in code")
    func seedModelFromXML() throws {
        let url = try Fixtures.require().appendingPathComponent("models/arnosolo-blog/demo5_todo_list.xcdatamodeld")
        let loaded = try NSManagedObjectModel.load(contentsOf: url)
        let inCode = FixtureModels.arnosoloTodo()
        #expect(loaded.entityVersionHashesByName == inCode.entityVersionHashesByName)
        loaded.freeze()
        inCode.freeze()
        #expect(SQLStoreSchema(model: loaded).creationStatements(in: SQLiteDialect()) == SQLStoreSchema(model: inCode).creationStatements(in: SQLiteDialect()))
    }
}
