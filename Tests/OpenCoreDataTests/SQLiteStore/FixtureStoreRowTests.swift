import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Every row of every entity of every Apple fixture store, read through a context with the
/// store's own model (its `.xcdatamodel`, or the store's `Z_MODELCACHE` where the model was
/// built in code), and compared value by value with what SQLite holds.
@Suite("Apple fixture stores, row by row", .enabled(if: Fixtures.enabled, "shared/fixtures not found beside the package; set OPENCOREDATA_FIXTURES"))
struct FixtureStoreRowTests {
    /// Store → model, as `shared/tools/verify_fixtures.py` pairs them; nil model = the store's Z_MODELCACHE.
    static let pairs: [(store: String, model: String?)] = [
        ("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite", "CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"),
        ("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite", "CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        ("CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite", "CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel"),
        ("CoreDataPlus-2018/Tests/SampleModelV1.sqlite", "CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        ("CoreDataPlus-2018/Tests/SampleModelV2.sqlite", "CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite",
         "CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example.xcdatamodel"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite",
         "CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 2.xcdatamodel"),
        ("CoreDataMigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_3.sqlite",
         "CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 3.xcdatamodel"),
        ("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite", nil),
        ("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite", nil),
    ]

    private static func rawQueue(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: SQLiteReadOnlyLocation.forReading(url).path, configuration: configuration)
    }

    /// The model a fixture store is read with: its model file, or its own `Z_MODELCACHE`.
    static func model(for pair: (store: String, model: String?), copy: URL) throws -> NSManagedObjectModel {
        if let path = pair.model {
            return try NSManagedObjectModel.load(contentsOf: Fixtures.require().appendingPathComponent("models").appendingPathComponent(path))
        }
        let queue = try Self.rawQueue(copy)
        defer { try? queue.close() }
        let cache = try #require(try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") })
        return try NSManagedObjectModel.fromModelCache(cache)
    }

