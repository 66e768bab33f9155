import Foundation
import GRDB
@testable import OpenCoreData

/// Models and handmade stores for the to-many-without-inverse suites: Apple's layout as read
/// from a store SwiftData wrote (wave3-research §5: `ZINGREDIENT.Z1SPEC`, its index, no join
/// table), and the join-table layout earlier OpenCoreData versions wrote.
enum NoInverseStores {
    typealias M = TestModels

    /// `Cocktail` (entity 1: `name`, `spec` → Ingredient, to-many, no inverse) and `Ingredient`
    /// (entity 2: `value`, `unit`), like §5's `Cocktail.spec: [Ingredient]`.
    static func model(rule: NSDeleteRule = .cascadeDeleteRule) -> NSManagedObjectModel {
        let ingredient = M.entity("Ingredient", [M.attribute("value", .doubleAttributeType), M.attribute("unit", .stringAttributeType)])
        let cocktail = M.entity("Cocktail", [M.attribute("name", .stringAttributeType)])
        cocktail.properties += [M.relationship("spec", to: ingredient, toMany: true, deleteRule: rule)]
        let model = NSManagedObjectModel()
        model.entities = [cocktail, ingredient]
        return model
    }

    /// Apple's tables for `model()`, written by hand from §5's facts.
    static let appleTables = [
        "CREATE TABLE ZCOCKTAIL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE TABLE ZINGREDIENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z1SPEC INTEGER, ZVALUE FLOAT, ZUNIT VARCHAR )",
        "CREATE INDEX ZINGREDIENT_Z1SPEC_INDEX ON ZINGREDIENT (Z1SPEC)",
    ]

    /// The join-table layout OpenCoreData wrote before Apple's was known ("named as if it were
    /// the owner, with its own name in both columns").
    static let legacyTables = [
        "CREATE TABLE ZCOCKTAIL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE TABLE ZINGREDIENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZVALUE FLOAT, ZUNIT VARCHAR )",
        "CREATE TABLE Z_1SPEC ( Z_1SPEC INTEGER, Z_2SPEC INTEGER, PRIMARY KEY (Z_1SPEC, Z_2SPEC) )",
        "CREATE INDEX Z_1SPEC_Z_2SPEC_INDEX ON Z_1SPEC (Z_2SPEC, Z_1SPEC)",
    ]

    /// Negroni (1) holds ingredients 1, 2, 3; Martini (2) holds 4; ingredient 5 has no owner.
    static let cocktailRows = "INSERT INTO ZCOCKTAIL (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 1, 1, 'Negroni'), (2, 1, 1, 'Martini')"
    static let ingredients: [(key: Int, owner: Int?, value: Double, unit: String)] = [
        (1, 1, 1.0, "oz"), (2, 1, 1.0, "oz"), (3, 1, 4.0, "dash"), (4, 2, 5.0, "oz"), (5, nil, 2.0, "cl"),
    ]

    /// A store in Apple's layout, made with SQL alone.
    static func appleStore(model: NSManagedObjectModel = model()) throws -> URL {
        var statements = appleTables + [cocktailRows]
        for row in ingredients {
            statements.append("INSERT INTO ZINGREDIENT (Z_PK, Z_ENT, Z_OPT, Z1SPEC, ZVALUE, ZUNIT) VALUES (\(row.key), 2, 1, \(row.owner.map(String.init) ?? "NULL"), \(row.value), '\(row.unit)')")
        }
        return try store(statements, model: model)
    }

    /// A store in the earlier join-table layout, made with SQL alone; `extraPairs` adds
    /// (cocktail, ingredient) pairs (the old layout let one ingredient be in two cocktails).
    static func legacyStore(model: NSManagedObjectModel = model(), extraPairs: [(Int, Int)] = []) throws -> URL {
        var statements = legacyTables + [cocktailRows]
        for row in ingredients {
            statements.append("INSERT INTO ZINGREDIENT (Z_PK, Z_ENT, Z_OPT, ZVALUE, ZUNIT) VALUES (\(row.key), 2, 1, \(row.value), '\(row.unit)')")
            if let owner = row.owner { statements.append("INSERT INTO Z_1SPEC VALUES (\(owner), \(row.key))") }
        }
        statements += extraPairs.map { "INSERT INTO Z_1SPEC VALUES (\($0.0), \($0.1))" }
        return try store(statements, model: model)
    }

    /// Runs the statements, then writes `Z_PRIMARYKEY`, `Z_METADATA` (the model's hashes) and
    /// `Z_MODELCACHE` as Core Data does.
    private static func store(_ statements: [String], model: NSManagedObjectModel) throws -> URL {
        model.freeze()
        let url = TestStoreFiles.newStoreURL()
        let metadata = try SQLiteMetadata.encode(SQLiteMetadata.initial(for: model))
        try DatabaseQueue(path: url.path).write { db in
            for statement in statements { try db.execute(sql: statement) }
            try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
            try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Cocktail', 0, 2), (2, 'Ingredient', 0, 5)")
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, ?, ?)", arguments: [UUID().uuidString, metadata])
            // The model travels with the store, as in Apple's: a migration finds its source there.
            try SQLiteModelCache.write(model, in: db)
        }
        return url
    }

    /// A context on a coordinator with the store at `url`.
    static func open(_ url: URL, _ model: NSManagedObjectModel = model(), options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Each cocktail's ingredient keys, read with SQL from whichever layout the store has.
    static func storedMembers(_ url: URL) throws -> [Int: [Int]] {
        try DatabaseQueue(path: url.path).read { db in
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            let sql = tables.contains("Z_1SPEC") ? "SELECT Z_1SPEC, Z_2SPEC FROM Z_1SPEC" : "SELECT Z1SPEC, Z_PK FROM ZINGREDIENT WHERE Z1SPEC IS NOT NULL"
            var members: [Int: [Int]] = [:]
            for row in try Row.fetchAll(db, sql: sql) { members[row[0], default: []].append(row[1]) }
            return members.mapValues { $0.sorted() }
        }
    }

    /// The `sql` of every table and index, by name.
    static func schemaObjects(_ url: URL) throws -> [String: String] {
        try DatabaseQueue(path: url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL")
                .reduce(into: [String: String]()) { result, row in result[row["name"]] = row["sql"] }
        }
    }
}

extension NSManagedObject {
    /// The `Z_PK`s of a to-many's members, sorted.
    func memberKeys(_ key: String) -> [Int] {
        (((value(forKey: key) as? NSSet)?.allObjects as? [NSManagedObject]) ?? []).map { Int($0.objectID.primaryKey) }.sorted()
    }
}
