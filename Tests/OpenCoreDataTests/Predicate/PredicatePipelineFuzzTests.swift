import Foundation
import Testing
@testable import OpenCoreData

// MARK: - PredicatePipelineFuzzTests

/// Issue 14's predicate fuzz target: every generated format string goes through parse → print →
/// re-parse → evaluate → fetch on both stores (in memory and SQLite). Whatever parses must never
/// trap later: a key the entity lacks is a thrown `NSError`, a chain too deep a
/// `PredicateFormatError`. Fixed seed; `OCD_FUZZ_COUNT` sets the number of inputs (20,000 by
/// default; docs/Fuzzing.md shows a 1M run).
@Suite("Predicate pipeline fuzzing")
struct PredicatePipelineFuzzTests {
    /// Inputs per run: `OCD_FUZZ_COUNT`, or 20,000.
    static var count: Int {
        ProcessInfo.processInfo.environment["OCD_FUZZ_COUNT"].flatMap(Int.init) ?? 20_000
    }

    /// Keys of the lowering model's Person, its relationships' entities, and keys it lacks.
    static let keys = [
        "name", "age", "salary", "isActive", "birthday", "tags", "tags.name", "children", "children.age", "friends.name",
        "department.name", "department.budget", "location.placeName", "toys.price", "groups.name", "parent.age",
        "self", "SELF", "objectID", "nope", "tags.nope", "children.SELF", "", "...", "a..b", "@count", "tags.@count",
        "children.@avg.age", "children.@max.nope", "tags.@distinctUnionOfObjects.name", "department.manager.name",
    ]

    /// Comparisons and expressions over those keys, including the issue's trapping examples.
    static let templates = [
        "%K == 1", "%K != nil", "%K > 3", "%K BEGINSWITH[c] 'a'", "%K MATCHES 'A.*'", "ANY %K == 'x'", "ALL %K > 1",
        "SUBQUERY(tags, $t, %K == 'x').@count > 0", "SUBQUERY(children, $c, $c.%K > 1).@count > 0",
        "SUBQUERY(tags, $t, age > 1).@count > 0", "SELF['%K'] == 1", "SELF[%K] == 1", "tags[FIRST].%K == 1",
        "children[0].%K == 1", "children[LAST].%K > 2", "children[SIZE] > %@", "TERNARY(%K == nil, 1, 2) == 1",
        "{%K, age} CONTAINS 3", "(%K UNION children) != nil", "%K IN %@", "count(%K) > 1", "max:(%K) > 1",
        "FUNCTION(%K, 'foo') == 1", "%K + 1 == age * 2", "-%K == 0", "%K.length > 2", "NOT %K == 1",
    ]

    @Test("Generated predicates parse, print, re-parse, evaluate and fetch on both stores without a trap")
    func pipeline() throws {
        var generator = SeededGenerator(seed: 0x0C0D_F022)
        let model = LoweringTestModel.model()
        let stores = try StoreKind.allCases.map { kind -> NSManagedObjectContext in
            let context = try kind.context(model)
            try LoweringTestModel.populate(context)
            try context.performAndWait { try context.save() }
            return context
        }
        let seeds = PredicateCorpus.cases.filter { !$0.onTodo }.map(\.format)
        var stats = Stats()
        for iteration in 0..<Self.count {
            let (input, arguments) = Self.input(iteration, seeds: seeds, &generator)
            guard let predicate = try? NSPredicate.parse(format: input, arguments: arguments) else { continue }
            stats.parsed += 1
            // Printing and re-parsing never trap (whether the print round-trips is point 7's property test).
            let printed = predicate.predicateFormat
            if (try? NSPredicate.parse(format: printed)) != nil { stats.reparsed += 1 }
            // Dictionaries read any key: evaluation never traps on them.
            _ = predicate.evaluate(with: ["name": "Adam", "age": 3, "tags": [["name": "x"]]])
            // Every eighth predicate is fetched (on two stores), to keep the debug run short.
            guard iteration % 8 == 0 else { continue }
            var outcomes: [Result<Int, NSError>] = []
            for context in stores {
                outcomes.append(context.performAndWait {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                    request.predicate = predicate
                    do { return .success(try context.fetch(request).count) } catch { return .failure(error as NSError) }
                })
            }
            stats.fetched += 1
            if case .failure(let error) = outcomes[0] {
                stats.refused += 1
                #expect(error.domain == NSCocoaErrorDomain, "\(input): \(error)")
            }
            // A key the model lacks is refused the same way by both stores, before either runs.
            if case .failure(let memory) = outcomes[0], case .failure(let sqlite) = outcomes[1] {
                #expect(memory.code == sqlite.code, "\(input): \(memory) vs \(sqlite)")
            } else if case .failure = outcomes[0] {
                Issue.record("\(input): refused in memory only: \(outcomes)")
            } else if case .failure = outcomes[1] {
                Issue.record("\(input): refused by SQLite only: \(outcomes)")
            } else if (try? outcomes[0].get()) != (try? outcomes[1].get()) {
                // Positional subscripts of an unordered to-many ([0], [FIRST], [LAST]) count in
                // primary-key order on both stores, so every difference is a disagreement.
                Issue.record("\(input): the stores disagree: \(outcomes)")
            }
        }
        #expect(stats.parsed > Self.count / 5)
        #expect(stats.refused > 0 && stats.refused < stats.fetched)
    }