    @Test("Every row of every entity reads with the values and relationships SQLite holds", arguments: 0..<pairs.count)
    func everyRow(index: Int) throws {
        let pair = Self.pairs[index]
        let copy = try Fixtures.copy(Fixtures.store(pair.store))
        let before = try Data(contentsOf: copy)
        let model = try Self.model(for: pair, copy: copy)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: copy)
        let differing = model.entitiesDiffering(fromStoreMetadata: metadata, configuration: nil)
        var options: [AnyHashable: Any] = [NSReadOnlyPersistentStoreOption: true]
        if pair.model == nil && !differing.isEmpty {
            // Models with derived attributes do not hash like Apple's yet (formats.md §4,
            // "UNVERIFIED parts"); read the rows anyway through the inspection option.
            withKnownIssue("Version hashes of \(differing) from Z_MODELCACHE differ (derived attributes, §4)") {
                #expect(differing.isEmpty)
            }
            options[OCDReadOnlyIgnoringVersionHashesOption] = true
        } else {
            #expect(differing.isEmpty, "\(pair.store): \(differing)")
        }
        let context = try TestModels.sqliteContext(model, url: copy, options: options)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first?.backend as? SQLiteStore)
        let raw = try Self.rawQueue(copy)
        defer { try? raw.close() }
        var rowsRead = 0
        try context.performAndWait {
            for entity in store.schema.entities {
                guard let name = entity.name, let table = store.schema.table(for: entity) else { continue }
                let request = NSFetchRequest<NSManagedObject>(entityName: name)
                request.includesSubentities = false
                let objects = try context.fetch(request)
                let number = store.schema.entityNumber(of: entity)
                let rows = try raw.read { db in
                    try Row.fetchAll(db, sql: "SELECT * FROM \(table.name) WHERE Z_ENT = ?", arguments: [number])
                }
                #expect(objects.count == rows.count, "\(pair.store) \(name)")
                let byKey = Dictionary(uniqueKeysWithValues: rows.map { ($0["Z_PK"] as Int64, $0) })
                for object in objects {
                    let row = try #require(byKey[object.objectID.primaryKey])
                    try compare(object, with: row, table: table, raw: raw, schema: store.schema, label: "\(pair.store) \(name) p\(object.objectID.primaryKey)")
                    rowsRead += 1
                }
                context.reset()
            }
        }
        #expect(rowsRead > 0)
        #expect(try Data(contentsOf: copy) == before)
    }

    private func compare(_ object: NSManagedObject, with row: Row, table: SQLTable, raw: DatabaseQueue, schema: SQLStoreSchema, label: String) throws {
        for property in object.entity.properties where property.isStored {
            guard let column = table.valueColumn(for: property) else {
                if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                    try compareToMany(object, relationship, raw: raw, schema: schema, label: label)
                }
                continue
            }
            let stored = row[column.name] as DatabaseValue
            if let relationship = property as? NSRelationshipDescription {
                let destination = object.value(forKey: relationship.name) as? NSManagedObject
                #expect(destination?.objectID.primaryKey == (stored.isNull ? nil : row[column.name] as Int64), "\(label).\(relationship.name)")
                continue
            }
            guard let attribute = property as? NSAttributeDescription else { continue }
            let value = object.value(forKey: attribute.name)
            switch (attribute.attributeType, stored.storage) {
            case (_, .null):
                if attribute.attributeType != .transformableAttributeType { #expect(value == nil, "\(label).\(attribute.name)") }
            case (.stringAttributeType, .string(let text)):
                #expect(value as? String == text, "\(label).\(attribute.name)")
            case (.URIAttributeType, .string(let text)):
                #expect((value as? URL)?.absoluteString == text, "\(label).\(attribute.name)")
            case (.integer16AttributeType, .int64(let int)), (.integer32AttributeType, .int64(let int)), (.integer64AttributeType, .int64(let int)):
                #expect((value as? NSNumber)?.int64Value == int, "\(label).\(attribute.name)")
            case (.booleanAttributeType, .int64(let int)):
                #expect(value as? Bool == (int != 0), "\(label).\(attribute.name)")
            case (.dateAttributeType, .double(let seconds)), (.doubleAttributeType, .double(let seconds)), (.floatAttributeType, .double(let seconds)):
                let number = (value as? Date)?.timeIntervalSinceReferenceDate ?? (value as? NSNumber)?.doubleValue
                #expect(number.map { abs($0 - seconds) <= abs(seconds) * 1e-6 } == true, "\(label).\(attribute.name)")
            case (.decimalAttributeType, .double(let double)):
                #expect((value as? NSDecimalNumber).map { SQLValueCoding.double(from: $0.decimalValue) } == double, "\(label).\(attribute.name)")
            case (.UUIDAttributeType, .blob(let bytes)):
                #expect((value as? UUID).map(SQLValueCoding.uuidBytes) == bytes, "\(label).\(attribute.name)")
            case (.binaryDataAttributeType, .blob(let bytes)):
                #expect(value as? Data == bytes, "\(label).\(attribute.name)")
            case (.transformableAttributeType, _):
                break // decoded by the app's value transformer, which the fixtures' apps registered
            default:
                Issue.record("\(label).\(attribute.name): unexpected \(attribute.attributeType.xmlName) stored as \(stored)")
            }
        }
    }

    private func compareToMany(_ object: NSManagedObject, _ relationship: NSRelationshipDescription, raw: DatabaseQueue, schema: SQLStoreSchema, label: String) throws {
        let destinations = Set(object.objectIDs(forRelationshipNamed: relationship.name).map(\.primaryKey))
        let key = object.objectID.primaryKey
        let expected: Set<Int64>
        if let join = schema.joinTable(for: relationship) {
            let access = join.access(for: relationship)
            expected = Set(try raw.read { db in
                try Int64.fetchAll(db, sql: "SELECT \(access.otherColumn) FROM \(join.name) WHERE \(access.selfColumn) = ?", arguments: [key])
            })
        } else if let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity,
                  let table = schema.table(for: destination), let column = table.valueColumn(for: inverse) {
            expected = Set(try raw.read { db in
                try Int64.fetchAll(db, sql: "SELECT Z_PK FROM \(table.name) WHERE \(column.name) = ?", arguments: [key])
            })
        } else {
            return
        }
        #expect(destinations == expected, "\(label).\(relationship.name)")
    }
}
