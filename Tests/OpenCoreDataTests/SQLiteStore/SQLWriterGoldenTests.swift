import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Pins the SQL of every statement kind the SQLite store writes — inserts, updates, deletes, the
/// join-table and `Z_FOK_` statements, `Z_PRIMARYKEY` and `Z_METADATA`, `CREATE TABLE` and
/// `CREATE INDEX` — as Apple's file layout needs it, and shows the layer is one writer: every
/// identifier quoted in one place, every value bound, the dialect a parameter.
@Suite("SQL writer golden SQL")
struct SQLWriterGoldenTests {
    private let dialect = SQLiteDialect()

    private func frozen(_ model: NSManagedObjectModel) -> (NSManagedObjectModel, SQLStoreSchema) {
        model.freeze()
        return (model, SQLStoreSchema(model: model))
    }

    // MARK: - Rows

    @Test("An entity's INSERT, UPDATE and DELETE: Z_PK, Z_ENT, Z_OPT then Apple's column order, every value a parameter")
    func entityRows() {
        let (model, schema) = frozen(TestModels.orderedModel())
        let song = SQLiteWritePlan(entity: model.entitiesByName["Song"]!, schema: schema, dialect: dialect)
        #expect(song.insertSQL == "INSERT INTO ZSONG (Z_PK, Z_ENT, Z_OPT, ZPLAYLIST, Z_FOK_PLAYLIST, ZTITLE) VALUES (?, ?, ?, ?, ?, ?)")
        #expect(song.deleteSQL == "DELETE FROM ZSONG WHERE Z_PK = ?")
        // Optimistic locking: the update only lands on the version the context read.
        #expect(song.updateSQL(columns: [2]) == "UPDATE ZSONG SET Z_OPT = ?, ZTITLE = ? WHERE Z_PK = ? AND Z_OPT = ?")
        #expect(song.updateSQL(columns: [0, 2]) == "UPDATE ZSONG SET Z_OPT = ?, ZPLAYLIST = ?, ZTITLE = ? WHERE Z_PK = ? AND Z_OPT = ?")
    }

    @Test("An update's text is built once per column set and reused")
    func updateCache() {
        let (model, schema) = frozen(TestModels.orderedModel())
        let plan = SQLiteWritePlan(entity: model.entitiesByName["Playlist"]!, schema: schema, dialect: dialect)
        let first = plan.updateSQL(columns: [0])
        let second = plan.updateSQL(columns: [0])
        #expect(first == second)
        #expect(first == "UPDATE ZPLAYLIST SET Z_OPT = ?, ZNAME = ? WHERE Z_PK = ? AND Z_OPT = ?")
    }

    // MARK: - Relationships

    @Test("Join-table statements of the ordered side: read, delete, upsert of the position, position update")
    func orderedJoinTable() throws {
        let (model, schema) = frozen(TestModels.orderedModel())
        let plan = SQLiteWritePlan(entity: model.entitiesByName["Playlist"]!, schema: schema, dialect: dialect)
        let join = try #require(plan.joinRelationships.first)
        #expect(join.selectOthersSQL == "SELECT Z_1LABELS FROM Z_1PLAYLISTS WHERE Z_2PLAYLISTS = ?")
        #expect(join.deleteBySelfSQL == "DELETE FROM Z_1PLAYLISTS WHERE Z_2PLAYLISTS = ?")
        #expect(join.deleteByOtherSQL == "DELETE FROM Z_1PLAYLISTS WHERE Z_1LABELS = ?")
        #expect(join.deletePairSQL == "DELETE FROM Z_1PLAYLISTS WHERE Z_2PLAYLISTS = ? AND Z_1LABELS = ?")
        #expect(join.insertSQL == "INSERT INTO Z_1PLAYLISTS (Z_2PLAYLISTS, Z_1LABELS, Z_FOK_1LABELS) VALUES (?, ?, ?) ON CONFLICT (Z_2PLAYLISTS, Z_1LABELS) DO UPDATE SET Z_FOK_1LABELS = excluded.Z_FOK_1LABELS")
        #expect(join.updateOrderSQL == "UPDATE Z_1PLAYLISTS SET Z_FOK_1LABELS = ? WHERE Z_2PLAYLISTS = ? AND Z_1LABELS = ?")
        #expect(join.insertMirrorSQL == "INSERT OR IGNORE INTO Z_1PLAYLISTS (Z_2PLAYLISTS, Z_1LABELS) VALUES (?, ?)")
    }

