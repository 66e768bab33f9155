import Foundation
import Testing

// These tests compile real classes with `@Managed` through the plugin, against a
// stand-in for `NSManagedObject` whose overloads have shapes that the runtime can
// copy. They check that the expansion type-checks, that a class needs no
// initializer for its managed properties, and which overload each declared type
// selects.
//
// The getter calls `managedValue(forKey:)` with nothing but its result type to
// choose an overload, and Swift does not rank overloads by result type: `-> V`
// next to `-> V?`, or `-> V` next to `-> Set<O>`, is "ambiguous use". Overloads
// whose result types can't match the same property avoid that: attributes are
// constrained to a protocol that Optional, Set and managed objects don't adopt, and
// the catch-all for other types is `@_disfavoredOverload`.

/// The macro as the library declares it, declared again here so that these tests
/// depend on the plugin only, not on the library.
@attached(accessor)
macro Managed() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")

@attached(accessor)
macro Managed(_ key: String) = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")

// MARK: - Stand-in runtime

/// The stand-in's attribute types; Optional, Set and managed objects must not adopt it.
protocol StandInAttributeValue {}
extension Bool: StandInAttributeValue {}
extension Int16: StandInAttributeValue {}
extension Int64: StandInAttributeValue {}
extension Double: StandInAttributeValue {}
extension String: StandInAttributeValue {}
extension Date: StandInAttributeValue {}
extension UUID: StandInAttributeValue {}

/// A dictionary-backed stand-in for `NSManagedObject` that records which overload ran.
class StandInManagedObject: Hashable {
    private var values: [String: Any] = [:]
    private(set) var calls: [String] = []

    init() {}

    static func == (lhs: StandInManagedObject, rhs: StandInManagedObject) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    private func read<Value>(_ key: String, via overload: String) -> Value {
        calls.append("get \(key) \(overload)")
        return values[key] as! Value
    }

    private func read<Value>(_ key: String, default defaultValue: Value, via overload: String) -> Value {
        calls.append("get \(key) \(overload)")
        return values[key].map { $0 as! Value } ?? defaultValue
    }

    private func write(_ value: Any?, _ key: String, via overload: String) {
        calls.append("set \(key) \(overload)")
        values[key] = value
    }

    // Attributes.
    func managedValue<Value: StandInAttributeValue>(forKey key: String) -> Value { read(key, via: "attribute") }
    func setManagedValue<Value: StandInAttributeValue>(_ value: Value, forKey key: String) {
        write(value, key, via: "attribute")
    }

    func managedValue<Value: StandInAttributeValue>(forKey key: String) -> Value? {
        read(key, default: nil, via: "optional attribute")
    }
    func setManagedValue<Value: StandInAttributeValue>(_ value: Value?, forKey key: String) {
        write(value, key, via: "optional attribute")
    }

    // Anything else, e.g. a transformable attribute.
    @_disfavoredOverload
    func managedValue<Value>(forKey key: String) -> Value { read(key, via: "other") }
    @_disfavoredOverload
    func setManagedValue<Value>(_ value: Value, forKey key: String) { write(value, key, via: "other") }

    // To-one relationships.
    func managedValue<Object: StandInManagedObject>(forKey key: String) -> Object { read(key, via: "to-one") }
    func setManagedValue<Object: StandInManagedObject>(_ value: Object, forKey key: String) {
        write(value, key, via: "to-one")
    }

    func managedValue<Object: StandInManagedObject>(forKey key: String) -> Object? {
        read(key, default: nil, via: "optional to-one")
    }
    func setManagedValue<Object: StandInManagedObject>(_ value: Object?, forKey key: String) {
        write(value, key, via: "optional to-one")
    }

    // To-many relationships.
    func managedValue<Object: StandInManagedObject>(forKey key: String) -> Set<Object> {
        read(key, default: [], via: "to-many")
    }
    func setManagedValue<Object: StandInManagedObject>(_ value: Set<Object>, forKey key: String) {
        write(value, key, via: "to-many")
    }

    func managedValue(forKey key: String) -> NSSet? { read(key, default: nil, via: "NSSet") }
    func setManagedValue(_ value: NSSet?, forKey key: String) { write(value, key, via: "NSSet") }

    func managedValue(forKey key: String) -> NSOrderedSet? { read(key, default: nil, via: "NSOrderedSet") }
    func setManagedValue(_ value: NSOrderedSet?, forKey key: String) { write(value, key, via: "NSOrderedSet") }
}

// MARK: - Classes under test: no initializers anywhere

final class StandInTag: StandInManagedObject {
    @Managed var name: String?
}

