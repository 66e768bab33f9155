import Foundation

// MARK: - DistinctValueSet

/// The `NSSet` a key path through an unordered to-many relationship gives (`friends.balance`):
/// the distinct values, found by `DistinctValueKey` without hashing a single value.
///
/// Foundation's own `NSSet` hashes its members, and on Linux hashing an `NSDecimalNumber`
/// overflows the stack (swift-corelibs-foundation, Swift 6.3), while Swift's string hash merges
/// canonically equivalent spellings. This subclass implements `NSSet`'s primitives (`count`,
/// `member(_:)`, `objectEnumerator()`) over an array, like one of Apple's private set classes,
/// so key-value coding and predicates return an `NSSet` as on Apple platforms. Its members are
/// in a fixed order: related objects are visited in primary-key order, so what a predicate
/// computes from the values (`@max` among equal strings, sums) is the same in every process.
/// Bridging it to a Swift `Set` or making a mutable copy hashes the members again (Foundation's
/// code): avoid both for decimals.
final class DistinctValueSet: NSSet {
    private let members: [Any]
    private let positions: [DistinctValueKey: Int]

    /// A set of the distinct values among `values` (nil, `NSNull` and NaN left out).
    init(distinct values: some Sequence<Any>) {
        members = DistinctValues.of(values)
        var positions: [DistinctValueKey: Int] = [:]
        for (position, member) in members.enumerated() {
            if let key = DistinctValueKey(member) { positions[key] = position }
        }
        self.positions = positions
        super.init(objects: nil, count: 0)
    }

    required convenience init?(coder: NSCoder) {
        // Never archived: a set decoded from an archive is Foundation's own `NSSet`.
        self.init(distinct: [])
    }

    // MARK: - Primitives

    override var count: Int { members.count }

    override func member(_ object: Any) -> Any? {
        guard let value = PredicateValue.unwrap(object) else { return nil }
        if let key = DistinctValueKey(value) {
            return positions[key].map { members[$0] }
        }
        return members.first { ValueComparison.equal($0, value) }
    }

    override func objectEnumerator() -> NSEnumerator {
        ArrayEnumerator(members)
    }

    override var allObjects: [Any] { members }

    // MARK: - NSObject

    override func copy(with zone: NSZone? = nil) -> Any { self }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSSet, other.count == count else { return false }
        return other.allObjects.allSatisfy { member($0) != nil }
    }

    override var hash: Int { count }

    override var description: String { description(withLocale: nil) }

    override func description(withLocale locale: Locale?) -> String {
        "{(" + members.map { "\n    \($0)" }.joined(separator: ",") + (members.isEmpty ? ")}" : "\n)}")
    }
}

// MARK: - ArrayEnumerator

/// Enumerates an array's elements once.
private final class ArrayEnumerator: NSEnumerator {
    private let elements: [Any]
    private var position = 0

    init(_ elements: [Any]) {
        self.elements = elements
    }

    override func nextObject() -> Any? {
        guard position < elements.count else { return nil }
        defer { position += 1 }
        return elements[position]
    }
}
