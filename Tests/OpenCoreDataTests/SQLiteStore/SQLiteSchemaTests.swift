import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// What OpenCoreData writes for the seed to-do model (formats.md §5 predicts it).
@Suite("SQLite schema and metadata")
struct SQLiteSchemaTests {
    /// Creates a store for a model and returns its URL.
    private func createStore(_ model: NSManagedObjectModel) throws -> URL {
        let url = TestStoreFiles.newStoreURL()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        try coordinator.remove(store)
        return url
    }

    private func readOnly(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    @Test("The seed to-do model gets Apple's tables, columns and indexes")
    func seedSchema() throws {
        let url = try createStore(FixtureModels.arnosoloTodo())
        let queue = try readOnly(url)
        let schema = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                .reduce(into: [String: String]()) { result, row in result[row["name"]] = row["sql"] }
        }
        #expect(schema["ZLOCATIONENTITY"] == "CREATE TABLE ZLOCATIONENTITY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZALTITUDE FLOAT, ZLATITUDE FLOAT, ZLONGITUDE FLOAT, ZID VARCHAR, ZPLACENAME VARCHAR )")
        #expect(schema["ZTAGENTITY"] == "CREATE TABLE ZTAGENTITY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOMPLETEDAT TIMESTAMP, ZCREATEDAT TIMESTAMP, ZUPDATEDAT TIMESTAMP, ZTAGID VARCHAR, ZTITLE VARCHAR )")
        #expect(schema["ZTODOENTITY"] == "CREATE TABLE ZTODOENTITY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLOCATION INTEGER, ZCOMPLETEDAT TIMESTAMP, ZCREATEDAT TIMESTAMP, ZUPDATEDAT TIMESTAMP, ZTITLE VARCHAR, ZTODOID VARCHAR )")
        #expect(schema["Z_2TODOS"] == "CREATE TABLE Z_2TODOS ( Z_2TAGS INTEGER, Z_3TODOS INTEGER, PRIMARY KEY (Z_2TAGS, Z_3TODOS) )")
        #expect(schema["Z_2TODOS_Z_3TODOS_INDEX"] == "CREATE INDEX Z_2TODOS_Z_3TODOS_INDEX ON Z_2TODOS (Z_3TODOS, Z_2TAGS)")
        #expect(schema["ZTODOENTITY_ZLOCATION_INDEX"] == "CREATE INDEX ZTODOENTITY_ZLOCATION_INDEX ON ZTODOENTITY (ZLOCATION)")
        #expect(schema["Z_PRIMARYKEY"] == "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        #expect(schema["Z_METADATA"] == "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        #expect(schema.keys.filter { !$0.hasPrefix("sqlite_") }.sorted() == [
            "ZLOCATIONENTITY", "ZTAGENTITY", "ZTODOENTITY", "ZTODOENTITY_ZLOCATION_INDEX", "Z_2TODOS", "Z_2TODOS_Z_3TODOS_INDEX", "Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY",
        ])
        #expect(schema["Z_MODELCACHE"] == "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        let keys = try queue.read { db in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") }
        #expect(keys.map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int) \($0[3] as Int)" } == ["1 LocationEntity 0 0", "2 TagEntity 0 0", "3 TodoEntity 0 0"])
        let (autoVacuum, journal) = try queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA auto_vacuum"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        #expect(autoVacuum == 2)
        #expect(journal == "wal")
    }

    @Test("Z_METADATA holds Apple's keys with the hashes versionhash.py computes")
    func seedMetadata() throws {
        let url = try createStore(FixtureModels.arnosoloTodo())
        let (uuid, plist) = try readOnly(url).read { db -> (String?, Data?) in
            let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
            return (row?[0], row?[1])
        }
        let metadata = try SQLiteMetadata.decode(try #require(plist))
        #expect(metadata[NSStoreTypeKey] as? String == "SQLite")
        #expect((metadata[NSStoreModelVersionHashesVersionKey] as? NSNumber)?.intValue == 3)
        #expect((metadata[NSPersistenceFrameworkVersionKey] as? NSNumber)?.intValue == SQLiteMetadata.frameworkVersion)
        #expect(metadata["_NSAutoVacuumLevel"] as? String == "2")
        #expect((metadata[NSStoreModelVersionIdentifiersKey] as? [Any])?.isEmpty == true)
        #expect(metadata[NSStoreUUIDKey] == nil)
        let hashes = NSManagedObjectModel.versionHashes(inStoreMetadata: metadata).mapValues { $0.map { String(format: "%02x", $0) }.joined() }
        // python3 shared/tools/versionhash.py …/demo5_todo_list.xcdatamodel/contents
        #expect(hashes == [
            "LocationEntity": "d589b1339c5b991ddeba0ad4edd7e5d390963a8d8cccdfcea7864bb99fb90861",
            "TagEntity": "da179a75bc3100d06a837df737ea8b9f3e4f7f4780ff43e01b8a137b011e8db2",
            "TodoEntity": "3f0d2ae43b9e3362fb6dc8e8a82e46c1a8697824f1adff52745364f31abcdc2f",
        ])
        #expect(metadata[NSStoreModelVersionHashesDigestKey] as? String == "FTNb/sWg1uHwTHi8pKj6Dq7kcz5QHZsXDkEcXeFEOEyDpagZmM02mW//UUJKTnNYfyX2Bo0QlzhFRmbGlFPnvA==")
        #expect(metadata[NSStoreModelVersionChecksumKey] as? String == "f5KxjVE3FcFH7k3d+Xessy86woB4UiVzMNnE0scM8fc=")

        let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(read[NSStoreUUIDKey] as? String == uuid)
        #expect(UUID(uuidString: uuid ?? "") != nil && uuid == uuid?.uppercased())
        #expect(FixtureModels.arnosoloTodo().isConfiguration(withName: nil, compatibleWithStoreMetadata: read))
        #expect(!TestModels.todoModel().isConfiguration(withName: nil, compatibleWithStoreMetadata: read))
    }

    @Test("Inheritance, constraints, fetch indexes and entity-type columns as Apple names them")
    func inheritanceSchema() throws {
        let model = FixtureModels.coreDataPlusSampleModelV1()
        let car = model.entitiesByName["Car"]!
        car.indexes = [NSFetchIndexDescription(name: "byMakerAndNumberPlate", elements: [
            NSFetchIndexElementDescription(property: car.propertiesByName["maker"]!, collationType: .binary),
            NSFetchIndexElementDescription(property: car.propertiesByName["numberPlate"]!, collationType: .binary),
        ])]
        let url = try createStore(model)
        let schema = try readOnly(url).read { db in
            try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL")
                .reduce(into: [String: String]()) { result, row in result[row["name"]] = row["sql"] }
        }
        // The same text as in the fixture SampleModel_V1.sqlite / SampleModel_V2.sqlite.
        #expect(schema["ZCAR"] == "CREATE TABLE ZCAR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, ZISLIMITEDEDITION INTEGER, ZMARKEDFORDELETIONASOF TIMESTAMP, ZMAKER VARCHAR, ZMODEL VARCHAR, ZNUMBERPLATE VARCHAR, ZCOLOR BLOB )")
        #expect(schema["ZPERSON"] == "CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZUPDATEDAT TIMESTAMP, ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR, ZID BLOB )")
        #expect(schema["ZCAR_ZOWNER_INDEX"] == "CREATE INDEX ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER)")
        #expect(schema["ZCAR_Z_ENT_INDEX"] == "CREATE INDEX ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT)")
        #expect(schema["Z_Car_UNIQUE_numberPlate"] == "CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)")
        #expect(schema["Z_Person_UNIQUE_firstName_lastName"] == "CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)")
        #expect(schema["Z_Car_byMakerAndNumberPlate"] == "CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)")
        #expect(schema["ZPERSON_Z_ENT_INDEX"] == nil)

        let vehicles = TestModels.vehicleModel()
        let vehicleURL = try createStore(vehicles)
        let garage = try readOnly(vehicleURL).read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'ZGARAGE'") }
        // Garage.favourite points at Vehicle, which has subentities: Z<n>_FAVOURITE holds the row's Z_ENT.
        #expect(garage == "CREATE TABLE ZGARAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFAVOURITE INTEGER, Z2_FAVOURITE INTEGER, ZCITY VARCHAR )")
    }

    @Test("Z_MAX is bumped once per hierarchy per save; subentities keep 0")
    func primaryKeys() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(TestModels.vehicleModel(), url: url)
        try context.performAndWait {
            for index in 0..<5 {
                let car = NSEntityDescription.insertNewObject(forEntityName: index.isMultiple(of: 2) ? "Car" : "SportsCar", into: context)
                car.setValue("V\(index)", forKey: "name")
            }
            try context.save()
            let extra = NSEntityDescription.insertNewObject(forEntityName: "Car", into: context)
            try context.obtainPermanentIDs(for: [extra])
            #expect(!extra.objectID.isTemporaryID)
            try context.save()
        }
        let rows = try readOnly(url).read { db in try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") }
        #expect(rows.map { "\($0[0] as String) \($0[1] as Int) \($0[2] as Int)" } == ["Garage 0 0", "Vehicle 0 6", "Car 2 0", "SportsCar 3 0"])
        let keys = try readOnly(url).read { db in try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZVEHICLE ORDER BY Z_PK") }
        #expect(keys == [1, 2, 3, 4, 5, 6])
    }
}