    @Test("Join-table statements of the unordered side: a pair is inserted once, never updated")
    func unorderedJoinTable() throws {
        let (model, schema) = frozen(TestModels.orderedModel())
        let plan = SQLiteWritePlan(entity: model.entitiesByName["Label"]!, schema: schema, dialect: dialect)
        let join = try #require(plan.joinRelationships.first)
        #expect(join.selectOthersSQL == "SELECT Z_2PLAYLISTS FROM Z_1PLAYLISTS WHERE Z_1LABELS = ?")
        #expect(join.deletePairSQL == "DELETE FROM Z_1PLAYLISTS WHERE Z_1LABELS = ? AND Z_2PLAYLISTS = ?")
        #expect(join.insertSQL == "INSERT OR IGNORE INTO Z_1PLAYLISTS (Z_1LABELS, Z_2PLAYLISTS) VALUES (?, ?)")
        #expect(join.updateOrderSQL == nil)
    }

    @Test("An ordered to-many with a to-one inverse keeps its order in the children's Z_FOK_ column")
    func orderedChildren() throws {
        let (model, schema) = frozen(TestModels.orderedModel())
        let plan = SQLiteWritePlan(entity: model.entitiesByName["Playlist"]!, schema: schema, dialect: dialect)
        let children = try #require(plan.orderedChildren.first)
        #expect(children.updateOrderSQL == "UPDATE ZSONG SET Z_FOK_PLAYLIST = ? WHERE Z_PK = ?")
    }

    // MARK: - Bookkeeping

    @Test("Z_PRIMARYKEY and Z_METADATA statements: Apple's tables, every value bound (no literal in the text)")
    func bookkeeping() {
        let sql = SQLBookkeepingStatements(dialect: dialect)
        #expect(sql.createPrimaryKeyTable == "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        #expect(sql.createMetadataTable == "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        #expect(sql.insertEntity == "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
        #expect(sql.selectMaxKey == "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        #expect(sql.setMaxKey == "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        #expect(sql.raiseMaxKey == "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(COALESCE(Z_MAX, ?), ?) WHERE Z_ENT = ?")
        #expect(sql.insertMetadata == "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (?, ?, ?)")
        #expect(sql.updateMetadata == "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = ?")
        #expect(sql.selectEntities == "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        #expect(sql.selectModelCache == "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT ?")
        #expect(sql.createModelCacheTable == "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        #expect(sql.insertModelCache == "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)")
        #expect(sql.deleteModelCache == "DELETE FROM Z_MODELCACHE")
    }

    // MARK: - Schema

