import Foundation
import Testing
@testable import OpenCoreData

// MARK: - PredicateCorpusTests

@Suite("Predicate format corpus")
struct PredicateCorpusTests {
    @Test("The corpus has at least 150 format strings")
    func corpusSize() {
        #expect(PredicateCorpus.cases.count >= 150)
    }

    @Test("Every corpus string parses, round-trips to an equal predicate and evaluates as expected")
    func corpusRoundTripsAndEvaluates() throws {
        let adam = PredicateFixtures.adam()
        let todo = PredicateFixtures.todo()
        for entry in PredicateCorpus.cases {
            let parsed: NSPredicate
            do {
                parsed = try NSPredicate.parse(format: entry.format, arguments: entry.arguments)
            } catch {
                Issue.record("\(entry.format): \(error)")
                continue
            }
            let printed = parsed.predicateFormat
            guard let reparsed = try? NSPredicate.parse(format: printed) else {
                Issue.record("\(entry.format): printed form does not parse: \(printed)")
                continue
            }
            #expect(reparsed == parsed, "\(entry.format) → \(printed) → \(reparsed.predicateFormat)")
            #expect(reparsed.hash == parsed.hash, "\(entry.format): hash differs after round trip")
            #expect(reparsed.predicateFormat == printed, "\(entry.format): printing is not stable")
            let object = entry.onTodo ? todo : adam
            let result = parsed.evaluate(with: object)
            #expect(reparsed.evaluate(with: object) == result, "\(entry.format): reparsed evaluates differently")
            #expect(parsed.evaluate(with: object.dictionary) == result, "\(entry.format): dictionary evaluates differently")
            if let expected = entry.expected {
                #expect(result == expected, "\(entry.format) evaluated to \(result)")
            }
        }
    }

    @Test("Round-tripped predicates agree on generated people")
    func roundTripAgreesOnGeneratedData() throws {
        let people = PredicateFixtures.people(count: 60, seed: 42)
        for entry in PredicateCorpus.cases where !entry.onTodo {
            guard let parsed = try? NSPredicate.parse(format: entry.format, arguments: entry.arguments),
                  let reparsed = try? NSPredicate.parse(format: parsed.predicateFormat) else { continue }
            for person in people {
                #expect(parsed.evaluate(with: person) == reparsed.evaluate(with: person), "\(entry.format) on \(person)")
            }
        }
    }
}
