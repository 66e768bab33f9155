import Foundation
import Testing
@testable import OpenCoreData

// MARK: - PredicateAPITests

@Suite("NSPredicate API")
struct PredicateAPITests {
    @Test("init(format:) returns Apple's class-cluster subclasses")
    func classCluster() {
        #expect(NSPredicate(format: "a == 1") is NSComparisonPredicate)
        #expect(NSPredicate(format: "a == 1 AND b == %@", "x") is NSCompoundPredicate)
        #expect(NSPredicate(format: "name IN %@", argumentArray: [["a"]]) is NSComparisonPredicate)
        let truePredicate = NSPredicate(format: "TRUEPREDICATE")
        #expect(!(truePredicate is NSComparisonPredicate) && truePredicate.evaluate(with: nil))
        #expect(NSPredicate(value: false).predicateFormat == "FALSEPREDICATE")
    }

    @Test("Comparison predicates expose Apple's accessors")
    func comparisonAccessors() throws {
        let predicate = try #require(NSPredicate(format: "ANY tags.name CONTAINS[cd] %@", "x") as? NSComparisonPredicate)
        #expect(predicate.predicateOperatorType == .contains)
        #expect(predicate.comparisonPredicateModifier == .any)
        #expect(predicate.options == [.caseInsensitive, .diacriticInsensitive])
        #expect(predicate.leftExpression.expressionType == .keyPath)
        #expect(predicate.leftExpression.keyPath == "tags.name")
        #expect(predicate.rightExpression.constantValue as? String == "x")
        let built = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "age"), rightExpression: NSExpression(forConstantValue: 21),
            modifier: .direct, type: .greaterThanOrEqualTo)
        #expect(built.predicateFormat == "age >= 21")
        #expect(built == NSPredicate(format: "age >= 21"))
        #expect(NSComparisonPredicate.Operator.between.rawValue == 100)
    }

    @Test("Compound predicates")
    func compound() throws {
        let a = NSPredicate(format: "a == 1"), b = NSPredicate(format: "b == 2")
        let and = NSCompoundPredicate(andPredicateWithSubpredicates: [a, b])
        #expect(and.predicateFormat == "a == 1 AND b == 2")
        #expect(and.compoundPredicateType == .and)
        #expect(and.subpredicates.count == 2)
        #expect(and.subpredicates.first as? NSComparisonPredicate == a)
        let nested = NSCompoundPredicate(orPredicateWithSubpredicates: [and, NSCompoundPredicate(notPredicateWithSubpredicate: b)])
        #expect(nested.predicateFormat == "(a == 1 AND b == 2) OR NOT b == 2")
        #expect(try NSPredicate.parse(format: nested.predicateFormat) == nested)
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: []).evaluate(with: nil))
        #expect(!NSCompoundPredicate(orPredicateWithSubpredicates: []).evaluate(with: nil))
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: [a]) == a)
        #expect(NSCompoundPredicate(type: .and, subpredicates: []) == NSPredicate(value: true))
    }

    @Test("Substitution variables")
    func substitution() {
        let template = NSPredicate(format: "age > $MIN AND name == $NAME")
        let bound = template.withSubstitutionVariables(["MIN": 30, "NAME": "Adam"])
        #expect(bound.predicateFormat == "age > 30 AND name == \"Adam\"")
        #expect(bound is NSCompoundPredicate)
        let adam: [String: Any] = ["age": 34, "name": "Adam"]
        #expect(bound.evaluate(with: adam))
        #expect(template.evaluate(with: adam, substitutionVariables: ["MIN": 30, "NAME": "Adam"]))
        #expect(!template.evaluate(with: adam, substitutionVariables: ["MIN": 40, "NAME": "Adam"]))
    }

    @Test("Equality and hashing are structural")
    func equality() {
        let set: Set<NSPredicate> = [NSPredicate(format: "a == 1"), NSPredicate(format: "a = 1"), NSPredicate(format: "a == 1.0")]
        #expect(set.count == 1)
        #expect(NSPredicate(format: "a == 1") != NSPredicate(format: "a == 2"))
        #expect(NSPredicate(format: "a == YES") == NSPredicate(format: "a == 1"))
        #expect(NSPredicate(format: "a IN %@", [1, 2]) == NSPredicate(format: "a IN {1, 2}"))
        let copy = NSPredicate(format: "a == 1").copy() as? NSPredicate
        #expect(copy == NSPredicate(format: "a == 1"))
    }

    @Test("Block predicates and SELF")
    func blocksAndSelf() {
        let even = NSPredicate { object, _ in (object as? Int).map { $0 % 2 == 0 } ?? false }
        #expect(even.evaluate(with: 4) && !even.evaluate(with: 3))
        #expect(even.predicateFormat.hasPrefix("BLOCKPREDICATE("))
        #expect(NSPredicate(format: "SELF > 3").evaluate(with: 4))
        #expect(NSPredicate(format: "SELF IN %@", ["a", "b"]).evaluate(with: "b"))
        #expect(NSPredicate(format: "SELF BEGINSWITH[c] 'ad'").evaluate(with: "Adam"))
        #expect(NSPredicate(format: "@count == 2").evaluate(with: [1, 2]))
        #expect(NSPredicate(format: "@sum.self == 6").evaluate(with: [1, 2, 3]))
    }

    @Test("Objects compare by identity, NSObjects by isEqual")
    func objectConstants() {
        let adam = PredicateFixtures.adam()
        let department = adam.values["department"] as Any
        #expect(NSPredicate(format: "department == %@", department).evaluate(with: adam))
        #expect(!NSPredicate(format: "department == %@", PredicateFixtures.adam()).evaluate(with: adam))
        #expect(NSPredicate(format: "SELF == %@", adam).evaluate(with: adam))
        let child = (adam.values["children"] as? NSSet)?.anyObject() as Any
        let membership = NSPredicate(format: "%@ IN children", child)
        #expect(membership.evaluate(with: adam))
    }

    @Test("NSDictionary, Swift structs and nested optionals evaluate")
    func containers() {
        let dictionary = NSDictionary(dictionary: ["name": "Adam", "age": 34])
        #expect(NSPredicate(format: "name == 'Adam' AND age > 30").evaluate(with: dictionary))
        struct Pet { var name: String; var owner: String? }
        #expect(NSPredicate(format: "name == 'Rex' AND owner == nil").evaluate(with: Pet(name: "Rex", owner: nil)))
        let optional: [String: Any?] = ["name": Optional<String>.none]
        #expect(NSPredicate(format: "name == nil").evaluate(with: optional))
        #expect(!NSPredicate(format: "age < 5").evaluate(with: [String: Any]()))
    }
}

