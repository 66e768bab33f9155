import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Pins down how predicates lower to SQL: the statement text (values never in it) and the values
/// bound, for each kind of node. Equivalence with memory is `PredicateLoweringEquivalenceTests`.
@Suite("Predicate lowering: golden SQL")
struct PredicateLoweringGoldenTests {
    private static let model: NSManagedObjectModel = {
        let model = LoweringTestModel.model()
        model.freeze()
        return model
    }()
    private static let schema = SQLStoreSchema(model: model)

    /// `SELECT t0.Z_PK FROM … WHERE …` for a predicate on an entity.
    private func lowered(_ format: String, _ arguments: [Any] = [], on entityName: String = "Person") throws -> SQLFragment {
        let entity = Self.model.entitiesByName[entityName]!
        let predicate = try NSPredicate.parse(format: format, arguments: arguments)
        return try SQLQueryBuilder(schema: Self.schema, dialect: SQLiteDialect())
            .select(SQLFetchQuery(entity: entity, predicate: predicate), columns: [SQLFragment("t0.Z_PK")]).render(in: SQLiteDialect())
    }

    private func expect(_ format: String, on entityName: String = "Person",
                        _ sql: String, _ bound: [DatabaseValueConvertible?], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expect(format, [], on: entityName, sql, bound, sourceLocation: sourceLocation)
    }

    private func expect(_ format: String, _ arguments: [Any], on entityName: String = "Person",
                        _ sql: String, _ bound: [DatabaseValueConvertible?], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fragment = try lowered(format, arguments, on: entityName)
        let from = entityName == "Todo" ? "ZTODO" : "ZPERSON"
        #expect(fragment.text == "SELECT t0.Z_PK FROM \(from) t0" + sql, "\(format)", sourceLocation: sourceLocation)
        #expect(fragment.arguments.map(\.databaseValue) == bound.map { $0?.databaseValue ?? .null }, "\(format)", sourceLocation: sourceLocation)
    }

    @Test("Comparisons bind values; == is =, != is IS NOT (nil != x is true), nil is IS NULL")
    func comparisons() throws {
        try expect("age > 30 AND name == 'Adam'", " WHERE t0.ZAGE > ? AND t0.ZNAME = ?", [30, "Adam"])
        try expect("name != 'Eve'", " WHERE t0.ZNAME IS NOT ?", ["Eve"])
        try expect("nickname == nil OR nickname != NULL", " WHERE t0.ZNICKNAME IS NULL OR t0.ZNICKNAME IS NOT NULL", [])
        try expect("age BETWEEN {30, 40}", " WHERE t0.ZAGE BETWEEN ? AND ?", [30, 40])
        try expect("age IN {1, 2, nil}", " WHERE t0.ZAGE IN (?, ?) OR t0.ZAGE IS NULL", [1, 2])
        try expect("department.manager.age > age",
                   " LEFT JOIN ZDEPARTMENT t1 ON t1.Z_PK = t0.ZDEPARTMENT LEFT JOIN ZPERSON t2 ON t2.Z_PK = t1.ZMANAGER WHERE t2.ZAGE > t0.ZAGE", [])
        try expect("nickname == firstName", " WHERE t0.ZNICKNAME IS t0.ZFIRSTNAME COLLATE OCD_COMPARE", [])
    }

    @Test("Values are encoded as the store writes them: dates, UUIDs, booleans, decimals, URIs, data")
    func encodings() throws {
        try expect("birthday > %@", [Date(timeIntervalSinceReferenceDate: 86_400)], " WHERE t0.ZBIRTHDAY > ?", [86_400.0])
        try expect("id == %@", [PredicateFixtures.adamID], " WHERE t0.ZID = ?", [SQLValueCoding.uuidBytes(PredicateFixtures.adamID)])
        try expect("isActive == YES", " WHERE t0.ZISACTIVE = ?", [1])
        try expect("balance == %@", [Decimal(string: "10.25")!], " WHERE t0.ZBALANCE = ?", [10.25])
        try expect("homepage == %@", [URL(string: "https://example.com/a")!], " WHERE t0.ZHOMEPAGE = ?", ["https://example.com/a"])
        try expect("avatar == %@", [Data()], " WHERE t0.ZAVATAR = zeroblob(?)", [0])
        try expect("rating == 0.1", " WHERE OCD_FLOAT(t0.ZRATING) = ?", [0.1])
    }