final class StandInLocation: StandInManagedObject {
    @Managed var latitude: Double
}

/// The brief's `Todo`, verbatim but for the superclass.
final class StandInTodo: StandInManagedObject {
    @Managed var title: String?
    @Managed var done: Bool
    @Managed var priority: Int16
    @Managed var createdAt: Date?
    @Managed var tags: Set<StandInTag>
    @Managed var tagSet: NSSet?
    @Managed var steps: NSOrderedSet?
    @Managed var location: StandInLocation?
    @Managed public var id: UUID?
    @Managed("customStoredName") var renamed: Int64
    @Managed var owner: StandInPerson
    @Managed var keywords: [String]?
    @Managed var legacyNote: String!
}

/// Xcode's "Category/Extension" code generation puts the properties in an extension.
extension StandInTodo {
    @Managed public var notes: String?
}

/// A non-final class mixing managed and ordinary stored properties, and a subclass.
class StandInPerson: StandInManagedObject {
    @Managed var name: String?
    var transientCounter = 0
}

final class StandInEmployee: StandInPerson {
    @Managed var salary: Int64
}

// MARK: - Tests

@Suite("@Managed in compiled classes")
struct ManagedMacroCompilationTests {
    @Test("Each declared type picks the intended runtime overload, reading and writing")
    func overloadResolution() {
        let todo = StandInTodo()
        let tag = StandInTag()
        let location = StandInLocation()

        todo.title = "Buy milk"
        todo.done = true
        todo.priority = 3
        todo.createdAt = Date(timeIntervalSince1970: 0)
        todo.tags = [tag]
        todo.tagSet = NSSet(object: tag)
        todo.steps = NSOrderedSet(array: ["a", "b"])
        todo.location = location
        todo.id = UUID(uuidString: "00000000-0000-0000-0000-000000000001")
        todo.renamed = 42
        todo.notes = "2%"
        todo.owner = StandInPerson()
        todo.keywords = ["home"]
        todo.legacyNote = "old"

        #expect(todo.title == "Buy milk")
        #expect(todo.done)
        #expect(todo.priority == 3)
        #expect(todo.createdAt == Date(timeIntervalSince1970: 0))
        #expect(todo.tags == [tag])
        #expect(todo.tagSet?.count == 1)
        #expect(todo.steps?.count == 2)
        #expect(todo.location === location)
        #expect(todo.id == UUID(uuidString: "00000000-0000-0000-0000-000000000001"))
        #expect(todo.renamed == 42)
        #expect(todo.notes == "2%")
        #expect(todo.owner.calls.isEmpty)
        #expect(todo.keywords == ["home"])
        #expect(todo.legacyNote == "old")

        #expect(
            todo.calls == [
                "set title optional attribute", "set done attribute", "set priority attribute",
                "set createdAt optional attribute", "set tags to-many", "set tagSet NSSet", "set steps NSOrderedSet",
                "set location optional to-one", "set id optional attribute", "set customStoredName attribute",
                "set notes optional attribute", "set owner to-one", "set keywords other",
                "set legacyNote optional attribute",
                "get title optional attribute", "get done attribute", "get priority attribute",
                "get createdAt optional attribute", "get tags to-many", "get tagSet NSSet", "get steps NSOrderedSet",
                "get location optional to-one", "get id optional attribute", "get customStoredName attribute",
                "get notes optional attribute", "get owner to-one", "get keywords other",
                "get legacyNote optional attribute",
            ]
        )
    }

    @Test("Optional properties read as nil before anything is set")
    func unsetOptionals() {
        let todo = StandInTodo()
        #expect(todo.title == nil)
        #expect(todo.location == nil)
        #expect(todo.tags.isEmpty)
    }

    @Test("Mutating a to-many set reads the whole set, then writes it back")
    func mutatingToMany() {
        let todo = StandInTodo()
        let tag = StandInTag()
        todo.tags.insert(tag)
        #expect(todo.tags == [tag])
        #expect(todo.calls == ["get tags to-many", "set tags to-many", "get tags to-many"])
    }

    @Test("Inherited managed properties work, and ordinary stored properties keep their storage")
    func subclassing() {
        let employee = StandInEmployee()
        employee.name = "Ada"
        employee.salary = 100
        employee.transientCounter += 1
        #expect(employee.name == "Ada")
        #expect(employee.salary == 100)
        #expect(employee.transientCounter == 1)
        #expect(
            employee.calls == [
                "set name optional attribute", "set salary attribute",
                "get name optional attribute", "get salary attribute",
            ]
        )
    }
}