// MARK: - ExpressionAPITests

@Suite("NSExpression API")
struct ExpressionAPITests {
    @Test("Arithmetic and functions evaluate")
    func evaluation() {
        #expect(NSExpression(format: "4 + 5 - 2**3").expressionValue(with: nil, context: nil) as? Int == 1)
        let numbers = [1, 2, 3, 4, 4, 5, 9, 11]
        let stddev = NSExpression(forFunction: "stddev:", arguments: [NSExpression(forConstantValue: numbers)])
        let value = stddev.expressionValue(with: nil, context: nil) as? Double
        #expect(abs((value ?? 0) - 10.359375.squareRoot()) < 1e-9) // 3.21859…, as NSHipster shows for Apple
        #expect(NSExpression(format: "divide:by:(1, 0)").expressionValue(with: nil, context: nil) == nil)
        let context = NSMutableDictionary(dictionary: ["x": 5])
        #expect(NSExpression(format: "$x * 2").expressionValue(with: nil, context: context) as? Int == 10)
        #expect(NSExpression(forKeyPath: "name").expressionValue(with: ["name": "Ann"], context: nil) as? String == "Ann")
    }

    @Test("Expression types and accessors")
    func accessors() throws {
        #expect(NSExpression(forConstantValue: 3).expressionType == .constantValue)
        #expect(NSExpression.expressionForEvaluatedObject().expressionType == .evaluatedObject)
        #expect(NSExpression(forVariable: "v").variable == "v")
        let function = NSExpression(forFunction: "add:to:", arguments: [NSExpression(forKeyPath: "a"), 1])
        #expect(function.function == "add:to:")
        #expect(function.arguments?.count == 2)
        #expect(function.description == "a + 1")
        let aggregate = NSExpression(forAggregate: [NSExpression(forConstantValue: 1), NSExpression(forConstantValue: 2)])
        #expect(aggregate.expressionType == .aggregate)
        #expect((aggregate.collection as? [NSExpression])?.count == 2)
        let subquery = NSExpression(forSubquery: NSExpression(forKeyPath: "tags"), usingIteratorVariable: "t",
                                    predicate: NSPredicate(format: "$t.name == 'x'"))
        #expect(subquery.expressionType == .subquery)
        #expect(subquery.description == "SUBQUERY(tags, $t, $t.name == \"x\")")
        #expect(subquery.predicate == NSPredicate(format: "$t.name == 'x'"))
        let union = NSExpression(forUnionSet: NSExpression(format: "{1}"), with: NSExpression(format: "{2}"))
        #expect(union.expressionType == .unionSet)
        #expect(union.leftExpression == NSExpression(format: "{1}"))
        let conditional = NSExpression(forConditional: NSPredicate(value: true), trueExpression: NSExpression(forConstantValue: 1),
                                       falseExpression: NSExpression(forConstantValue: 2))
        #expect(conditional.expressionType == .conditional)
        #expect(conditional.expressionValue(with: nil, context: nil) as? Int == 1)
        #expect(NSExpression(forKeyPath: \SortDescriptorTests.Row.name).keyPath == "name")
        let block = NSExpression(block: { _, arguments, _ in arguments.count }, arguments: [NSExpression(forConstantValue: 1)])
        #expect(block.expressionValue(with: nil, context: nil) as? Int == 1)
        #expect(NSExpression(format: "a.b").operand.expressionType == .evaluatedObject)
    }

    @Test("Expressions round-trip through their description")
    func roundTrip() throws {
        for format in ["a + b * c", "(a + b) * c", "-(a + b)", "2 ** 3 ** 2", "(2 ** 3) ** 2", "a - (b - c)",
                       "$x.name", "{1, 'a', nil}", "now()", "sum:(scores)", "FUNCTION(SELF, 'm:', 1)",
                       "TERNARY(a > 1, 'x', 'y')", "SUBQUERY(t, $v, $v > 1).@count", "x[LAST]", "x['key']",
                       "CAST(1.5, 'NSDate')", "a UNION b MINUS c", "a UNION (b MINUS c)"] {
            let expression = try NSExpression.parse(format: format)
            let reparsed = try NSExpression.parse(format: expression.description)
            #expect(reparsed == expression, "\(format) → \(expression.description)")
        }
    }
}