    @Test("Kinds that memory never finds equal or ordered fold to constants")
    func kindMismatches() throws {
        try expect("age == '34'", " WHERE FALSE", [])
        try expect("birthday > 0", " WHERE FALSE", [])
        try expect("name != 34", "", [])
        try expect("name == age", " WHERE (t0.ZNAME IS NULL AND t0.ZAGE IS NULL)", [])
        try expect("2 ** 3 == 8 AND age == 30 + 2 * 2", " WHERE t0.ZAGE = ?", [34])
    }

    @Test("NOT is pushed down; a comparison that may be NULL is negated with IS NOT 1")
    func negation() throws {
        try expect("NOT (age == 30)", " WHERE t0.ZAGE IS NOT ?", [30])
        try expect("NOT (age > 40 OR name == 'Eve')", " WHERE (t0.ZAGE > ?) IS NOT 1 AND t0.ZNAME IS NOT ?", [40, "Eve"])
        try expect("NOT name BEGINSWITH 'A'", " WHERE NOT (OCD_BEGINSWITH(t0.ZNAME, ?, ?))", ["A", 0])
        try expect("NOT (nickname != nil)", " WHERE t0.ZNICKNAME IS NULL", [])
    }

    @Test("Strings: [c]/[d] fold with OCD_FOLD; non-ASCII constants compare with OCD_COMPARE; operators call functions")
    func strings() throws {
        try expect("city ==[cd] 'Zürich'", " WHERE OCD_FOLD(t0.ZCITY, ?) = ?", [3, "zurich"])
        try expect("city ==[c] 'zürich'", " WHERE OCD_FOLD(t0.ZCITY, ?) = ? COLLATE OCD_COMPARE", [1, "zürich"])
        try expect("name == 'Zoë'", " WHERE t0.ZNAME = ? COLLATE OCD_COMPARE", ["Zoë"])
        try expect("name < 'M'", " WHERE t0.ZNAME < ? COLLATE OCD_COMPARE", ["M"])
        try expect("name IN[c] {'adam', 'eve'}", " WHERE OCD_FOLD(t0.ZNAME, ?) IN (?, ?)", [1, "adam", "eve"])
        try expect("title CONTAINS[cd] %@", ["milk"], on: "Todo", " WHERE OCD_CONTAINS(t0.ZTITLE, ?, ?)", ["milk", 3])
        try expect("name LIKE[c] 'a*m'", " WHERE OCD_LIKE(t0.ZNAME, ?, ?)", ["a*m", 1])
        try expect("email ENDSWITH '.com'", " WHERE OCD_ENDSWITH(t0.ZEMAIL, ?, ?)", [".com", 0])
        try expect("phone MATCHES '\\\\d{3}-\\\\d{4}'", " WHERE OCD_MATCHES(t0.ZPHONE, ?, ?)", ["\\d{3}-\\d{4}", 0])
        try expect("'da' IN name", " WHERE OCD_CONTAINS(t0.ZNAME, ?, ?)", ["da", 0])
        try expect("department.name.length == 11",
                   " LEFT JOIN ZDEPARTMENT t1 ON t1.Z_PK = t0.ZDEPARTMENT WHERE OCD_LENGTH(t1.ZNAME) = ?", [11])
    }