    @Test("CREATE TABLE of entity and join tables, padded as Apple writes them, then the bookkeeping tables and indexes")
    func createTables() {
        let (_, schema) = frozen(TestModels.orderedModel())
        #expect(schema.creationStatements(in: dialect) == [
            "CREATE TABLE ZLABEL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTEXT VARCHAR )",
            "CREATE TABLE ZPLAYLIST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            "CREATE TABLE ZSONG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLAYLIST INTEGER, Z_FOK_PLAYLIST INTEGER, ZTITLE VARCHAR )",
            "CREATE TABLE Z_1PLAYLISTS ( Z_1LABELS INTEGER, Z_2PLAYLISTS INTEGER, Z_FOK_1LABELS INTEGER, PRIMARY KEY (Z_1LABELS, Z_2PLAYLISTS) )",
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
            "CREATE INDEX ZSONG_ZPLAYLIST_INDEX ON ZSONG (ZPLAYLIST)",
            "CREATE INDEX Z_1PLAYLISTS_Z_2PLAYLISTS_INDEX ON Z_1PLAYLISTS (Z_2PLAYLISTS, Z_1LABELS)",
        ])
    }

    @Test("CREATE INDEX of Z_ENT, foreign keys, uniqueness constraints and fetch indexes")
    func createIndexes() {
        let (_, vehicles) = frozen(TestModels.vehicleModel())
        #expect(vehicles.indexStatements(in: dialect) == [
            "CREATE INDEX ZGARAGE_ZFAVOURITE_INDEX ON ZGARAGE (ZFAVOURITE)",
            "CREATE INDEX ZVEHICLE_ZGARAGE_INDEX ON ZVEHICLE (ZGARAGE)",
            "CREATE INDEX ZVEHICLE_Z_ENT_INDEX ON ZVEHICLE (Z_ENT)",
        ])
        let (_, users) = frozen(TestModels.uniqueUserModel())
        #expect(users.indexStatements(in: dialect) == ["CREATE UNIQUE INDEX Z_User_UNIQUE_email ON ZUSER (ZEMAIL COLLATE BINARY ASC)"])
        let fetchIndex = SQLCreateIndex("Z_Car_byMaker", on: "ZCAR", [.init("ZMAKER", collation: .binary, ascending: true),
                                                                      .init("ZMODEL", collation: .binary, ascending: false)])
        #expect(fetchIndex.sql(in: dialect) == "CREATE INDEX Z_Car_byMaker ON ZCAR (ZMAKER COLLATE BINARY ASC, ZMODEL COLLATE BINARY DESC)")
    }

    // MARK: - Quoting

    @Test("Names with a quote, a space or a keyword are quoted, the quote doubled; Apple's names stay bare")
    func quoting() {
        #expect(dialect.quote("ZTITLE") == "ZTITLE")
        #expect(dialect.quote("ZODD \"ENTITY\"") == "\"ZODD \"\"ENTITY\"\"\"")
        #expect(dialect.quote("ZFIRST NAME") == "\"ZFIRST NAME\"")
        #expect(dialect.quote("order") == "\"order\"")
        #expect(dialect.quote("Replace") == "\"Replace\"")  // a SQLite keyword outside standard SQL's list
        #expect(dialect.quote("1st") == "\"1st\"")
        #expect(dialect.quote("") == "\"\"")
    }

    @Test("A hostile entity and attribute name is quoted in every statement, and a store with it saves and fetches")
    func hostileNames() throws {
        let odd = TestModels.entity("Odd \"Entity\"", [TestModels.attribute("first name", .stringAttributeType)])
        let model = NSManagedObjectModel()
        model.entities = [odd]
        let (_, schema) = frozen(model)
        let plan = SQLiteWritePlan(entity: odd, schema: schema, dialect: dialect)
        #expect(plan.insertSQL == "INSERT INTO \"ZODD \"\"ENTITY\"\"\" (Z_PK, Z_ENT, Z_OPT, \"ZFIRST NAME\") VALUES (?, ?, ?, ?)")
        #expect(plan.updateSQL(columns: [0]) == "UPDATE \"ZODD \"\"ENTITY\"\"\" SET Z_OPT = ?, \"ZFIRST NAME\" = ? WHERE Z_PK = ? AND Z_OPT = ?")
        #expect(plan.deleteSQL == "DELETE FROM \"ZODD \"\"ENTITY\"\"\" WHERE Z_PK = ?")
        #expect(schema.creationStatements(in: dialect).first
                == "CREATE TABLE \"ZODD \"\"ENTITY\"\"\" ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \"ZFIRST NAME\" VARCHAR )")

        // The statements run: a value with quotes is bound, never spliced into the text.
        let context = try TestModels.sqliteContext(model)
        try context.performAndWait {
            let object = NSManagedObject(entity: odd, insertInto: context)
            object.setValue("Robert'); DROP TABLE \"ZODD \"\"ENTITY\"\"\";--", forKey: "first name")
            try context.save()
            object.setValue("O\"Brien", forKey: "first name")
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Odd \"Entity\"")
            request.predicate = NSPredicate(format: "%K == %@", "first name", "O\"Brien")
            #expect(try context.fetch(request).count == 1)
            context.delete(object)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Odd \"Entity\"")) == 0)
        }
    }

    // MARK: - The dialect is a parameter

    @Test("Another dialect spells the same statements differently: quoting, conflicts, types, paging, functions, collations")
    func secondDialect() throws {
        let other = BacktickDialect()
        #expect(SQLInsert(into: "ZODD ENTITY", columns: ["Z_PK", "first"]).sql(in: other) == "INSERT INTO `ZODD ENTITY` (Z_PK, `first`) VALUES (?, ?)")
        #expect(SQLInsert(into: "ZODD ENTITY", columns: ["Z_PK", "first"]).sql(in: dialect) == "INSERT INTO \"ZODD ENTITY\" (Z_PK, \"first\") VALUES (?, ?)")
        #expect(SQLInsert(into: "Z_1TAGS", columns: ["Z_1A", "Z_2B"], onConflict: .ignore).sql(in: other)
                == "INSERT INTO Z_1TAGS (Z_1A, Z_2B) VALUES (?, ?) ON CONFLICT DO NOTHING")
        #expect(SQLCreateTable("ZT", columns: [.init("Z_PK", .integer, isPrimaryKey: true), .init("ZAT", .timestamp)]).sql(in: other)
                == "CREATE TABLE ZT ( Z_PK BIGINT PRIMARY KEY, ZAT DOUBLE PRECISION )")

        // The predicate and sort lowering ask the dialect for every function, collation and literal.
        let (model, schema) = frozen(TestModels.orderedModel())
        let playlist = model.entitiesByName["Playlist"]!
        let query = SQLFetchQuery(entity: playlist,
                                  predicate: NSPredicate(format: "name ==[c] 'mix' OR NOT (name BEGINSWITH 'a') OR songs.@sum.title.length > 3"),
                                  sortKeys: [SQLSortKey("name")], limit: 5)
        let spelled = try SQLQueryBuilder(schema: schema, dialect: other).select(query, columns: [other.column("Z_PK", of: "t0")]).render(in: other)
        let sqlite = try SQLQueryBuilder(schema: schema, dialect: dialect).select(query, columns: [dialect.column("Z_PK", of: "t0")]).render(in: dialect)
        #expect(spelled.text != sqlite.text)
        #expect(spelled.arguments == sqlite.arguments)
        for sqliteOnly in ["OCD_", "TOTAL(", "IS NOT 1", "zeroblob"] {
            #expect(!spelled.text.contains(sqliteOnly), "\(sqliteOnly) leaked into another dialect's SQL: \(spelled.text)")
        }
        #expect(spelled.text.contains("ocd_fold(") && spelled.text.contains("COLLATE \"C\"") && spelled.text.contains("FETCH FIRST ? ROWS ONLY"))
        #expect(sqlite.text.contains("OCD_FOLD(") && sqlite.text.contains("TOTAL(") && sqlite.text.contains("LIMIT ?"))
    }
}

