import Foundation

// MARK: - ValueComparison

/// Apple's comparison semantics for predicate values.
///
/// - `nil` equals only `nil`; ordering against `nil` is undefined (every `<` is false).
/// - Numbers of any type compare by value; strings honour `[c]`, `[d]` and `[n]`.
/// - Dates, `Data`, `UUID` and `URL` compare by value; other objects by `isEqual`/identity.
/// - A NaN is nil, as SQLite stores and computes NaN as NULL (docs/Predicates.md).
package enum ValueComparison {
    /// Orders two values, or returns `nil` when they are not comparable.
    package static func compare(_ lhs: Any?, _ rhs: Any?, options: NSComparisonPredicate.Options = []) -> ComparisonResult? {
        guard let lhs = PredicateValue.unwrapNumber(lhs), let rhs = PredicateValue.unwrapNumber(rhs) else { return nil }
        if let left = PredicateNumber(lhs), let right = PredicateNumber(rhs) {
            return left.compare(right)
        }
        if let left = PredicateValue.string(lhs), let right = PredicateValue.string(rhs) {
            return order(StringMatching.fold(left, options), StringMatching.fold(right, options))
        }
        if let left = PredicateValue.date(lhs), let right = PredicateValue.date(rhs) {
            return order(left, right)
        }
        if let left = data(lhs), let right = data(rhs) {
            return left == right ? .orderedSame : (left.lexicographicallyPrecedes(right) ? .orderedAscending : .orderedDescending)
        }
        if let left = uuid(lhs), let right = uuid(rhs) {
            return order(left.uuidString, right.uuidString)
        }
        if let left = url(lhs), let right = url(rhs) {
            return order(left.absoluteString, right.absoluteString)
        }
        return nil
    }

    /// Whether two values are equal under Apple's `==` semantics.
    package static func equal(_ lhs: Any?, _ rhs: Any?, options: NSComparisonPredicate.Options = []) -> Bool {
        let lhs = PredicateValue.unwrapNumber(lhs), rhs = PredicateValue.unwrapNumber(rhs)
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        if let order = compare(lhs, rhs, options: options) { return order == .orderedSame }
        if PredicateNumber(lhs) != nil || PredicateValue.string(lhs) != nil || PredicateValue.date(lhs) != nil {
            return false
        }
        if let left = PredicateValue.elements(lhs), let right = PredicateValue.elements(rhs) {
            return collectionsEqual(left, right, options: options)
        }
        return objectsEqual(lhs, rhs)
    }

    /// Object equality: `isEqual(_:)` for `NSObject`s, `==` for `Hashable` values, else identity.
    ///
    /// Managed objects compare by object ID, with each other and with `NSManagedObjectID`s, as
    /// a store compares rows: `SELF == %@` and `ANY tags IN %@` accept objects or their IDs, and
    /// an object from another context matches the same row.
    package static func objectsEqual(_ lhs: Any, _ rhs: Any) -> Bool {
        if lhs is NSManagedObject || rhs is NSManagedObject {
            let left = (lhs as? NSManagedObject)?.objectID ?? lhs, right = (rhs as? NSManagedObject)?.objectID ?? rhs
            guard let leftID = left as? NSManagedObjectID, let rightID = right as? NSManagedObjectID else { return false }
            return leftID.isEqual(rightID)
        }
        let leftType = type(of: lhs), rightType = type(of: rhs)
        if leftType is AnyObject.Type && rightType is AnyObject.Type {
            let left = lhs as AnyObject, right = rhs as AnyObject
            if left === right { return true }
            if let object = left as? NSObject { return object.isEqual(right) }
        }
        if let left = lhs as? AnyHashable, let right = rhs as? AnyHashable { return left == right }
        return false
    }

    /// Whether `collection` holds an element equal to `value`.
    package static func contains(_ collection: PredicateValue.Elements, _ value: Any?, options: NSComparisonPredicate.Options) -> Bool {
        collection.values.contains { equal($0, value, options: options) }
    }

    private static func collectionsEqual(
        _ lhs: PredicateValue.Elements, _ rhs: PredicateValue.Elements, options: NSComparisonPredicate.Options
    ) -> Bool {
        guard lhs.values.count == rhs.values.count else { return false }
        if !lhs.isUnordered && !rhs.isUnordered {
            return zip(lhs.values, rhs.values).allSatisfy { equal($0, $1, options: options) }
        }
        var remaining = rhs.values
        for value in lhs.values {
            guard let index = remaining.firstIndex(where: { equal(value, $0, options: options) }) else { return false }
            remaining.remove(at: index)
        }
        return true
    }

    // MARK: - Helpers

    private static func order<T: Comparable>(_ lhs: T, _ rhs: T) -> ComparisonResult {
        lhs < rhs ? .orderedAscending : (lhs > rhs ? .orderedDescending : .orderedSame)
    }

    private static func data(_ value: Any) -> Data? {
        switch value {
        case let data as Data: data
        case let data as NSData: data as Data
        default: nil
        }
    }

    private static func uuid(_ value: Any) -> UUID? {
        switch value {
        case let uuid as UUID: uuid
        case let uuid as NSUUID: uuid as UUID
        default: nil
        }
    }

    private static func url(_ value: Any) -> URL? {
        switch value {
        case let url as URL: url
        case let url as NSURL: url as URL
        default: nil
        }
    }
}
