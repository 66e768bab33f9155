import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Pins down how store requests translate to SQL: text with placeholders, values bound.
@Suite("Golden SQL")
struct GoldenSQLTests {
    private func schema(_ model: NSManagedObjectModel) -> SQLStoreSchema {
        model.freeze()
        return SQLStoreSchema(model: model)
    }

    private func objectsSQL(_ schema: SQLStoreSchema, _ request: SQLFetchQuery) throws -> SQLFragment {
        let decoder = SQLiteRowDecoder(schema: schema, dialect: SQLiteDialect(), entity: request.entity, includesSubentities: request.includesSubentities)
        return try SQLQueryBuilder(schema: schema, dialect: SQLiteDialect()).select(request, columns: decoder.selection).render(in: SQLiteDialect())
    }

    private let todoColumns = "t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZLOCATION, t0.ZCOMPLETEDAT, t0.ZCREATEDAT, t0.ZUPDATEDAT, t0.ZTITLE, t0.ZTODOID"

    @Test("All rows of an entity in its own table: no Z_ENT filter")
    func plainFetch() throws {
        let model = FixtureModels.arnosoloTodo()
        let schema = schema(model)
        let sql = try objectsSQL(schema, SQLFetchQuery(entity: model.entitiesByName["TodoEntity"]!))
        #expect(sql.text == "SELECT \(todoColumns) FROM ZTODOENTITY t0")
        #expect(sql.arguments.isEmpty)
    }

    @Test("Sort, limit and offset: bound, with Z_PK as the tie-breaker")
    func sortLimitOffset() throws {
        let model = FixtureModels.arnosoloTodo()
        let schema = schema(model)
        let request = SQLFetchQuery(entity: model.entitiesByName["TodoEntity"]!,
                                     sortKeys: [SQLSortKey("title", ascending: true), SQLSortKey("createdAt", ascending: false)],
                                     limit: 10, offset: 5)
        let sql = try objectsSQL(schema, request)
        #expect(sql.text == "SELECT \(todoColumns) FROM ZTODOENTITY t0 ORDER BY t0.ZTITLE COLLATE OCD_COMPARE ASC, t0.ZCREATEDAT DESC, t0.Z_PK LIMIT ? OFFSET ?")
        #expect(sql.arguments == [.integer(10), .integer(5)])
    }

    @Test("Sorting through a to-one joins its table once")
    func toOneSort() throws {
        let model = FixtureModels.arnosoloTodo()
        let schema = schema(model)
        let request = SQLFetchQuery(entity: model.entitiesByName["TodoEntity"]!,
                                     sortKeys: [SQLSortKey("location.placeName", ascending: false),
                                                       SQLSortKey("location.latitude", ascending: true)])
        let sql = try objectsSQL(schema, request)
        #expect(sql.text == "SELECT \(todoColumns) FROM ZTODOENTITY t0 LEFT JOIN ZLOCATIONENTITY t1 ON t1.Z_PK = t0.ZLOCATION ORDER BY t1.ZPLACENAME COLLATE OCD_COMPARE DESC, t1.ZLATITUDE ASC, t0.Z_PK")
    }

    @Test("Counts, with and without paging; object IDs")
    func countsAndIDs() throws {
        let model = FixtureModels.arnosoloTodo()
        let schema = schema(model)
        let builder = SQLQueryBuilder(schema: schema, dialect: SQLiteDialect())
        let entity = model.entitiesByName["TagEntity"]!
        #expect(try builder.count(SQLFetchQuery(entity: entity)).text == "SELECT COUNT(*) FROM ZTAGENTITY t0")
        let paged = try builder.count(SQLFetchQuery(entity: entity, limit: 3))
        #expect(paged.text == "SELECT COUNT(*) FROM (SELECT t0.Z_PK FROM ZTAGENTITY t0 LIMIT ?)")
        #expect(paged.arguments == [.integer(3)])
        let ids = try builder.selectObjectIDs(SQLFetchQuery(entity: entity, sortKeys: [SQLSortKey("title", ascending: true)])).render(in: SQLiteDialect())
        #expect(ids.text == "SELECT t0.Z_PK, t0.Z_ENT FROM ZTAGENTITY t0 ORDER BY t0.ZTITLE COLLATE OCD_COMPARE ASC, t0.Z_PK")
    }

    @Test("Entities sharing a table: Z_ENT filters with bound entity numbers")
    func subentities() throws {
        let model = FixtureModels.coreDataPlusSampleModelV1()
        let schema = schema(model)
        let builder = SQLQueryBuilder(schema: schema, dialect: SQLiteDialect())
        let car = model.entitiesByName["Car"]!, sport = model.entitiesByName["SportCar"]!
        let all = try builder.count(SQLFetchQuery(entity: car))
        #expect(all.text == "SELECT COUNT(*) FROM ZCAR t0")
        let sports = try builder.count(SQLFetchQuery(entity: sport))
        #expect(sports.text == "SELECT COUNT(*) FROM ZCAR t0 WHERE t0.Z_ENT IN (?, ?)")
        #expect(sports.arguments == [.integer(2), .integer(3)])
        let onlyCars = try builder.count(SQLFetchQuery(entity: car, includesSubentities: false))
        #expect(onlyCars.text == "SELECT COUNT(*) FROM ZCAR t0 WHERE t0.Z_ENT = ?")
        #expect(onlyCars.arguments == [.integer(1)])
        let rows = try objectsSQL(schema, SQLFetchQuery(entity: sport))
        #expect(rows.text == "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZOWNER, t0.ZISLIMITEDEDITION, t0.ZMARKEDFORDELETIONASOF, t0.ZMAKER, t0.ZMODEL, t0.ZNUMBERPLATE, t0.ZCOLOR FROM ZCAR t0 WHERE t0.Z_ENT IN (?, ?)")
    }

