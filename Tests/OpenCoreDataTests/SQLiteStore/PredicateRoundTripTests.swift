import Foundation
import Testing
@testable import OpenCoreData

/// Issue 14 point 7: `predicateFormat` parses back to an equal predicate, and a fetch gives the
/// objects `evaluate(with:)` selects, for generated predicates (fixed seed; the count comes from
/// `OCD_FUZZ_COUNT`, see docs/Fuzzing.md).
@Suite("Predicate round-trip")
struct PredicateRoundTripTests {
    /// How many predicates to generate: `OCD_FUZZ_COUNT` when set, else `fallback`.
    static func count(_ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment["OCD_FUZZ_COUNT"].flatMap(Int.init).map { max(1, $0) } ?? fallback
    }

    // MARK: - Generator

    /// Format strings over `LoweringTestModel`'s Person: typed so that most compare like with
    /// like, with some mixing of kinds, nils, TERNARY, subscripts, collections and SUBQUERY.
    struct Generator {
        var random: SeededGenerator

        mutating func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

        static let numberKeys = ["age", "salary", "level", "a", "b", "c", "grade", "rating", "department.budget", "department.manager.age",
                                 "parent.age", "location.latitude", "children.@count", "tags.@count", "toys.@count", "#IN",
                                 "toys[FIRST].price", "toys[LAST].price", "toys[1].price", "children.@max.age", "toys.@sum.price"]
        static let stringKeys = ["name", "firstName", "lastName", "city", "email", "missing", "department.name", "parent.name",
                                 "location.placeName", "groups[FIRST].name", "name.length" ]
        static let strings = ["'Ann'", "'adam'", "''", "'Zoë'", "'Zoe\u{308}'", "'zu'", "'a*'", "'?d*'", "\"É\"", "'k'", "'\u{212A}elvin'", "'\\u0000'"]

        mutating func number(_ depth: Int) -> String {
            switch random.next() % (depth > 2 ? 3 : 9) {
            case 0, 1: return pick(Self.numberKeys)
            case 2: return pick(["0", "1", "2", "-3", "5", "12", "2.5", "-0.5", "50", "1e3", "nil", "YES", "NO"])
            case 3: return number(depth + 1) + pick([" + ", " - ", " * ", " / "]) + number(depth + 1)
            case 4: return "-" + number(depth + 1)
            case 5: return "TERNARY(" + predicate(depth + 1) + ", " + number(depth + 1) + ", " + number(depth + 1) + ")"
            case 6: return "(" + number(depth + 1) + ")" + pick(["", "[1]", "[0]", "[FIRST]", "[SIZE]"])
            case 7: return pick(["abs:(", "count:(", "sum:(", "max:(", "min:("]) + number(depth + 1) + ")"
            default: return pick(["SUBQUERY(children, $c, $c.age > 10).@count", "SUBQUERY(toys, $t, $t.price < 20).@count",
                                  "{1, 2, 3}.@count", "{1, 2, 3}[1]", "FUNCTION(age, 'abs:')"])
            }
        }

        mutating func string(_ depth: Int) -> String {
            switch random.next() % (depth > 2 ? 2 : 5) {
            case 0: return pick(Self.stringKeys)
            case 1: return pick(Self.strings)
            case 2: return "TERNARY(" + predicate(depth + 1) + ", " + string(depth + 1) + ", " + string(depth + 1) + ")"
            case 3: return pick(["lowercase:(", "uppercase:("]) + string(depth + 1) + ")"
            default: return "nil"
            }
        }

        mutating func predicate(_ depth: Int) -> String {
            switch random.next() % (depth > 2 ? 4 : 10) {
            case 0, 1:
                return number(depth + 1) + " " + pick(["==", "!=", "<", "<=", ">", ">="]) + " " + number(depth + 1)
            case 2:
                let operators = ["==", "!=", "<", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"]
                return string(depth + 1) + " " + pick(operators) + pick(["", "", "[c]", "[d]", "[cd]", "[n]"]) + " " + string(depth + 1)
            case 3:
                return pick(["TRUEPREDICATE", "FALSEPREDICATE", "isActive == YES", "isActive == nil", "birthday < CAST(0, 'NSDate')",
                             "department == nil", "parent.parent == nil"])
            case 4: return predicate(depth + 1) + pick([" AND ", " OR "]) + predicate(depth + 1)
            case 5: return "NOT (" + predicate(depth + 1) + ")"
            case 6: return pick(["ANY children.age > ", "ALL toys.price < ", "NONE children.age == ", "ANY tags.@count > "]) + pick(["0", "10", "20"])
            case 7: return number(depth + 1) + pick([" BETWEEN {1, 20}", " IN {0, 1, 2}", " IN {}"])
            case 8: return string(depth + 1) + pick([" IN {'Ann', 'Bob'}", " IN[c] {'ann'}"])
            default: return "(" + predicate(depth + 1) + ")"
            }
        }
    }