    @Test("To-many: ANY is EXISTS, ALL is NOT EXISTS (… NOT …), a set drops nil values; many-to-many goes through the join table")
    func quantifiers() throws {
        let tags = "FROM Z_3TAGS j2 JOIN ZTAG t1 ON t1.Z_PK = j2.Z_5TAGS WHERE (j2.Z_3PEOPLE = t0.Z_PK)"
        try expect("ANY tags.name == 'swift'", " WHERE EXISTS (SELECT 1 \(tags) AND (t1.ZNAME IS NOT NULL) AND (t1.ZNAME = ?))", ["swift"])
        try expect("NONE tags.name == 'swift'", " WHERE NOT EXISTS (SELECT 1 \(tags) AND (t1.ZNAME IS NOT NULL) AND (t1.ZNAME = ?))", ["swift"])
        try expect("ALL children.age < 18",
                   " WHERE NOT EXISTS (SELECT 1 FROM ZPERSON t1 WHERE (t1.ZPARENT = t0.Z_PK) AND (t1.ZAGE IS NOT NULL) AND ((t1.ZAGE < ?) IS NOT 1))", [18])
        try expect("ANY groups.name == nil",
                   " WHERE EXISTS (SELECT 1 FROM Z_5MEMBERS j2 JOIN ZTAG t1 ON t1.Z_PK = j2.Z_5GROUPS WHERE (j2.Z_3MEMBERS = t0.Z_PK) AND (t1.ZNAME IS NULL))", [])
        try expect("ALL department.employees.age > 20",
                   " WHERE t0.ZDEPARTMENT IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ZPERSON t1 WHERE (t1.ZDEPARTMENT = t0.ZDEPARTMENT) AND (t1.ZAGE IS NOT NULL) AND ((t1.ZAGE > ?) IS NOT 1))", [20])
        try expect("'swift' IN tags.name", " WHERE EXISTS (SELECT 1 \(tags) AND (t1.ZNAME IS NOT NULL) AND (t1.ZNAME = ?))", ["swift"])
        try expect("ANY tags.tagId == %@", ["home"], on: "Todo",
                   " WHERE EXISTS (SELECT 1 FROM Z_5TODOS j2 JOIN ZTAG t1 ON t1.Z_PK = j2.Z_5TAGS WHERE (j2.Z_6TODOS = t0.Z_PK) AND (t1.ZTAGID IS NOT NULL) AND (t1.ZTAGID = ?))", ["home"])
    }

    @Test("Collection operators, SUBQUERY and indexes are correlated subqueries")
    func aggregates() throws {
        try expect("tags.@count > 2", " WHERE (SELECT COUNT(*) FROM Z_3TAGS j2 JOIN ZTAG t1 ON t1.Z_PK = j2.Z_5TAGS WHERE j2.Z_3PEOPLE = t0.Z_PK) > ?", [2])
        try expect("children.@sum.age == 17",
                   " WHERE (SELECT TOTAL(t1.ZAGE) FROM ZPERSON t1 WHERE (t1.ZPARENT = t0.Z_PK) AND (t1.ZAGE IS NOT NULL)) = ?", [17])
        try expect("department.employees.@count > 2",
                   " WHERE CASE WHEN t0.ZDEPARTMENT IS NULL THEN NULL ELSE (SELECT COUNT(*) FROM ZPERSON t1 WHERE t1.ZDEPARTMENT = t0.ZDEPARTMENT) END > ?", [2])
        try expect("SUBQUERY(children, $c, $c.department.name == 'x' AND ANY $c.toys.name == 'ball').@count > 1",
                   " WHERE (SELECT COUNT(*) FROM ZPERSON t1 LEFT JOIN ZDEPARTMENT t2 ON t2.Z_PK = t1.ZDEPARTMENT WHERE (t1.ZPARENT = t0.Z_PK) AND (t2.ZNAME = ? AND EXISTS (SELECT 1 FROM ZTOY t3 WHERE (t3.ZOWNER = t1.Z_PK) AND (t3.ZNAME = ?)))) > ?",
                   ["x", "ball", 1])
        try expect("groups[FIRST].name == 'admins'",
                   " LEFT JOIN ZTAG t4 ON t4.Z_PK = (SELECT t1.Z_PK FROM Z_5MEMBERS j2 JOIN ZTAG t1 ON t1.Z_PK = j2.Z_5GROUPS WHERE j2.Z_3MEMBERS = t0.Z_PK ORDER BY j2.Z_FOK_5GROUPS LIMIT ?) WHERE t4.ZNAME = ?",
                   [1, "admins"])
        try expect("count(tags.name) == 2",
                   " WHERE (SELECT COUNT(DISTINCT t1.ZNAME) FROM Z_3TAGS j2 JOIN ZTAG t1 ON t1.Z_PK = j2.Z_5TAGS WHERE (j2.Z_3PEOPLE = t0.Z_PK) AND (t1.ZNAME IS NOT NULL)) = ?", [2])
    }

    @Test("Arithmetic and functions: + - * native, / on doubles, the rest through FunctionEvaluator")
    func functions() throws {
        try expect("(age - 4) * 2 == 60", " WHERE ((t0.ZAGE - ?) * ?) = ?", [4, 2, 60])
        try expect("age / 2 == 17", " WHERE (CAST(t0.ZAGE AS REAL) / ?) = ?", [2, 17])
        try expect("age ** 2 > 1000", " WHERE OCD_RAISE_TOPOWER(t0.ZAGE, ?) > ?", [2, 1000])
        try expect("lowercase(name) == 'adam'", " WHERE OCD_LOWERCASE(t0.ZNAME) = ?", ["adam"])
        try expect("CAST(age, 'NSString') == '34'", " WHERE OCD_STRING(t0.ZAGE) = ?", ["34"])
        try expect("TERNARY(age > 18, 'adult', 'minor') == 'adult'", " WHERE CASE WHEN t0.ZAGE > ? THEN ? ELSE ? END = ?", [18, "adult", "minor", "adult"])
    }

