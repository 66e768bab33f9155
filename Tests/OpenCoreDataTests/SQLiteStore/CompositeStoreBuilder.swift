import Foundation
import GRDB
@testable import OpenCoreData

/// A store laid out as SwiftData (framework 1414) lays out composite attributes, made with SQL
/// from the facts in shared/docs/wave3-research.md §5, with its own data: a struct composite
/// (`author`, whose element `id` takes `ZID` so the entity's `id` is `ZID1`), a raw-value enum
/// (`glasswareType`, `collection`), an enum without raw values (`style`, one column per case),
/// an array element (`notes.tags`, JSON text in a BLOB) and a nested composite (`origin.geo`).
/// The CLI tests compile this file too, through a symbolic link (Tests/CoreDataCLITests/Support).
enum CompositeStoreBuilder {
    static func element(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        return attribute
    }

    static func composite(_ name: String, _ elements: [NSAttributeDescription], optional: Bool = true,
                          userInfo: [AnyHashable: Any]? = nil) -> NSCompositeAttributeDescription {
        let composite = NSCompositeAttributeDescription()
        composite.name = name
        composite.elements = elements
        composite.isOptional = optional
        composite.userInfo = userInfo
        return composite
    }

    /// The model, as SwiftData would declare it (property order as declared, not sorted).
    static func model() -> NSManagedObjectModel {
        let cocktail = NSEntityDescription()
        cocktail.name = "Cocktail"
        cocktail.managedObjectClassName = "NSManagedObject"
        cocktail.properties = [
            element("id", .UUIDAttributeType, optional: false),
            element("name", .stringAttributeType),
            composite("author", [element("id", .UUIDAttributeType), element("person", .stringAttributeType),
                                 element("place", .stringAttributeType), element("year", .integer64AttributeType)]),
            composite("glasswareType", [element("glasswareType", .stringAttributeType)], optional: false, userInfo: ["EnumType": true]),
            composite("collection", [element("collection", .integer64AttributeType)], userInfo: ["EnumType": true]),
            composite("style", [element("algonquin", .stringAttributeType), element("alaska", .stringAttributeType)],
                      userInfo: ["EnumType": true, "enum": ["algonquin", "alaska"]]),
            composite("notes", [element("tags", .binaryDataAttributeType), element("rating", .doubleAttributeType)]),
            composite("origin", [composite("geo", [element("lat", .doubleAttributeType, optional: false),
                                                   element("lon", .doubleAttributeType, optional: false)]),
                                 element("city", .stringAttributeType)]),
        ]
        let model = NSManagedObjectModel()
        model.entities = [cocktail]
        return model
    }

    /// The table as written by hand from §5's rules (columns grouped by type, as Apple groups them).
    static let tableSQL = """
        CREATE TABLE ZCOCKTAIL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZYEAR INTEGER, ZCOLLECTION INTEGER, \
        ZRATING FLOAT, ZLAT FLOAT, ZLON FLOAT, ZNAME VARCHAR, ZPERSON VARCHAR, ZPLACE VARCHAR, ZGLASSWARETYPE VARCHAR, \
        ZALGONQUIN VARCHAR, ZALASKA VARCHAR, ZCITY VARCHAR, ZID1 BLOB, ZID BLOB, ZTAGS BLOB )
        """

    static let authorID = UUID(uuidString: "CD7A235F-5C1B-4E11-9A4E-2B8A4C1D9E01")!
    static let cocktailIDs = [UUID(uuidString: "0A000000-0000-4000-8000-000000000001")!,
                              UUID(uuidString: "0A000000-0000-4000-8000-000000000002")!,
                              UUID(uuidString: "0A000000-0000-4000-8000-000000000003")!]
    static let tagsJSON = #"["Grapefruit","Anise"]"#

    /// Writes the store: Apple's fixed tables, the metadata and model cache, and three rows.
    static func makeStore(at url: URL) throws {
        let model = model()
        let queue = try DatabaseQueue(path: url.path)
        let hashes = model.entityVersionHashesByName
        let metadata: [String: Any] = [
            "NSStoreType": "SQLite", "NSStoreModelVersionHashes": hashes, "NSStoreModelVersionHashesVersion": 3,
            "NSPersistenceFrameworkVersion": 1414, "NSStoreModelVersionIdentifiers": [""], "_NSAutoVacuumLevel": "2",
        ]
        let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        let bytes = { (uuid: UUID) in withUnsafeBytes(of: uuid.uuid) { Data($0) } }
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
            try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            try db.execute(sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
            try db.execute(sql: tableSQL)
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Cocktail', 0, 3)")
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, 'B2F3C9A1-6D1E-4C7A-9F3B-0D5E7A1C2B40', ?)", arguments: [plist])
            try db.execute(sql: "INSERT INTO Z_MODELCACHE VALUES (?)", arguments: [ModelCacheArchiver.modelCache(model)])
            let insert = """
                INSERT INTO ZCOCKTAIL (Z_PK, Z_ENT, Z_OPT, ZID1, ZNAME, ZID, ZPERSON, ZPLACE, ZYEAR, ZGLASSWARETYPE, ZCOLLECTION,
                    ZALGONQUIN, ZALASKA, ZTAGS, ZRATING, ZLAT, ZLON, ZCITY) VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            try db.execute(sql: insert, arguments: [1, bytes(cocktailIDs[0]), "Algonquin", bytes(authorID), "Ann", "Paris", 1920, "coupe", 2,
                                                    "algonquin", nil, Data(tagsJSON.utf8), 4.5, 48.85, 2.35, "Paris"])
            try db.execute(sql: insert, arguments: [2, bytes(cocktailIDs[1]), "Alaska", nil, nil, nil, nil, "rocks", nil,
                                                    nil, "alaska", nil, nil, 40.7, -74.0, nil])
            try db.execute(sql: insert, arguments: [3, bytes(cocktailIDs[2]), "Bijou", nil, "Bea", nil, 1890, "coupe", 1,
                                                    nil, nil, nil, 3.0, nil, nil, nil])
        }
        try queue.close()
    }
}