    @Test("Relationship destinations: to-one, one-to-many, many-to-many, ordered")
    func destinations() throws {
        let model = FixtureModels.arnosoloTodo()
        let schema = schema(model)
        let builder = SQLQueryBuilder(schema: schema, dialect: SQLiteDialect())
        let todo = model.entitiesByName["TodoEntity"]!, location = model.entitiesByName["LocationEntity"]!, tag = model.entitiesByName["TagEntity"]!
        func columns(_ entity: NSEntityDescription) -> [SQLFragment] { SQLiteRowDecoder(schema: schema, dialect: SQLiteDialect(), entity: entity, includesSubentities: true).selection }

        let toOne = try builder.destinations(of: todo.relationshipsByName["location"]!, sourceKey: 7, columns: columns(location))
        #expect(toOne.text == "SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZALTITUDE, t0.ZLATITUDE, t0.ZLONGITUDE, t0.ZID, t0.ZPLACENAME FROM ZLOCATIONENTITY t0 WHERE t0.Z_PK = (SELECT ZLOCATION FROM ZTODOENTITY WHERE Z_PK = ?)")
        #expect(toOne.arguments == [.integer(7)])

        let toMany = try builder.destinations(of: location.relationshipsByName["todos"]!, sourceKey: 3, columns: columns(todo))
        #expect(toMany.text == "SELECT \(todoColumns) FROM ZTODOENTITY t0 WHERE t0.ZLOCATION = ?")

        let manyToMany = try builder.destinations(of: todo.relationshipsByName["tags"]!, sourceKey: 4, columns: [SQLFragment("t0.Z_PK")])
        #expect(manyToMany.text == "SELECT t0.Z_PK FROM ZTAGENTITY t0 JOIN Z_2TODOS j ON j.Z_2TAGS = t0.Z_PK WHERE j.Z_3TODOS = ?")
        let inverse = try builder.destinations(of: tag.relationshipsByName["todos"]!, sourceKey: 4, columns: [SQLFragment("t0.Z_PK")])
        #expect(inverse.text == "SELECT t0.Z_PK FROM ZTODOENTITY t0 JOIN Z_2TODOS j ON j.Z_3TODOS = t0.Z_PK WHERE j.Z_2TAGS = ?")

        let ordered = TestModels.orderedModel()
        let orderedSchema = self.schema(ordered)
        let orderedBuilder = SQLQueryBuilder(schema: orderedSchema, dialect: SQLiteDialect())
        let playlist = ordered.entitiesByName["Playlist"]!
        let songs = try orderedBuilder.destinations(of: playlist.relationshipsByName["songs"]!, sourceKey: 1, columns: [SQLFragment("t0.Z_PK")])
        #expect(songs.text == "SELECT t0.Z_PK FROM ZSONG t0 WHERE t0.ZPLAYLIST = ? ORDER BY t0.Z_FOK_PLAYLIST, t0.Z_PK")
        let labels = try orderedBuilder.destinations(of: playlist.relationshipsByName["labels"]!, sourceKey: 1, columns: [SQLFragment("t0.Z_PK")])
        #expect(labels.text == "SELECT t0.Z_PK FROM ZLABEL t0 JOIN Z_1PLAYLISTS j ON j.Z_1LABELS = t0.Z_PK WHERE j.Z_2PLAYLISTS = ? ORDER BY j.Z_FOK_1LABELS")
    }

    @Test("What cannot be lowered yet is reported, so the context evaluates it in memory")
    func notLowered() throws {
        let model = FixtureModels.arnosoloTodo()
        let schema = schema(model)
        let builder = SQLQueryBuilder(schema: schema, dialect: SQLiteDialect())
        let todo = model.entitiesByName["TodoEntity"]!
        #expect(throws: SQLTranslationError.self) {
            try builder.select(SQLFetchQuery(entity: todo, sortKeys: [SQLSortKey("tags", ascending: true)]), columns: [])
        }
        #expect(throws: SQLTranslationError.self) {
            try builder.select(SQLFetchQuery(entity: todo, sortKeys: [SQLSortKey("nope", ascending: true)]), columns: [])
        }
    }

    @Test("Sort descriptors lower with their selector; comparators and key-less descriptors stay in memory")
    func sortDescriptorLowering() {
        #expect(SQLSortKey(NSSortDescriptor(key: "title", ascending: false)) == SQLSortKey("title", ascending: false))
        #expect(SQLSortKey(NSSortDescriptor(key: "title", ascending: true, selector: .compare)) == SQLSortKey("title"))
        #expect(SQLSortKey(NSSortDescriptor(key: "title", ascending: true, selector: .caseInsensitiveCompare))
            == SQLSortKey("title", selector: "caseInsensitiveCompare:"))
        #expect(SQLSortKey(NSSortDescriptor(key: "title", ascending: true, comparator: { _, _ in .orderedSame })) == nil)
        #expect(SQLSortKey(NSSortDescriptor(key: nil, ascending: true)) == nil)
    }

    @Test("Identifiers are quoted in one place; plain Apple names stay bare")
    func quoting() {
        #expect(SQLiteDialect().quote("ZTITLE") == "ZTITLE")
        #expect(SQLiteDialect().quote("Z_Car_UNIQUE_numberPlate") == "Z_Car_UNIQUE_numberPlate")
        #expect(SQLiteDialect().quote("ORDER") == "\"ORDER\"")
        #expect(SQLiteDialect().quote("we\"ird name") == "\"we\"\"ird name\"")
    }
}
