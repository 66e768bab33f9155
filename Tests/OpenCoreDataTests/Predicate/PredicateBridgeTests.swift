import Foundation
import Testing
@testable import OpenCoreData

// MARK: - Test model

/// A plain Swift class readable by key, like a managed object.
final class BridgeTodo: KeyValueReading {
    var title: String
    var priority: Int
    var done: Bool
    var note: String?
    var owner: BridgeOwner?
    var tags: [BridgeTag]
    var scores: [Int]
    var due: Date?
    var info: [String: Int] = [:]

    init(title: String, priority: Int, done: Bool = false, note: String? = nil, owner: BridgeOwner? = nil,
         tags: [BridgeTag] = [], scores: [Int] = [], due: Date? = nil) {
        self.title = title
        self.priority = priority
        self.done = done
        self.note = note
        self.owner = owner
        self.tags = tags
        self.scores = scores
        self.due = due
    }

    var shouting: String { title.uppercased() }

    func value(forKey key: String) -> Any? {
        switch key {
        case "title": title
        case "priority": priority
        case "done": done
        case "note": note
        case "owner": owner
        case "tags": tags
        case "scores": scores
        case "due": due
        default: nil
        }
    }
}

/// A non-final class: its properties' key paths describe themselves as `<computed …>`, so it
/// names them through `KeyPathNameProviding`, as generated managed object classes will.
class NamedTodo: KeyValueReading, KeyPathNameProviding {
    var title = "Buy milk"
    var priority = 3

    func value(forKey key: String) -> Any? {
        switch key {
        case "title": title
        case "priority": priority
        default: nil
        }
    }

    class func keyValueCodingName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \NamedTodo.title: "title"
        case \NamedTodo.priority: "priority"
        default: nil
        }
    }
}

final class UrgentTodo: NamedTodo {}

final class BridgeOwner: KeyValueReading {
    let name: String
    init(name: String) { self.name = name }
    func value(forKey key: String) -> Any? { key == "name" ? name : nil }
}

final class BridgeTag: KeyValueReading {
    let name: String
    let weight: Int
    init(_ name: String, weight: Int = 1) {
        self.name = name
        self.weight = weight
    }
    func value(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "weight": weight
        default: nil
        }
    }
}

struct Point: Equatable, Codable, Sendable { var x = 0 }

// MARK: - PredicateBridgeTests

@Suite("#Predicate bridge")
struct PredicateBridgeTests {
    static let reference = Date(timeIntervalSinceReferenceDate: 1_000)

    static var todos: [BridgeTodo] {
        [
            BridgeTodo(title: "Buy milk", priority: 3, note: "2%", owner: BridgeOwner(name: "Ann"),
                       tags: [BridgeTag("home"), BridgeTag("errand", weight: 3)], scores: [10, 60], due: Date(timeIntervalSinceReferenceDate: 10)),
            BridgeTodo(title: "Write report", priority: 1, done: true, tags: [BridgeTag("work", weight: 2)], scores: [99]),
            BridgeTodo(title: "Call Bob", priority: 2, note: "", owner: BridgeOwner(name: "Bob"), due: Date(timeIntervalSinceReferenceDate: 5_000)),
            BridgeTodo(title: "", priority: 5, done: true, tags: [BridgeTag("home", weight: 5)], scores: []),
        ]
    }

    /// Checks the printed form and that both engines agree on every to-do.
    private func check(
        _ predicate: Predicate<BridgeTodo>, _ expectedFormat: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let translated = try NSPredicate.translate(predicate)
        #expect(translated.predicateFormat == expectedFormat, sourceLocation: sourceLocation)
        let reparsed = try NSPredicate.parse(format: translated.predicateFormat)
        #expect(reparsed == translated, "round trip of \(translated.predicateFormat)", sourceLocation: sourceLocation)
        for todo in Self.todos {
            let swift = try predicate.evaluate(todo)
            #expect(translated.evaluate(with: todo) == swift, "\(expectedFormat) on \(todo.title)", sourceLocation: sourceLocation)
        }
    }

