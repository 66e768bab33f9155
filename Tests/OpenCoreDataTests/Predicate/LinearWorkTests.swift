import Foundation
import Testing
@testable import OpenCoreData

/// Issue 30 point 4: predicate paths are linear in their input. Each test doubles the input and
/// checks that the work, counted by `WorkCounter` in the hot loops (never timed), stays under
/// three times the work of the smaller input: linear work doubles, quadratic work quadruples.
@Suite("Predicate work is linear in the predicate's size")
struct LinearWorkTests {
    /// The largest ratio of work(2n) / work(n) accepted: linear is 2, quadratic 4.
    static let ratioLimit = 3.0

    static func expectLinear(_ what: String, _ small: Int, _ large: Int,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(small > 0, "\(what): nothing counted", sourceLocation: sourceLocation)
        let ratio = Double(large) / Double(max(small, 1))
        #expect(ratio < ratioLimit, "\(what): \(small) → \(large) steps (×\(ratio))", sourceLocation: sourceLocation)
    }

    // MARK: - Nested SUBQUERY

    /// What `#Predicate`'s `contains(where:)` builds, level by level from the innermost test: an
    /// `ANY` comparison when the test is one comparison on the element, else a `SUBQUERY` count.
    /// The innermost test is a compound, so every level is a `SUBQUERY` around the one below.
    static func bridgedContains(depth: Int) -> PredicateNode {
        var test: PredicateNode = .compound(.and, [
            .comparison(ComparisonNode(left: .keyPath(.variable("v\(depth)"), "age"), right: .constant(3), operatorType: .equalTo)),
            .comparison(ComparisonNode(left: .keyPath(.variable("v\(depth)"), "name"), right: .constant("x"), operatorType: .equalTo)),
        ])
        for level in stride(from: depth, through: 1, by: -1) {
            WorkCounter.count()  // one step per level, so a check that walks nothing still counts
            let collection: ExpressionNode = level == 1 ? .keyPath(.evaluatedObject, "children") : .keyPath(.variable("v\(level - 1)"), "children")
            if let simple = TranslatedConstant.aggregateComparison(test, variable: "v\(level)", collection: collection, modifier: .any) {
                test = simple
            } else {
                test = TranslatedConstant.subqueryCount(collection, "v\(level)", test, operatorType: .greaterThan)
            }
        }
        return test
    }

    @Test("Nested contains(where:) translates in linear work (was ×2 per level)")
    func nestedContainsTranslation() {
        var shallow = PredicateNode.constant(true), deep = PredicateNode.constant(true)
        // Before the fix every nested SUBQUERY walked everything below it again, from each of
        // its nodes: 8 → 16 levels did not finish in 200 s.
        let small = WorkCounter.measure { shallow = Self.bridgedContains(depth: 6) }
        let large = WorkCounter.measure { deep = Self.bridgedContains(depth: 12) }
        Self.expectLinear("nested SUBQUERY translation", small, large)
        // Still one SUBQUERY per level, as before.
        #expect(PredicateFormatter.format(shallow).components(separatedBy: "SUBQUERY(").count == 7)
        #expect(PredicateFormatter.format(deep).components(separatedBy: "SUBQUERY(").count == 13)
    }

    /// `SUBQUERY($c0.children, $c1, SUBQUERY(…).@count > 0).@count > 0`, `depth` levels.
    static func nestedSubqueryFormat(depth: Int) -> String {
        var inner = "$c\(depth).age == 3"
        for level in stride(from: depth, through: 1, by: -1) {
            let source = level == 1 ? "children" : "$c\(level - 1).children"
            inner = "SUBQUERY(\(source), $c\(level), \(inner)).@count > 0"
        }
        return inner
    }

