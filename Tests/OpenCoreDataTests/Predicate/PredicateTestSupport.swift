import Foundation
@testable import OpenCoreData

// MARK: - Name pinning

// In a file that imports both Foundation and OpenCoreData, expression lookups such as
// `NSPredicate(format:)` resolve to OpenCoreData's classes, but type annotations such as
// `let p: NSPredicate` are ambiguous (Swift 6.3.1). The test module pins the names to ours.
typealias NSPredicate = OpenCoreData.NSPredicate
typealias NSComparisonPredicate = OpenCoreData.NSComparisonPredicate
typealias NSCompoundPredicate = OpenCoreData.NSCompoundPredicate
typealias NSExpression = OpenCoreData.NSExpression
typealias NSSortDescriptor = OpenCoreData.NSSortDescriptor

// MARK: - StubManagedObject

/// A test-only stand-in for what `NSManagedObject` will provide: `value(forKey:)` returning
/// `NSNumber` for numbers, Foundation values, other objects for to-one and `NSSet` /
/// `NSOrderedSet` for to-many relationships.
final class StubManagedObject: KeyValueReading, CustomStringConvertible {
    let entityName: String
    var values: [String: Any]

    init(_ entityName: String, _ values: [String: Any]) {
        self.entityName = entityName
        self.values = values
    }

    func value(forKey key: String) -> Any? {
        values[key]
    }

    var description: String {
        "<\(entityName) \(values["name"] ?? values["title"] ?? "")>"
    }

    /// The same data as nested dictionaries and arrays (to-many as `Set`/arrays of dictionaries).
    var dictionary: [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in values {
            switch value {
            case let object as StubManagedObject:
                result[key] = object.dictionary
            case let set as NSSet:
                result[key] = set.allObjects.map { ($0 as? StubManagedObject)?.dictionary ?? $0 }
            case let ordered as NSOrderedSet:
                result[key] = ordered.array.map { ($0 as? StubManagedObject)?.dictionary ?? $0 }
            default:
                result[key] = value
            }
        }
        return result
    }
}

// MARK: - Fixtures

enum PredicateFixtures {
    static let adamID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let todoID = UUID(uuidString: "0F8F7C2E-6D1B-4B3C-9E0A-1B2C3D4E5F60")!
    static let birthday = Date(timeIntervalSinceReferenceDate: 100_000_000)

    static func tag(_ name: String) -> StubManagedObject {
        StubManagedObject("Tag", ["name": name, "tagId": name + "-id"])
    }

    static func child(_ name: String, age: Int) -> StubManagedObject {
        StubManagedObject("Person", ["firstName": name, "name": name, "age": NSNumber(value: age)])
    }

    /// Adam: the person most corpus expectations are written against.
    static func adam() -> StubManagedObject {
        let department = StubManagedObject("Department", [
            "name": "Engineering", "budget": NSNumber(value: 100_000),
            "manager": StubManagedObject("Person", ["name": "Eve", "age": NSNumber(value: 51)]),
        ])
        return StubManagedObject("Person", [
            "name": "Adam", "firstName": "Adam", "lastName": "Smith",
            "age": NSNumber(value: 34), "salary": NSNumber(value: 5200.5),
            "isActive": NSNumber(value: true), "birthday": birthday,
            "email": "adam@example.com", "city": "Zürich", "phone": "555-1234",
            "id": adamID, "homepage": URL(string: "https://example.com/adam")!,
            "avatar": Data([1, 2, 3]), "balance": Decimal(string: "10.25")!,
            "department": department,
            "location": StubManagedObject("Location", ["placeName": "Paris", "latitude": NSNumber(value: 48.85)]),
            "tags": NSSet(array: [tag("swift"), tag("linux"), tag("coredata")]),
            "children": NSSet(array: [child("Ann", age: 5), child("Bob", age: 12)]),
            "groups": NSOrderedSet(array: [tag("admins"), tag("staff")]),
            "scores": [90, 75, 88],
            "level": Int16(3),
            "IN": NSNumber(value: 3),
        ])
    }

    /// The seed to-do app's object.
    static func todo() -> StubManagedObject {
        StubManagedObject("Todo", [
            "title": "Buy Milk", "todoId": todoID, "done": NSNumber(value: false),
            "priority": NSNumber(value: Int16(2)),
            "tags": NSSet(array: [
                StubManagedObject("Tag", ["tagId": "home", "name": "Home"]),
                StubManagedObject("Tag", ["tagId": "errand", "name": "Errand"]),
            ]),
        ])
    }

    /// Deterministic random people for property-style checks.
    static func people(count: Int, seed: UInt64) -> [StubManagedObject] {
        var generator = SeededGenerator(seed: seed)
        let names = ["Adam", "Eve", "Zoë", "bob", "Ann", "Émile", "Ole", "", "Mia", "Jürgen"]
        return (0..<count).map { index in
            var values: [String: Any] = [
                "name": names[Int(generator.next() % UInt64(names.count))],
                "age": NSNumber(value: Int(generator.next() % 90)),
                "salary": NSNumber(value: Double(generator.next() % 10_000) / 4),
                "isActive": NSNumber(value: generator.next() % 2 == 0),
                "birthday": Date(timeIntervalSinceReferenceDate: Double(generator.next() % 1_000_000_000)),
                "tags": NSSet(array: (0..<Int(generator.next() % 4)).map { tag(["swift", "linux", "go", "coredata"][$0]) }),
                "children": NSSet(array: (0..<Int(generator.next() % 3)).map { child("C\($0)", age: Int(generator.next() % 20)) }),
                "scores": (0..<Int(generator.next() % 4)).map { _ in Int(generator.next() % 100) },
                "id": UUID(),
            ]
            if generator.next() % 3 != 0 { values["email"] = "user\(index)@example.com" }
            if generator.next() % 2 == 0 {
                values["location"] = StubManagedObject("Location", ["placeName": ["Paris", "Oslo", "Zürich"][index % 3]])
            }
            return StubManagedObject("Person", values)
        }
    }
}

// MARK: - SeededGenerator

/// SplitMix64: a small deterministic random number generator for tests.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
