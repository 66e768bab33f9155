import Foundation
import Testing
@testable import OpenCoreData

/// Issue 30 point 3 (fourth class): predicates SQLite cannot run (more tables than it joins in
/// one SELECT) are evaluated in memory, so SQLite, the in-memory store and `evaluate(with:)`
/// give one answer.
@Suite("Predicates past SQLite's limits run in memory")
struct LargePredicateFallbackTests {
    /// People whose `mother` is themselves (a cycle of one), plus one without a mother.
    static func people(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let looped = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            looped.setValue("looped", forKey: "name")
            looped.setValue(3, forKey: "age")
            looped.setValue(looped, forKey: "mother")
            let orphan = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            orphan.setValue("orphan", forKey: "name")
            orphan.setValue(3, forKey: "age")
            try context.save()
            context.reset()
        }
    }

    static func names(_ predicate: NSPredicate, in context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = predicate
            let objects = try context.fetch(request)
            // evaluate(with:) agrees with the store on every fetched and unfetched object.
            let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(Set(all.filter { predicate.evaluate(with: $0) }.map(ObjectIdentifier.init)) == Set(objects.map(ObjectIdentifier.init)))
            return objects.compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
    }

    static func sameAnswer(_ format: String) throws -> [String] {
        let predicate = try NSPredicate.parse(format: format, arguments: [])
        let sqlite = try TestModels.sqliteContext(TestModels.personModel())
        let memory = try TestModels.inMemoryContext(TestModels.personModel())
        try people(sqlite)
        try people(memory)
        let fromSQLite = try names(predicate, in: sqlite)
        #expect(fromSQLite == (try names(predicate, in: memory)))
        return fromSQLite
    }

    @Test("A 10,000-hop to-one key path answers on SQLite as in memory")
    func longToOnePath() throws {
        let format = Array(repeating: "mother", count: 10_000).joined(separator: ".") + ".age == 3"
        #expect(try Self.sameAnswer(format) == ["looped"])
    }

    @Test("A key path needing more joins than one SELECT holds is left to memory")
    func joinLimit() throws {
        let model = TestModels.personModel()
        model.freeze()
        let schema = SQLStoreSchema(model: model)
        let person = try #require(model.entitiesByName["Person"])
        func lowers(_ hops: Int) -> Bool {
            var state = SQLTranslationState(schema: schema, dialect: SQLiteDialect(), entity: person)
            let format = Array(repeating: "mother", count: hops).joined(separator: ".") + ".age == 3"
            return (try? state.condition(for: NSPredicate(format: format))) != nil
        }
        #expect(lowers(SQLTranslationState.maximumJoinsPerSelect))
        #expect(!lowers(SQLTranslationState.maximumJoinsPerSelect + 2))
    }

    @Test("Ten nested SUBQUERYs answer on SQLite as in memory")
    func nestedSubqueries() throws {
        var inner = "$c10.age == 3"
        for level in stride(from: 10, through: 1, by: -1) {
            let source = level == 1 ? "children" : "$c\(level - 1).children"
            inner = "SUBQUERY(\(source), $c\(level), \(inner)).@count > 0"
        }
        #expect(try Self.sameAnswer(inner) == ["looped"])
    }
}