    @Test("Nested SUBQUERY parses, prints and evaluates in linear work")
    func nestedSubqueryFormatPath() throws {
        func work(_ depth: Int) throws -> (parse: Int, print: Int, evaluate: Int) {
            let format = Self.nestedSubqueryFormat(depth: depth)
            var predicate: NSPredicate?
            let parse = try WorkCounter.measure { predicate = try NSPredicate.parse(format: format, arguments: []) }
            let parsed = try #require(predicate)
            let print = WorkCounter.measure { #expect(parsed.predicateFormat == format) }
            // A family line `depth` generations deep: every level has one element.
            var person: NSDictionary = ["age": 3]
            for _ in 0..<depth { person = ["age": 3, "children": [person]] }
            let root = person
            var holds = false
            let evaluate = WorkCounter.measure { holds = parsed.evaluate(with: root) }
            #expect(holds)
            return (parse, print, evaluate)
        }
        let small = try work(12), large = try work(24)
        Self.expectLinear("parse", small.parse, large.parse)
        Self.expectLinear("print", small.print, large.print)
        Self.expectLinear("evaluate", small.evaluate, large.evaluate)
    }

    /// The fetch path: a nested SUBQUERY lowered to SQL, one correlated subquery per level.
    /// Also with a conjunction at each level and with a SUBQUERY as the next one's collection.
    @Test("Nested SUBQUERY lowers to SQL in linear work", arguments: ["plain", "conjunction", "collection"])
    func nestedSubqueryLowering(shape: String) throws {
        let model = TestModels.personModel()
        model.freeze()
        let schema = SQLStoreSchema(model: model)
        let person = try #require(model.entitiesByName["Person"])
        func format(_ depth: Int) -> String {
            if shape == "collection" {
                var collection = "children"
                for level in 1...depth { collection = "SUBQUERY(\(collection), $c\(level), $c\(level).age == 3)" }
                return collection + ".@count > 0"
            }
            var inner = "$c\(depth).age == 3"
            for level in stride(from: depth, through: 1, by: -1) {
                let source = level == 1 ? "children" : "$c\(level - 1).children"
                let test = shape == "conjunction" ? "$c\(level).age == 3 AND \(inner)" : inner
                inner = "SUBQUERY(\(source), $c\(level), \(test)).@count > 0"
            }
            return inner
        }
        func work(_ depth: Int) throws -> Int {
            let predicate = NSPredicate(format: format(depth))
            var state = SQLTranslationState(schema: schema, dialect: SQLiteDialect(), entity: person)
            var fragment: SQLFragment?
            let steps = try WorkCounter.measure { fragment = try state.condition(for: predicate) }
            #expect(fragment != nil)
            return steps
        }
        // Within the 32 levels SQL lowering takes (deeper predicates are evaluated in memory).
        Self.expectLinear("nested SUBQUERY lowering (\(shape))", try work(3), try work(6))
    }

    // MARK: - Large AND / OR / IN

    static func conjunction(_ terms: Int, _ connective: String) -> String {
        (0..<terms).map { "age != \($0)" }.joined(separator: " \(connective) ")
    }

    static func membership(_ elements: Int) -> String {
        "age IN {" + (0..<elements).map(String.init).joined(separator: ", ") + "}"
    }

    @Test("A large AND, OR or IN parses, prints and evaluates in linear work", arguments: ["AND", "OR", "IN"])
    func largeCompound(kind: String) throws {
        func work(_ n: Int) throws -> (parse: Int, print: Int, evaluate: Int) {
            let format = kind == "IN" ? Self.membership(n) : Self.conjunction(n, kind)
            var predicate: NSPredicate?
            let parse = try WorkCounter.measure { predicate = try NSPredicate.parse(format: format, arguments: []) }
            let parsed = try #require(predicate)
            let print = WorkCounter.measure { _ = parsed.predicateFormat }
            // No term decides early: every term of the AND holds, none of the OR, the IN misses.
            let object: NSDictionary = ["age": kind == "OR" ? 0 : -1]
            let evaluate = WorkCounter.measure { _ = parsed.evaluate(with: object) }
            return (parse, print, evaluate)
        }
        let small = try work(5_000), large = try work(10_000)
        Self.expectLinear("\(kind) parse", small.parse, large.parse)
        Self.expectLinear("\(kind) print", small.print, large.print)
        Self.expectLinear("\(kind) evaluate", small.evaluate, large.evaluate)
    }

    @Test("A large AND, OR or IN lowers to SQL in linear work", arguments: ["AND", "OR", "IN", "IN %@"])
    func largeCompoundLowering(kind: String) throws {
        let model = TestModels.personModel()
        model.freeze()
        let schema = SQLStoreSchema(model: model)
        let person = try #require(model.entitiesByName["Person"])
        func work(_ n: Int) throws -> Int {
            let predicate: NSPredicate
            switch kind {
            case "IN": predicate = NSPredicate(format: Self.membership(n))
            case "IN %@": predicate = NSPredicate(format: "age IN %@", argumentArray: [Array(0..<n)])
            default: predicate = NSPredicate(format: Self.conjunction(n, kind))
            }
            var state = SQLTranslationState(schema: schema, dialect: SQLiteDialect(), entity: person)
            var fragment: SQLFragment?
            let steps = try WorkCounter.measure { fragment = try state.condition(for: predicate) }
            #expect(fragment != nil)
            return steps
        }
        // Below the 4,096 nodes SQL lowering takes (a comparison is three nodes).
        let n = kind.hasPrefix("IN") ? 1_000 : 400
        Self.expectLinear("\(kind) lowering", try work(n), try work(2 * n))
    }

    // MARK: - Model cache

    @Test("A model cache with an n-term fetch request template is written in linear work")
    func modelCacheTemplate() throws {
        func work(_ n: Int) -> (archive: Int, compress: Int) {
            let model = TestModels.personModel()
            let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
            template.predicate = NSPredicate(format: Self.conjunction(n, "AND"))
            model.setFetchRequestTemplate(template, forName: "Large")
            model.freeze()
            var archive = Data()
            let archiving = WorkCounter.measure { archive = ModelCacheArchiver.archive(model) }
            let compressing = WorkCounter.measure { _ = Deflate.compress(archive) }
            return (archiving, compressing)
        }
        // Both sizes keep under 65,536 archived objects: past that the property list's object
        // references widen from 2 to 4 bytes (a log n step the format defines, not a loop's).
        let small = work(1_000), large = work(2_000)
        Self.expectLinear("keyed archive and binary property list", small.archive, large.archive)
        Self.expectLinear("deflate", small.compress, large.compress)
    }
}