    @Test("Comparisons and logic")
    func comparisonsAndLogic() throws {
        try check(#Predicate { $0.title == "Buy milk" }, "title == \"Buy milk\"")
        try check(#Predicate { $0.title != "Buy milk" }, "title != \"Buy milk\"")
        try check(#Predicate { $0.priority > 2 && !$0.done }, "priority > 2 AND NOT done == 1")
        try check(#Predicate { $0.priority <= 1 || $0.priority >= 5 }, "priority <= 1 OR priority >= 5")
        try check(#Predicate { $0.done }, "done == 1")
        try check(#Predicate { $0.priority < 2 && $0.done && $0.title != "" }, "priority < 2 AND done == 1 AND title != \"\"")
        try check(#Predicate { _ in true }, "TRUEPREDICATE")
    }

    @Test("Strings")
    func strings() throws {
        try check(#Predicate { $0.title.contains("milk") }, "title CONTAINS \"milk\"")
        try check(#Predicate { $0.title.starts(with: "Buy") }, "title BEGINSWITH \"Buy\"")
        try check(#Predicate { $0.title.count > 3 }, "title.length > 3")
        try check(#Predicate { $0.title.isEmpty }, "title.length == 0")
        let needle = "report"
        try check(#Predicate { $0.title.contains(needle) }, "title CONTAINS \"report\"")
        try check(#Predicate { ["Call Bob", "Nope"].contains($0.title) }, "title IN {\"Call Bob\", \"Nope\"}")
    }

    @Test("Optionals")
    func optionals() throws {
        try check(#Predicate { $0.owner?.name == "Ann" }, "owner.name == \"Ann\"")
        try check(#Predicate { ($0.note ?? "none") == "none" }, "TERNARY(note != nil, note, \"none\") == \"none\"")
        try check(#Predicate { $0.note != nil && $0.note! == "2%" }, "note != nil AND note == \"2%\"")
        try check(#Predicate { $0.due == nil }, "due == nil")
        let reference = Self.reference
        try check(#Predicate { $0.due != nil && $0.due! < reference }, "due != nil AND due < CAST(1000.0, \"NSDate\")")
        try check(#Predicate { $0.owner.flatMap { $0.name.starts(with: "B") } ?? false },
                  "TERNARY(TERNARY(owner.name BEGINSWITH \"B\", 1, 0) != nil, TERNARY(owner.name BEGINSWITH \"B\", 1, 0), 0) == 1")
    }

    @Test("Collections")
    func collections() throws {
        try check(#Predicate { $0.tags.contains { $0.name == "home" } }, "ANY tags.name == \"home\"")
        try check(#Predicate { $0.tags.contains { "work" == $0.name } }, "ANY tags.name == \"work\"")
        try check(#Predicate { $0.tags.allSatisfy { $0.name != "work" } }, "ALL tags.name != \"work\"")
        try check(#Predicate { $0.tags.contains { $0.name == "home" && $0.weight > 1 } },
                  "SUBQUERY(tags, $x, $x.name == \"home\" AND $x.weight > 1).@count > 0")
        try check(#Predicate { $0.tags.allSatisfy { $0.weight > 1 || $0.name == "home" } },
                  "SUBQUERY(tags, $x, NOT ($x.weight > 1 OR $x.name == \"home\")).@count == 0")
        try check(#Predicate { $0.tags.count > 1 }, "tags.@count > 1")
        try check(#Predicate { $0.tags.isEmpty }, "tags.@count == 0")
        try check(#Predicate { $0.tags.filter { $0.weight > 1 }.count >= 1 }, "SUBQUERY(tags, $x, $x.weight > 1).@count >= 1")
        try check(#Predicate { $0.scores.contains(99) }, "99 IN scores")
        try check(#Predicate { ($0.scores.max() ?? 0) > 50 }, "TERNARY(max:(scores) != nil, max:(scores), 0) > 50")
        try check(#Predicate { $0.scores.first == 10 }, "scores[FIRST] == 10")
    }

    @Test("Arithmetic, ranges and conditionals")
    func arithmetic() throws {
        try check(#Predicate { $0.priority * 2 + 1 > 5 }, "priority * 2 + 1 > 5")
        try check(#Predicate { $0.priority % 2 == 0 }, "modulus:by:(priority, 2) == 0")
        try check(#Predicate { $0.priority / 2 == 1 }, "trunc:(priority / 2) == 1")
        try check(#Predicate { -$0.priority < -2 }, "-priority < -2")
        try check(#Predicate { (1...3).contains($0.priority) }, "priority BETWEEN {1, 3}")
        try check(#Predicate { (1..<3).contains($0.priority) }, "priority >= 1 AND priority < 3")
        try check(#Predicate { $0.done ? $0.priority > 1 : $0.priority > 2 },
                  "(done == 1 AND priority > 1) OR (NOT done == 1 AND priority > 2)")
        try check(#Predicate { ($0.done ? "yes" : "no") == "yes" }, "TERNARY(done == 1, \"yes\", \"no\") == \"yes\"")
    }

    @Test("An unsupported node throws an error naming it")
    func unsupportedNodeThrows() throws {
        let typeCheck = #Predicate<NamedTodo> { $0 is UrgentTodo }
        do {
            _ = try NSPredicate.translate(typeCheck)
            Issue.record("TypeCheck translated")
        } catch {
            #expect(error.nodeType.hasPrefix("TypeCheck<"), "\(error.nodeType)")
            #expect(error.description.contains("TypeCheck"))
        }
        #expect(NSPredicate(typeCheck) == nil)
        let defaulted = #Predicate<BridgeTodo> { $0.info["k", default: 0] > 1 }
        do {
            _ = try NSPredicate.translate(defaulted)
            Issue.record("DictionaryKeyDefaultValueSubscript translated")
        } catch {
            #expect(error.nodeType.hasPrefix("DictionaryKeyDefaultValueSubscript<"), "\(error.nodeType)")
        }
    }

    @Test("A computed property or a captured struct throws")
    func computedAndStructThrow() throws {
        let computed = #Predicate<BridgeTodo> { $0.shouting == "X" }
        #expect(throws: PredicateTranslationError.self) { try NSPredicate.translate(computed) }
        let point = Point()
        let captured = #Predicate<BridgeTodo> { _ in point == point }
        do {
            _ = try NSPredicate.translate(captured)
            Issue.record("a captured struct translated")
        } catch {
            #expect(error.message.contains("Point"), "\(error)")
        }
    }

    @Test("Non-final classes name their key paths through KeyPathNameProviding")
    func namedKeyPaths() throws {
        let predicate = try NSPredicate.translate(#Predicate<NamedTodo> { $0.title == "Buy milk" && $0.priority > 2 })
        #expect(predicate.predicateFormat == "title == \"Buy milk\" AND priority > 2")
        #expect(predicate.evaluate(with: UrgentTodo()))
        #expect(KeyPathName.name(of: \NamedTodo.title) == "title")
    }

    @Test("The failable initializer returns the matching subclass")
    func failableInitializer() throws {
        let predicate = try #require(NSPredicate(#Predicate<BridgeTodo> { $0.priority == 3 }))
        #expect(predicate is NSComparisonPredicate)
        let compound = try #require(NSPredicate(#Predicate<BridgeTodo> { $0.priority == 3 || $0.done }))
        #expect(compound is NSCompoundPredicate)
    }
}
