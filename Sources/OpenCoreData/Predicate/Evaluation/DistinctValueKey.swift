import Foundation

// MARK: - DistinctValueKey

/// A hash key for a value in a to-many value collection, safe to hash on every platform.
///
/// A key path through a to-many relationship (`tags.name`, `friends.balance`) gives the
/// *distinct* values of the related objects, as Apple's `NSSet` `value(forKey:)` does. Hashing
/// the values themselves is not safe: on Linux `NSDecimalNumber.hash` recurses until the stack
/// overflows (swift-corelibs-foundation, Swift 6.3), and Swift's `String` hash merges canonically
/// equivalent spellings ("café" and "cafe\u{301}"), keeping whichever the hash seed puts first.
/// So values are keyed by what they are:
///
/// - strings by their Unicode scalars, literally, as `NSString.isEqual(_:)` compares on Apple
///   platforms and as SQLite's `DISTINCT` compares bytes: both spellings stay;
/// - numbers by value, whatever their type: an integer by its `Int64` (or `UInt64`), any other
///   number by the double a store keeps for it (a decimal's nearest double), so `1`, `1.0` and
///   `NSDecimalNumber(1)` are one value, as `SUM(DISTINCT …)` in SQL sees them;
/// - dates by their seconds, data by bytes, UUIDs, URLs by their text, managed objects and
///   object IDs by object ID.
///
/// Any other value has no key (`nil`) and is compared without hashing.
package enum DistinctValueKey: Hashable {
    case integer(Int64)
    case unsigned(UInt64)
    case real(Double)
    case text(LiteralText)
    case date(Double)
    case data(Data)
    case uuid(UUID)
    case object(NSManagedObjectID)

    /// The key of `value` (already unwrapped and not nil), or nil for values compared by `==`.
    package init?(_ value: Any) {
        let type = type(of: value)
        if type == String.self, let string = value as? String {
            self = .text(LiteralText(string))
        } else if let number = PredicateNumber(value) {
            switch number {
            case .int(let int): self = .integer(int)
            case .uint(let uint): self = .unsigned(uint)
            case .double, .decimal: self = Self.key(forReal: number.doubleValue)
            }
        } else if let string = PredicateValue.string(value) {
            self = .text(LiteralText(string))
        } else if let date = PredicateValue.date(value) {
            self = .date(date.timeIntervalSinceReferenceDate)
        } else {
            switch value {
            case let data as Data: self = .data(data)
            case let data as NSData: self = .data(data as Data)
            case let uuid as UUID: self = .uuid(uuid)
            case let uuid as NSUUID: self = .uuid(uuid as UUID)
            case let url as URL: self = .text(LiteralText(url.absoluteString))
            case let url as NSURL: self = .text(LiteralText((url as URL).absoluteString))
            case let object as NSManagedObject: self = .object(object.objectID)
            case let id as NSManagedObjectID: self = .object(id)
            default: return nil
            }
        }
    }

    /// A double's key: integral values as integers, so `2.0` meets `2`; `-0.0` as `0`.
    private static func key(forReal double: Double) -> DistinctValueKey {
        if double.rounded(.towardZero) == double {
            if let int = Int64(exactly: double) { return .integer(int) }
            if let uint = UInt64(exactly: double) { return .unsigned(uint) }
        }
        return .real(double)
    }
}

// MARK: - LiteralText

/// A string compared and hashed by its Unicode scalars (UTF-8 bytes), not by canonical
/// equivalence as Swift's `String` is.
package struct LiteralText: Hashable {
    package let string: String

    package init(_ string: String) { self.string = string }

    package static func == (lhs: LiteralText, rhs: LiteralText) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(string.utf8.count)
        for byte in string.utf8 { hasher.combine(byte) }
    }
}

// MARK: - DistinctValues

/// Collects values without duplicates, in first-seen order, hashing only `DistinctValueKey`s.
///
/// A value without a key is compared with the others without a key by `ValueComparison.equal`
/// (linear in their number; such values — arrays, custom objects — are rare in a collection).
/// nil, `NSNull` and NaN are left out, as a set of values drops nils and a store holds NaN as NULL.
package struct DistinctValues {
    package private(set) var values: [Any] = []
    private var keys: Set<DistinctValueKey> = []
    private var unkeyed: [Any] = []

    package init() {}

    /// Adds `value` unless an equal one is already there.
    package mutating func insert(_ value: Any?) {
        guard let value = PredicateValue.unwrapNumber(value) else { return }
        if let key = DistinctValueKey(value) {
            guard keys.insert(key).inserted else { return }
        } else {
            guard !unkeyed.contains(where: { ValueComparison.equal($0, value) }) else { return }
            unkeyed.append(value)
        }
        values.append(value)
    }

    /// The distinct values of `values`.
    package static func of(_ values: some Sequence<Any>) -> [Any] {
        var distinct = DistinctValues()
        for value in values { distinct.insert(value) }
        return distinct.values
    }
}
