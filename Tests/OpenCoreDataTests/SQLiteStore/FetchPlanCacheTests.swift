import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// The SQLite store's fetch plans (issue #15): one translation per request shape, cached; later
/// requests of the shape bind their own constants. A cached plan must be exactly the statement a
/// fresh translation gives, for any constants, or the fetch would return other rows.
@Suite("Fetch plan cache")
struct FetchPlanCacheTests {
    /// The store, its backend and the model of a populated lowering-test store.
    private struct Fixture {
        let context: NSManagedObjectContext
        let store: NSPersistentStore
        let backend: SQLiteStore

        init() throws {
            context = try TestModels.sqliteContext(LoweringTestModel.model())
            try LoweringTestModel.populate(context)
            store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
            backend = try #require(store.backend as? SQLiteStore)
        }

        func entity(_ name: String) throws -> NSEntityDescription {
            try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name])
        }

        /// The statement `planFetch` gives (through the cache), or nil when it plans nothing.
        func planned(_ request: StoreFetchRequest, _ purpose: StoreFetchPurpose) throws -> SQLFragment? {
            guard let plan = try backend.planFetch(request, for: purpose, store: store) else { return nil }
            return try #require(plan as? SQLiteFetchPlan).sql
        }

        /// The statement a translation gives now, bypassing the cache.
        func fresh(_ request: StoreFetchRequest, _ purpose: StoreFetchPurpose) -> SQLFragment? {
            guard let query = try? SQLFetchQuery(request, storeIdentifier: store.identifier) else { return nil }
            return backend.statement(for: query, purpose)
        }
    }

    @Test("A plan served from the cache is the statement a fresh translation gives, for every corpus case and other constants of its shape")
    func cachedPlansEqualFreshTranslations() throws {
        let fixture = try Fixture()
        let context = fixture.context
        let cases = PredicateCorpus.cases.map { ($0.format, $0.arguments, $0.onTodo ? "Todo" : "Person") }
            + PredicateLoweringEquivalenceTests.loweringCases(context)
        var served = 0, compared = 0
        try context.performAndWait {
            let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            for (format, arguments, entityName) in cases {
                guard let predicate = try? NSPredicate.parse(format: format, arguments: arguments) else { continue }
                let entity = try fixture.entity(entityName)
                let sort = [NSSortDescriptor(key: "name", ascending: true)]
                let original = StoreFetchRequest(entity: entity, predicate: predicate, sortDescriptors: entityName == "Person" ? sort : [])
                let query = try SQLFetchQuery(original, storeIdentifier: fixture.store.identifier)
                guard let constants = SQLPlanShape(query, purpose: 0, dialect: SQLiteStore.dialect)?.constants else {
                    // now() and random() bind a new value per translation, FUNCTION() never runs: not cached.
                    #expect(["now()", "random", "FUNCTION("].contains { format.contains($0) }, "\(format) has no plan shape")
                    continue
                }
                // Sets and dictionaries list their elements in no fixed order, so their IN lists
                // may bind the same values in another order.
                let unordered = arguments.contains { $0 is any SetAlgebra || $0 is NSSet || $0 is [AnyHashable: Any] || $0 is NSDictionary }
                func same(_ lhs: SQLFragment?, _ rhs: SQLFragment?) -> Bool {
                    guard unordered, let lhs, let rhs else { return lhs == rhs }
                    return lhs.text == rhs.text && lhs.arguments.map { "\($0)" }.sorted() == rhs.arguments.map { "\($0)" }.sorted()
                }
                for variant in 0..<4 {
                    var replacements: [Int: Any] = [:]
                    for (index, constant) in constants.enumerated() {
                        replacements[index] = Self.variant(of: constant, variant, people: people, entity: entity) as Any
                    }
                    let other = SQLPlanShape.substituting(replacements, in: query)
                    let otherRequest = StoreFetchRequest(entity: entity, predicate: other.predicate, sortDescriptors: original.sortDescriptors)
                    for purpose in [StoreFetchPurpose.snapshots, .objectIDs, .count] {
                        // Plan the original (filling the cache), then the variant of its shape.
                        fixture.backend.planCache.removeAll()
                        _ = try fixture.planned(original, purpose)
                        if let shape = SQLPlanShape(other, purpose: purpose.planCode, dialect: SQLiteStore.dialect),
                           fixture.backend.planCache.statement(for: shape) != nil { served += 1 }
                        let cached = try fixture.planned(otherRequest, purpose)
                        #expect(same(cached, fixture.fresh(otherRequest, purpose)), "\(format) variant \(variant) (\(purpose))")
                        // And the other way round.
                        fixture.backend.planCache.removeAll()
                        _ = try fixture.planned(otherRequest, purpose)
                        let back = try fixture.planned(original, purpose), backFresh = fixture.fresh(original, purpose)
                        #expect(same(back, backFresh), "\(format) after variant \(variant) (\(purpose)): \(String(describing: back?.arguments)) vs \(String(describing: backFresh?.arguments))")
                        compared += 2
                    }
                }
            }
        }
        #expect(compared > 2_000)
        // Most shapes' constants are bound again: the cache serves other values.
        #expect(served > compared / 8, "served \(served) of \(compared / 2)")
    }

    @Test("Lookups by a unique key with a new predicate each time: one translation, and each fetch finds its own object")
    func lookupsReuseOnePlan() throws {
        let fixture = try Fixture()
        let context = fixture.context
        try context.performAndWait {
            let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            let keyed = people.filter { $0.value(forKey: "id") != nil }
            #expect(keyed.count > 20)
            fixture.backend.planCache.removeAll()
            for person in keyed {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.predicate = NSPredicate(format: "id == %@", person.value(forKey: "id") as! UUID)
                #expect(try context.fetch(request).map(\.objectID) == [person.objectID])
            }
            #expect(fixture.backend.planCache.count == 1)
        }
    }

    @Test("Constants the lowering reads rather than binds (LIKE patterns, string options, IN lists) are served only for equal values; a query with no rebindable constant is not cached")
    func pinnedConstantsServeEqualValuesOnly() throws {
        let fixture = try Fixture()
        let person = try fixture.entity("Person")
        func request(_ format: String, _ arguments: [Any]) -> StoreFetchRequest {
            StoreFetchRequest(entity: person, predicate: NSPredicate(format: format, argumentArray: arguments))
        }
        func shape(_ format: String, _ arguments: [Any]) throws -> SQLPlanShape {
            let query = try SQLFetchQuery(request(format, arguments), storeIdentifier: fixture.store.identifier)
            return try #require(SQLPlanShape(query, purpose: StoreFetchPurpose.objectIDs.planCode, dialect: SQLiteStore.dialect))
        }
        let (first, second) = (UUID(), UUID())
        for (format, pinned, other) in [("id == %@ AND name LIKE %@", "A*", "B*"), ("id == %@ AND name ==[c] %@", "adam", "eve"),
                                        ("id == %@ AND name BEGINSWITH %@", "", "A"), ("id == %@ AND age IN %@", [1, 2], [1, 3])] as [(String, Any, Any)] {
            fixture.backend.planCache.removeAll()
            _ = try fixture.planned(request(format, [first, pinned]), .objectIDs)
            // Another key binds into the cached plan; another pinned value does not.
            #expect(fixture.backend.planCache.statement(for: try shape(format, [second, pinned])) != nil, "\(format)")
            #expect(fixture.backend.planCache.statement(for: try shape(format, [second, other])) == nil, "\(format)")
        }
        // Only pinned constants: every new value would miss, so the plan is not cached at all.
        fixture.backend.planCache.removeAll()
        for prefix in ["A", "B", "C"] { _ = try fixture.planned(request("name BEGINSWITH[c] %@", [prefix]), .objectIDs) }
        #expect(fixture.backend.planCache.count == 0)
        // A query without constants is.
        _ = try fixture.planned(request("name != nil", []), .objectIDs)
        #expect(fixture.backend.planCache.count == 1)
        // now() changes between two translations: never cached.
        let query = try SQLFetchQuery(request("birthday < now()", []), storeIdentifier: fixture.store.identifier)
        #expect(SQLPlanShape(query, purpose: 0, dialect: SQLiteStore.dialect) == nil)
    }

    @Test("An object constant before and after its save: the temporary ID matches no row, the permanent one its row")
    func objectConstantsAcrossSave() throws {
        let fixture = try Fixture()
        let context = fixture.context
        try context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            let toy = NSEntityDescription.insertNewObject(forEntityName: "Toy", into: context)
            toy.setValue(owner, forKey: "owner")
            let request = NSFetchRequest<NSManagedObject>(entityName: "Toy")
            request.predicate = NSPredicate(format: "owner == %@", owner)
            // Unsaved: the store has no such row; the context's pending toy matches.
            #expect(try context.fetch(request) == [toy])
            try context.save()
            let other = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            let otherToy = NSEntityDescription.insertNewObject(forEntityName: "Toy", into: context)
            otherToy.setValue(other, forKey: "owner")
            try context.save()
            context.reset()
            for (person, expected) in [(owner, toy), (other, otherToy)] {
                let lookup = NSFetchRequest<NSManagedObject>(entityName: "Toy")
                lookup.predicate = NSPredicate(format: "owner == %@", person.objectID)
                #expect(try context.fetch(lookup).map(\.objectID) == [expected.objectID])
            }
        }
    }

    // MARK: - Variants

    /// Another constant for the `variant`-th try: same type where it can be, with the values
    /// the lowering treats specially (empty, non-ASCII, NUL, nil, temporary IDs) among them.
    private static func variant(of constant: SQLPlanConstant, _ variant: Int, people: [NSManagedObject], entity: NSEntityDescription) -> Any? {
        func pick(_ values: [Any?]) -> Any? { values[variant % values.count] }
        switch constant.classification {
        case .null:
            return pick([nil, "Adam", 5, nil])
        case .value(let kind, _):
            switch kind {
            case .string: return pick(["Eve", "", "Zoë", "a\u{0}b", "K"])
            case .number(isInteger: true): return pick([0, 41, -7, true])
            case .number(isInteger: false): return pick([0.5, -2.25, 1e300, Double.nan])
            case .date: return pick([Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 5e8)])
            case .uuid: return pick([UUID(), PredicateFixtures.adamID])
            case .data: return pick([Data(), Data([1, 2, 3]), Data([0])])
            case .url: return pick([URL(string: "https://example.com/p1")!, URL(string: "a:b")!])
            case .object: return constant.value
            }
        case .objectID(let id):
            let peers = people.filter { $0.objectID.entity === id.entity }
            return pick([peers.first?.objectID, peers.last?.objectID, NSManagedObjectID(temporaryFor: id.entity), nil])
        case .collection(let elements):
            return pick([Array(elements.reversed()), [Any?](), elements + [elements.first ?? nil]])
        case .opaque:
            return constant.value
        }
    }
}