    // MARK: - Tests

    @Test("parse(print(p)) == p for generated predicates, and printing is stable")
    func printingRoundTrips() throws {
        var generator = Generator(random: SeededGenerator(seed: 0x0C0D_E714))
        var parsed = 0, failures: [String] = []
        for _ in 0..<Self.count(20_000) {
            let format = generator.predicate(0)
            guard let predicate = try? NSPredicate.parse(format: format) else { continue }
            parsed += 1
            let printed = predicate.predicateFormat
            guard let reparsed = try? NSPredicate.parse(format: printed) else {
                failures.append("\(format) → \(printed) does not parse")
                continue
            }
            if reparsed != predicate || reparsed.predicateFormat != printed {
                failures.append("\(format) → \(printed) → \(reparsed.predicateFormat)")
            }
        }
        #expect(parsed > Self.count(20_000) / 2)
        #expect(failures.isEmpty, "\(failures.count) do not round-trip, e.g. \(failures.prefix(5))")
    }

    @Test("Printing round-trips: subtraction of a constant from 0, and keys that are not identifiers")
    func knownCases() throws {
        let zero = try NSPredicate.parse(format: "0 - 0 == 1")
        #expect(zero.predicateFormat == "0 - 0 == 1")
        #expect(try NSPredicate.parse(format: zero.predicateFormat) == zero)
        #expect(try NSPredicate.parse(format: "-age == 1").predicateFormat == "-age == 1")
        #expect(try NSPredicate.parse(format: "0 - -5 == 5").predicateFormat == "0 - -5 == 5")
        for key in ["a b", "\"q\"", "'s", "$x", "1st", "é", "AND", "first", "@count", "@", "#", "a\u{0}b", "x-y"] {
            let predicate = NSPredicate(format: "%K == 1", key)
            let reparsed = try NSPredicate.parse(format: predicate.predicateFormat)
            #expect(reparsed == predicate, "key \(key.debugDescription) prints as \(predicate.predicateFormat)")
        }
        #expect(NSPredicate(format: "%K == 1", "a b").predicateFormat == "#\"a b\" == 1")
        #expect(NSPredicate(format: "%K == 1", "AND").predicateFormat == "#AND == 1")
        #expect(NSPredicate(format: "%K.%K == 1", "x y", "z").predicateFormat == "#\"x y\".z == 1")
    }

    @Test("SQL and memory select the same objects for generated predicates")
    func sqlAgreesWithMemory() throws {
        let context = try TestModels.sqliteContext(LoweringTestModel.model())
        try LoweringTestModel.populate(context)
        var generator = Generator(random: SeededGenerator(seed: 0x0A61_EE14))
        var compared = 0, native = 0, disagreements: [String] = []
        let total = Self.count(20_000) / 10
        try context.performAndWait {
            let everyone = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            let entity = context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Person"]!
            for _ in 0..<total {
                let format = generator.predicate(0)
                guard let predicate = try? NSPredicate.parse(format: format) else { continue }
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.predicate = predicate
                if context.persistentStoreCoordinator!.evaluatesNatively(StoreFetchRequest(request, entity: entity, paging: false), affectedStores: nil) {
                    native += 1
                }
                let expected = Set(everyone.filter { predicate.evaluate(with: $0) }.map(\.objectID))
                let fetched: Set<NSManagedObjectID>
                do {
                    fetched = Set(try context.fetch(request).map(\.objectID))
                } catch {
                    disagreements.append("\(format): fetch failed: \(error)")
                    continue
                }
                compared += 1
                if fetched != expected {
                    disagreements.append("\(format): SQL \(fetched.count), memory \(expected.count)")
                }
            }
        }
        #expect(compared > total / 2)
        #expect(native > compared / 2, "only \(native) of \(compared) ran in SQL")
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, e.g. \(disagreements.prefix(8))")
    }

    @Test("A subscript of a TERNARY that lowers to a constant is nil in SQL as in memory")
    func ternarySubscript() throws {
        let context = try TestModels.sqliteContext(LoweringTestModel.model())
        try LoweringTestModel.populate(context)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = NSPredicate(format: "TERNARY(TRUEPREDICATE, 5, age)[1] == nil")
            let everyone = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(everyone.allSatisfy { request.predicate!.evaluate(with: $0) })
            #expect(try context.fetch(request).count == everyone.count)
        }
    }
}