/// A second dialect, only for tests: backtick quoting and PostgreSQL-like spellings, so that
/// the same statement visibly differs from SQLite's.
private struct BacktickDialect: SQLDialect {
    var identifierQuote: Character { "`" }
    var reservedWords: Set<String> { standardSQLReservedWords.union(["FIRST"]) }
    func parameterMarker(at position: Int) -> String { "?" }
    var numbersParameters: Bool { false }

    func typeName(of type: SQLColumnType, length: Int?) -> String {
        switch type {
        case .integer: "BIGINT"
        case .float, .timestamp, .decimal: "DOUBLE PRECISION"
        case .varchar: "TEXT"
        case .blob: "BYTEA"
        }
    }

    func booleanLiteral(_ value: Bool) -> String { value ? "true" : "false" }

    func pagingClause(limit: Int, offset: Int) -> SQLFragment {
        var clause = SQLFragment()
        if offset > 0 { clause.append(" OFFSET " + parameter(.integer(Int64(offset))) + " ROWS") }
        if limit > 0 { clause.append(" FETCH FIRST " + parameter(.integer(Int64(limit))) + " ROWS ONLY") }
        return clause
    }

    func insertVerb(_ conflict: SQLConflictResolution) -> String { "INSERT INTO" }

    func conflictClause(_ conflict: SQLConflictResolution) -> String {
        switch conflict {
        case .abort: return ""
        case .ignore: return "ON CONFLICT DO NOTHING"
        case .upsert(let key, let update):
            return "ON CONFLICT (" + key.map(quote).joined(separator: ", ") + ") DO UPDATE SET "
                + update.map { quote($0) + " = EXCLUDED." + quote($0) }.joined(separator: ", ")
        }
    }

    func greatest(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment { "GREATEST(" + lhs + ", " + rhs + ")" }
    func parameter(_ value: SQLValue) -> SQLFragment { SQLFragment(SQLFragment.placeholder, arguments: [value]) }
    func bindsPlainly(_ value: SQLValue) -> Bool { true }

    func collationName(_ collation: SQLCollation) -> String {
        switch collation {
        case .binary, .compare: "\"C\""
        case .sortSelector(let selector): "\"ocd_" + selector.replacingOccurrences(of: ":", with: "") + "\""
        }
    }

    func call(_ function: SQLFunction, _ arguments: [SQLFragment]) -> SQLFragment {
        let name: String
        switch function {
        case .builtin(let selector): name = "ocd_" + selector.replacingOccurrences(of: ":", with: "_")
        default: name = "ocd_" + "\(function)".lowercased()
        }
        return name + "(" + arguments.joined(separator: ", ") + ")"
    }

    func evaluatesBuiltin(_ selector: String, arity: Int) -> Bool { false }
    func isNotDistinct(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment { lhs + " IS NOT DISTINCT FROM " + rhs }
    func isDistinct(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment { lhs + " IS DISTINCT FROM " + rhs }
    func isNotTrue(_ condition: SQLFragment) -> SQLFragment { "(" + condition + ") IS NOT TRUE" }
    func castToReal(_ value: SQLFragment) -> SQLFragment { "CAST(" + value + " AS DOUBLE PRECISION)" }
    func total(_ value: SQLFragment) -> SQLFragment { "COALESCE(SUM(" + value + "), 0.0)" }
    func plainEqualityMatchesMemory(_ value: SQLValue) -> Bool { false }
}
