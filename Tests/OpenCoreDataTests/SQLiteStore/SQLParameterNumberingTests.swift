import Foundation
import Testing
@testable import OpenCoreData

/// Parameters are placeholders while a statement is put together and get the dialect's markers
/// when it is finished, numbered in reading order: SQLite keeps `?`, a database that numbers its
/// parameters (PostgreSQL's `$1, $2, …`) gets each value's position, matching the order of the
/// bound values.
@Suite("SQL parameter numbering")
struct SQLParameterNumberingTests {
    private let numbered = NumberedDialect()

    private func schema(_ model: NSManagedObjectModel) -> SQLStoreSchema {
        model.freeze()
        return SQLStoreSchema(model: model)
    }

    @Test("A SELECT with a Z_ENT list, predicate values and paging numbers its markers in the order of its values")
    func select() throws {
        let model = FixtureModels.coreDataPlusSampleModelV1()
        let schema = schema(model)
        let query = SQLFetchQuery(entity: model.entitiesByName["SportCar"]!,
                                  predicate: NSPredicate(format: "maker == %@ AND numberPlate != %@", "Alfa", "B-1"),
                                  limit: 10, offset: 20)
        let select = try SQLQueryBuilder(schema: schema, dialect: numbered).select(query, columns: [numbered.column("Z_PK", of: "t0")])
        let sql = select.render(in: numbered)
        #expect(sql.sql(in: numbered)
                == "SELECT t0.Z_PK FROM ZCAR t0 WHERE (t0.Z_ENT IN ($1, $2)) AND (t0.ZMAKER = $3 AND t0.ZNUMBERPLATE IS NOT $4) LIMIT $5 OFFSET $6")
        #expect(sql.arguments == [.integer(2), .integer(3), .text("Alfa"), .text("B-1"), .integer(10), .integer(20)])
        // The same statement for SQLite: its anonymous markers, the text as built.
        let sqlite = try SQLQueryBuilder(schema: schema, dialect: SQLiteDialect()).select(query, columns: [SQLiteDialect().column("Z_PK", of: "t0")])
            .render(in: SQLiteDialect())
        #expect(sqlite.sql(in: SQLiteDialect())
                == "SELECT t0.Z_PK FROM ZCAR t0 WHERE (t0.Z_ENT IN (?, ?)) AND (t0.ZMAKER = ? AND t0.ZNUMBERPLATE IS NOT ?) LIMIT ? OFFSET ?")
        #expect(sqlite.arguments == sql.arguments)
    }

    @Test("A marker inside a function call is numbered too, and a ? inside a quoted name or literal is not a parameter")
    func quotedQuestionMarks() {
        var select = SQLSelect(from: numbered.identifier("ODD?TABLE"))
        select.columns = [numbered.identifier("what?"), SQLFragment("'?'")]
        select.conditions = [numbered.identifier("a\"?b") + " = " + numbered.parameter(.integer(1)),
                             numbered.identifier("ZDATA") + " = " + numbered.parameter(.blob(Data()))]
        #expect(select.render(in: numbered).sql(in: numbered)
                == "SELECT \"what?\", '?' FROM \"ODD?TABLE\" WHERE (\"a\"\"?b\" = $1) AND (ZDATA = zeroblob($2))")
    }

    @Test("INSERT and UPDATE of a written row: markers numbered by column, the UPDATE's keys after its assignments")
    func writes() {
        let model = TestModels.orderedModel()
        let schema = schema(model)
        let plan = SQLiteWritePlan(entity: model.entitiesByName["Song"]!, schema: schema, dialect: numbered)
        #expect(plan.insertSQL == "INSERT INTO ZSONG (Z_PK, Z_ENT, Z_OPT, ZPLAYLIST, Z_FOK_PLAYLIST, ZTITLE) VALUES ($1, $2, $3, $4, $5, $6)")
        #expect(plan.updateSQL(columns: [2]) == "UPDATE ZSONG SET Z_OPT = $1, ZTITLE = $2 WHERE Z_PK = $3 AND Z_OPT = $4")
        #expect(plan.deleteSQL == "DELETE FROM ZSONG WHERE Z_PK = $1")
        // An assignment whose expression holds markers of its own: they come first, in reading order.
        #expect(SQLBookkeepingStatements(dialect: numbered).raiseMaxKey
                == "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(COALESCE(Z_MAX, $1), $2) WHERE Z_ENT = $3")
    }
}

/// SQLite's spelling with numbered parameters, only for tests: what a PostgreSQL dialect does
/// with its markers, with everything else as SQLite writes it.
private struct NumberedDialect: SQLDialect {
    private let base = SQLiteDialect()

    func parameterMarker(at position: Int) -> String { "$\(position)" }
    var numbersParameters: Bool { true }

    var identifierQuote: Character { base.identifierQuote }
    var reservedWords: Set<String> { base.reservedWords }
    func typeName(of type: SQLColumnType, length: Int?) -> String { base.typeName(of: type, length: length) }
    func booleanLiteral(_ value: Bool) -> String { base.booleanLiteral(value) }
    func pagingClause(limit: Int, offset: Int) -> SQLFragment { base.pagingClause(limit: limit, offset: offset) }
    func insertVerb(_ conflict: SQLConflictResolution) -> String { base.insertVerb(conflict) }
    func conflictClause(_ conflict: SQLConflictResolution) -> String { base.conflictClause(conflict) }
    func greatest(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment { base.greatest(lhs, rhs) }
    func parameter(_ value: SQLValue) -> SQLFragment { base.parameter(value) }
    func bindsPlainly(_ value: SQLValue) -> Bool { base.bindsPlainly(value) }
    func collationName(_ collation: SQLCollation) -> String { base.collationName(collation) }
    func call(_ function: SQLFunction, _ arguments: [SQLFragment]) -> SQLFragment { base.call(function, arguments) }
    func evaluatesBuiltin(_ selector: String, arity: Int) -> Bool { base.evaluatesBuiltin(selector, arity: arity) }
    func isNotDistinct(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment { base.isNotDistinct(lhs, rhs) }
    func isDistinct(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment { base.isDistinct(lhs, rhs) }
    func isNotTrue(_ condition: SQLFragment) -> SQLFragment { base.isNotTrue(condition) }
    func castToReal(_ value: SQLFragment) -> SQLFragment { base.castToReal(value) }
    func total(_ value: SQLFragment) -> SQLFragment { base.total(value) }
    func plainEqualityMatchesMemory(_ value: SQLValue) -> Bool { base.plainEqualityMatchesMemory(value) }
}
