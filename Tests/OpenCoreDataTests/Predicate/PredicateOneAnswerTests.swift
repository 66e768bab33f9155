import Foundation
import Testing
@testable import OpenCoreData

// MARK: - PredicateOneAnswerTests

/// Issue 30, point 3: the classes where SQL, the in-memory store and `evaluate(with:)` used to
/// answer differently — decimals against doubles beyond a decimal's range, NaN and infinity from
/// arithmetic, canonically equivalent strings in a to-many value set — now answer one way, SQL's.
@Suite("One answer per predicate")
struct PredicateOneAnswerTests {
    /// The names of the items `format` selects on each store, fetched and evaluated; one answer.
    private func answer(_ format: String, _ arguments: [Any] = [], contexts: [NSManagedObjectContext]) throws -> [String] {
        let predicate = try NSPredicate.parse(format: format, arguments: arguments)
        var answers: [[String]] = []
        for context in contexts {
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = predicate
                answers.append(try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted())
                let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                answers.append(all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }.sorted())
            }
        }
        #expect(Set(answers).count == 1, "\(format): memory store, evaluate, SQLite, evaluate: \(answers)")
        return answers[0]
    }

    private static let withDecimal = ["item0", "item1", "item2", "item3", "item4", "item5", "item6"]

    @Test("A decimal against a double outside a decimal's range compares as SQL compares the REAL it stores")
    func decimalAgainstHugeDoubles() throws {
        let contexts = try ToManyValueTests.contexts()
        #expect(try answer("dec > 1e308", contexts: contexts) == [])
        #expect(try answer("dec < 1e308", contexts: contexts) == Self.withDecimal)
        #expect(try answer("dec > -1e308", contexts: contexts) == Self.withDecimal)
        #expect(try answer("dec != 1e308", contexts: contexts) == Self.withDecimal + ["item7"])
        #expect(try answer("dec == 1e308", contexts: contexts) == [])
        #expect(try answer("dec > %@", [Double.greatestFiniteMagnitude], contexts: contexts) == [])
        #expect(try answer("dec < %@", [Double.infinity], contexts: contexts) == Self.withDecimal)
        #expect(try answer("dec > %@", [-Double.infinity], contexts: contexts) == Self.withDecimal)
        #expect(try answer("dec > 1e-320", contexts: contexts) == Self.withDecimal)
        #expect(try answer("dec BETWEEN {1e-320, 1e200}", contexts: contexts) == Self.withDecimal)
        #expect(try answer("dec > %@", [Decimal.greatestFiniteMagnitude], contexts: contexts) == [])
        #expect(try answer("dec * 1e300 > 1e300", contexts: contexts) == ["item1", "item4"])
        #expect(try answer("dec IN {1e308, 1.5}", contexts: contexts) == ["item1", "item4"])
        // A whole decimal is an INTEGER in its NUMERIC-affinity column: integer arithmetic, exact past 2^53.
        #expect(try answer("dec + 9007199254740992 == 9007199254740993", contexts: contexts) == ["item0", "item3", "item6"])
        _ = try answer("i64 * 9007199254740993 - dec == i64 * 9007199254740993", contexts: contexts)
        #expect(try answer("ANY friends.dec > 1e308", contexts: contexts) == [])
        #expect(try answer("ALL friends.dec < 1e308", contexts: contexts).contains("item0"))
    }

    @Test("NaN from ** and raise:toPower: is nil, as SQLite makes it NULL; infinities order as in SQLite")
    func nanAndInfinity() throws {
        let contexts = try ToManyValueTests.contexts()
        // (i16 - 5) is negative: a fractional power of it is NaN, so nil.
        #expect(try answer("(i16 - 5) ** 0.5 == nil", contexts: contexts) == Self.withDecimal + ["item7"])
        #expect(try answer("(i16 - 5) ** 0.5 != nil", contexts: contexts) == [])
        #expect(try answer("(i16 - 5) ** 0.5 < 0", contexts: contexts) == [])
        #expect(try answer("raise:toPower:(dbl - 1, 0.5) >= 0", contexts: contexts) == [])
        #expect(try answer("NOT raise:toPower:(dbl - 1, 0.5) > 0", contexts: contexts) == Self.withDecimal + ["item7"])
        #expect(try answer("(i16 - 5) ** 0.5 == (i16 - 5) ** 0.5", contexts: contexts) == Self.withDecimal + ["item7"])
        // Infinity is a value in both: 60 ** 200 overflows to +inf.
        #expect(try answer("i32 ** 200 > 1e308", contexts: contexts) == Self.withDecimal)
        #expect(try answer("i32 ** 200 == i32 ** 201", contexts: contexts) == Self.withDecimal + ["item7"])
        #expect(try answer("-(i32 ** 200) < -1e308", contexts: contexts) == Self.withDecimal)
        // inf - inf and 0 * inf are NaN: nil.
        #expect(try answer("i32 ** 200 - i32 ** 200 == nil", contexts: contexts) == Self.withDecimal + ["item7"])
        #expect(try answer("0 * i32 ** 200 == nil", contexts: contexts) == Self.withDecimal + ["item7"])
        #expect(try answer("i32 ** 200 - i32 ** 200 > 0", contexts: contexts) == [])
        #expect(try answer("dbl == %@", [Double.nan], contexts: contexts) == ["item7"])
        #expect(try answer("dbl != %@", [Double.nan], contexts: contexts) == Self.withDecimal)
        #expect(try answer("dec == %@", [Decimal.nan], contexts: contexts) == ["item7"])
        #expect(try answer("dbl < %@", [Double.nan], contexts: contexts) == [])
    }

    @Test("Canonically equivalent strings in a to-many value set both stay: MATCHES answers as SQL, whatever the order")
    func canonicallyEquivalentStrings() throws {
        // Tags "café" and "cafe\u{301}" (and "Cafe") on one item, inserted in both orders.
        for order in [["café", "cafe\u{301}", "Cafe"], ["cafe\u{301}", "café", "Cafe"]] {
            let contexts = try StoreKind.allCases.map { kind -> NSManagedObjectContext in
                let context = try kind.context(ToManyValueTests.model())
                try context.performAndWait {
                    let owner = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    owner.setValue("owner", forKey: "name")
                    let tags = order.enumerated().map { offset, label -> NSManagedObject in
                        let tag = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                        tag.setValue("tag\(offset)", forKey: "name")
                        tag.setValue(label, forKey: "str")
                        return tag
                    }
                    owner.setValue(NSSet(array: tags), forKey: "friends")
                    try context.save()
                }
                return context
            }
            #expect(try answer("ANY friends.str MATCHES %@", ["caf\u{e9}"], contexts: contexts) == ["owner"])
            #expect(try answer("ANY friends.str MATCHES %@", ["cafe\u{301}"], contexts: contexts) == ["owner"])
            #expect(try answer("ANY friends.str MATCHES 'caf.'", contexts: contexts) == ["owner"])
            #expect(try answer("ALL friends.str MATCHES 'caf.'", contexts: contexts).contains("owner") == false)
            #expect(try answer("count:(friends.str) == 3", contexts: contexts) == ["owner"])
            #expect(try answer("friends.str CONTAINS %@", ["cafe\u{301}"], contexts: contexts) == ["owner"])
            #expect(try answer("ANY friends.str ==[n] %@", ["caf\u{e9}"], contexts: contexts) == ["owner"])
            try contexts[0].performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = NSPredicate(format: "name == 'owner'")
                let owner = try contexts[0].fetch(request)[0]
                let labels = owner.value(forKeyPath: "friends.str") as? NSSet
                #expect(labels?.count == 3)
                #expect((owner.value(forKeyPath: "friends.@distinctUnionOfObjects.str") as? [Any])?.count == 3)
            }
        }
    }
}