    @Test("Objects and object IDs compare primary keys; IDs of unsaved objects match nothing")
    func objects() throws {
        let context = try TestModels.sqliteContext(Self.model)
        let (stored, unsaved, store) = try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            try context.save()
            return (person, NSEntityDescription.insertNewObject(forEntityName: "Person", into: context), context.persistentStoreCoordinator!.persistentStores[0])
        }
        let key = stored.objectID.primaryKey
        try expect("SELF == %@", [stored], " WHERE t0.Z_PK = ?", [key])
        try expect("parent IN %@", [[stored.objectID, unsaved]], " WHERE t0.ZPARENT = ?", [key])
        try expect("parent == %@", [unsaved], " WHERE FALSE", [])
        try expect("%@ IN children", [stored], " WHERE EXISTS (SELECT 1 FROM ZPERSON t1 WHERE (t1.ZPARENT = t0.Z_PK) AND (t1.Z_PK = ?))", [key])
        // Another store's IDs match no row of this one.
        let query = SQLFetchQuery(entity: Self.model.entitiesByName["Person"]!, predicate: NSPredicate(format: "SELF == %@", stored.objectID),
                                  storeIdentifier: store.identifier + "-other")
        let other = try SQLQueryBuilder(schema: Self.schema, dialect: SQLiteDialect()).select(query, columns: [SQLFragment("t0.Z_PK")]).render(in: SQLiteDialect())
        #expect(other.text == "SELECT t0.Z_PK FROM ZPERSON t0 WHERE FALSE")
    }

    @Test("Subentities: the fetched entity's Z_ENT filter comes first, the predicate after it")
    func subentities() throws {
        let student = Int64(Self.schema.entityNumber(of: Self.model.entitiesByName["Student"]!))
        try expect("school == 'MIT' OR age > 20", on: "Student", " WHERE (t0.Z_ENT = ?) AND (t0.ZSCHOOL = ? OR t0.ZAGE > ?)", [student, "MIT", 20])
    }

    @Test("A path through two to-many relationships is one set: the second's rows whose key is among every element's")
    func flattenedPath() throws {
        try expect("ANY children.tags.name == 'go'",
                   " WHERE EXISTS (SELECT 1 FROM ZTAG t4 WHERE (t4.Z_PK IN (SELECT t2.Z_PK FROM ZPERSON t1, Z_3TAGS j3 JOIN ZTAG t2 ON t2.Z_PK = j3.Z_5TAGS"
                   + " WHERE (t1.ZPARENT = t0.Z_PK) AND (j3.Z_3PEOPLE = t1.Z_PK))) AND (t4.ZNAME IS NOT NULL) AND (t4.ZNAME = ?))", ["go"])
    }

    @Test("A subscript of an unordered to-many counts its rows in primary-key order")
    func unorderedSubscript() throws {
        try expect("tags[LAST].name == 'y'",
                   " LEFT JOIN ZTAG t4 ON t4.Z_PK = (SELECT t1.Z_PK FROM Z_3TAGS j2 JOIN ZTAG t1 ON t1.Z_PK = j2.Z_5TAGS"
                   + " WHERE j2.Z_3PEOPLE = t0.Z_PK ORDER BY t1.Z_PK DESC LIMIT ?) WHERE t4.ZNAME = ?", [1, "y"])
    }

    @Test("What memory evaluates differently throws an error naming the node")
    func unsupported() {
        for format in ["ANY scores > 5", "mood == 'x'", "ANY children.toys.name == 'go'", "CAST(salary, 'NSString') == '34'",
                       "scores INTERSECT {1} CONTAINS 1", "scores.@distinctUnionOfObjects[FIRST] == 1"] {
            #expect(throws: SQLTranslationError.self, "\(format)") { _ = try lowered(format) }
        }
        do {
            _ = try lowered("mood == 'x'")
        } catch let error as SQLTranslationError {
            #expect(error.node == "key path")
            #expect(error.description.contains("mood"))
        } catch {
            Issue.record("\(error)")
        }
    }
}
