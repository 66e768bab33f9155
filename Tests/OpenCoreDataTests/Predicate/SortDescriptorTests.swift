import Foundation
import Testing
@testable import OpenCoreData

// MARK: - SortDescriptorTests

@Suite("NSSortDescriptor")
struct SortDescriptorTests {
    struct Row {
        var name: String
        var age: Int?
    }

    static var people: [StubManagedObject] {
        [
            StubManagedObject("Person", ["name": "bob", "age": NSNumber(value: 30)]),
            StubManagedObject("Person", ["name": "Adam", "age": NSNumber(value: 30)]),
            StubManagedObject("Person", ["name": "file10", "age": NSNumber(value: 2)]),
            StubManagedObject("Person", ["name": "file9"]),
            StubManagedObject("Person", ["name": "Émile", "age": NSNumber(value: 45.5)]),
        ]
    }

    private func names(_ objects: [StubManagedObject]) -> [String] {
        objects.map { $0.values["name"] as? String ?? "?" }
    }

    @Test("Sorting by key: nil first, numbers by value, stable")
    func sortByKey() {
        let sorted = Self.people.sorted(using: [NSSortDescriptor(key: "age", ascending: true)])
        #expect(names(sorted) == ["file9", "file10", "bob", "Adam", "Émile"])
        let descending = Self.people.sorted(using: [NSSortDescriptor(key: "age", ascending: false)])
        #expect(names(descending) == ["Émile", "bob", "Adam", "file10", "file9"])
    }

    @Test("Several descriptors and selectors")
    func selectors() {
        let byAgeThenName = [
            NSSortDescriptor(key: "age", ascending: false),
            NSSortDescriptor(key: "name", ascending: true, selector: .caseInsensitiveCompare),
        ]
        #expect(names(Self.people.sorted(using: byAgeThenName)) == ["Émile", "Adam", "bob", "file10", "file9"])
        let literal = Self.people.sorted(using: [NSSortDescriptor(key: "name", ascending: true)])
        #expect(names(literal) == ["Adam", "bob", "file10", "file9", "Émile"])
        let standard = Self.people.sorted(using: [NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))])
        #expect(names(standard).firstIndex(of: "file9")! < names(standard).firstIndex(of: "file10")!)
        #expect(Selector.caseInsensitiveCompare == "caseInsensitiveCompare:")
    }

    @Test("compare(_:to:) on dictionaries and key paths across relationships")
    func compareObjects() {
        let descriptor = NSSortDescriptor(key: "owner.name", ascending: true)
        let lhs: [String: Any] = ["owner": ["name": "Ann"]]
        let rhs: [String: Any] = ["owner": ["name": "Bob"]]
        #expect(descriptor.compare(lhs, to: rhs) == .orderedAscending)
        let reversed = descriptor.reversedSortDescriptor as? NSSortDescriptor
        #expect(reversed?.ascending == false)
        #expect(reversed?.compare(lhs, to: rhs) == .orderedDescending)
        #expect(descriptor.key == "owner.name")
    }

    @Test("Swift key paths give their names and sort values directly")
    func keyPathDescriptors() {
        let descriptor = NSSortDescriptor(keyPath: \Row.name, ascending: true)
        #expect(descriptor.key == "name")
        let rows = [Row(name: "b"), Row(name: "a"), Row(name: "c")]
        #expect(rows.sorted(using: [descriptor]).map(\.name) == ["a", "b", "c"])
        let optional = NSSortDescriptor(keyPath: \Row.age, ascending: true)
        #expect([Row(name: "x", age: 3), Row(name: "y", age: nil)].sorted(using: [optional]).map(\.name) == ["y", "x"])
        let computed = NSSortDescriptor(keyPath: \Row.name.count, ascending: false)
        #expect(computed.key == nil)
        #expect([Row(name: "aa"), Row(name: "aaa")].sorted(using: [computed]).map(\.name) == ["aaa", "aa"])
    }

    @Test("Comparator descriptors and equality")
    func comparatorsAndEquality() {
        let byLength = NSSortDescriptor(key: "name", ascending: true) { lhs, rhs in
            let left = (lhs as? String)?.count ?? 0, right = (rhs as? String)?.count ?? 0
            return left < right ? .orderedAscending : (left > right ? .orderedDescending : .orderedSame)
        }
        #expect(names(Self.people.sorted(using: [byLength])).first == "bob")
        #expect(NSSortDescriptor(key: "a", ascending: true) == NSSortDescriptor(key: "a", ascending: true))
        #expect(NSSortDescriptor(key: "a", ascending: true) != NSSortDescriptor(key: "a", ascending: false))
        #expect(NSSortDescriptor(key: "a", ascending: true).description == "(a, ascending, compare:)")
        var mutable = ["b", "a"]
        mutable.sort(using: [NSSortDescriptor(key: nil, ascending: true)])
        #expect(mutable == ["a", "b"])
    }
}