    @Test("The issue's inputs: unknown keys throw from fetch, deep chains from parse")
    func issueExamples() throws {
        let context = try TestModels.sqliteContext(LoweringTestModel.model())
        for (format, arguments) in [("SUBQUERY(tags, $t, age > 1).@count > 0", []), ("%K == 1", ["..."]),
                                    ("SELF['key'] == 1", []), ("children.SELF == 1", []), ("tags[FIRST].nope == 1", [])] as [(String, [Any])] {
            let predicate = try NSPredicate.parse(format: format, arguments: arguments)
            let error = context.performAndWait { () -> NSError? in
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.predicate = predicate
                do { _ = try context.fetch(request) } catch { return error as NSError }
                return nil
            }
            #expect(error?.code == NSCoreDataError, "\(format)")
            #expect(error?.localizedDescription.contains("not found in entity") == true, "\(format)")
        }
        for format in [Array(repeating: "1", count: 29_000).joined(separator: " + ") + " == 1",
                       "a" + String(repeating: "[0]", count: 29_000) + " == 1",
                       Array(repeating: "1", count: 2_255).joined(separator: " * ") + " == 1"] {
            #expect(throws: PredicateFormatError.self) { try NSPredicate.parse(format: format, arguments: []) }
        }
    }

    struct Stats {
        var parsed = 0, reparsed = 0, fetched = 0, refused = 0
    }

    /// Input `iteration`: a template over a key, a mutated corpus string, or random tokens.
    static func input(_ iteration: Int, seeds: [String], _ generator: inout SeededGenerator) -> (String, [Any]) {
        func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
        let key = pick(keys)
        let arguments: [Any] = [key, pick([3, "x", ["a", 1], NSNull()] as [Any]), key]
        switch iteration % 5 {
        case 0, 1:
            var template = pick(templates)
            if iteration % 10 == 1 { template += pick([" AND ", " OR "]) + pick(templates) }
            if template.contains("'%K'") { template = template.replacingOccurrences(of: "'%K'", with: "'\(key)'") }
            if template.contains("[%K]") { template = template.replacingOccurrences(of: "[%K]", with: "[\(pick(["name", "age", "0"]))]") }
            return (template, arguments)
        case 2:
            return (PredicateFuzzTests.mutate(pick(seeds), &generator), arguments)
        case 3:
            return (PredicateFuzzTests.randomTokens(&generator), arguments)
        default:
            // A chain, sometimes past the depth limit.
            let length = 1 + Int(generator.next() % 200)
            let term = pick(["age", "1", "children.age", "%K"])
            return (Array(repeating: term, count: length).joined(separator: pick([" + ", " * ", " UNION "])) + " > 1", arguments)
        }
    }
}
