import Foundation
import Testing
@testable import OpenCoreData

// MARK: - PredicateFuzzTests

/// Random bytes and mutations of valid format strings must never crash the parser, the
/// printer or the evaluator. Deterministic: the generator is seeded.
@Suite("Predicate parser fuzzing")
struct PredicateFuzzTests {
    static let alphabet: [String] = [
        "(", ")", "{", "}", "[", "]", ",", ".", ":", "'", "\"", "\\", "%", "@", "K", "%@", "%K", "%d",
        "$", "#", "=", "==", "!", "<", ">", "&&", "||", "+", "-", "*", "**", "/", " ", "a", "name",
        "ANY", "ALL", "NONE", "NOT", "AND", "OR", "IN", "BETWEEN", "LIKE", "MATCHES", "CONTAINS",
        "SUBQUERY", "CAST", "FUNCTION", "TERNARY", "SELF", "nil", "YES", "0x", "1", "2.5e3", "é", "🙂",
        "@count", "FIRST", "[c]", "[cd]", "sum:", "now()", "\n", "\u{0}", "\u{301}",
    ]

    @Test("100,000 random and mutated inputs never crash")
    func fuzz() {
        var generator = SeededGenerator(seed: 0x5EED_F00D)
        let seeds = PredicateCorpus.cases.map(\.format)
        let arguments: [Any] = ["x", 3, 2.5, ["a", 1], Date(timeIntervalSinceReferenceDate: 0), UUID(), NSNull()]
        let object = PredicateFixtures.adam()
        var parsed = 0
        for iteration in 0..<100_000 {
            let input: String
            switch iteration % 4 {
            case 0: input = Self.randomBytes(&generator)
            case 1: input = Self.randomTokens(&generator)
            default: input = Self.mutate(seeds[Int(generator.next() % UInt64(seeds.count))], &generator)
            }
            guard let predicate = try? NSPredicate.parse(format: input, arguments: arguments) else { continue }
            parsed += 1
            // Whatever parses must print, reparse and evaluate without trapping.
            let printed = predicate.predicateFormat
            _ = try? NSPredicate.parse(format: printed)
            if iteration % 8 == 2 { _ = predicate.evaluate(with: object) }
        }
        #expect(parsed > 1000)
    }

    static func randomBytes(_ generator: inout SeededGenerator) -> String {
        let count = Int(generator.next() % 40)
        let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func randomTokens(_ generator: inout SeededGenerator) -> String {
        let count = Int(generator.next() % 14)
        return (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined(separator: generator.next() % 2 == 0 ? " " : "")
    }

    static func mutate(_ seed: String, _ generator: inout SeededGenerator) -> String {
        var characters = Array(seed)
        for _ in 0..<(1 + Int(generator.next() % 4)) {
            let position = characters.isEmpty ? 0 : Int(generator.next() % UInt64(characters.count + 1))
            switch generator.next() % 4 {
            case 0 where position < characters.count:
                characters.remove(at: position)
            case 1:
                characters.insert(contentsOf: alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
            case 2 where position < characters.count:
                characters[position] = Character(Unicode.Scalar(UInt8(generator.next() % 128)))
            default:
                let cut = Int(generator.next() % UInt64(characters.count + 1))
                characters = Array(characters.prefix(cut))
            }
        }
        return String(characters)
    }
}
