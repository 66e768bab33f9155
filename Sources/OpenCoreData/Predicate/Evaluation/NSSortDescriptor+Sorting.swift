import Foundation

// MARK: - SortComparison

/// The comparisons behind `compare:`, `caseInsensitiveCompare:` and the localized selectors.
package enum SortComparison {
    /// Orders two non-nil values with the named selector; incomparable values are equal.
    package static func compare(_ lhs: Any, _ rhs: Any, selector: String) -> ComparisonResult {
        if let left = PredicateValue.string(PredicateValue.unwrap(lhs)),
           let right = PredicateValue.string(PredicateValue.unwrap(rhs)) {
            switch selector {
            case "caseInsensitiveCompare:":
                return left.compare(right, options: .caseInsensitive)
            case "localizedCompare:":
                return left.compare(right, options: [], range: nil, locale: .current)
            case "localizedCaseInsensitiveCompare:":
                return left.compare(right, options: .caseInsensitive, range: nil, locale: .current)
            case "localizedStandardCompare:":
                return left.compare(right, options: [.caseInsensitive, .numeric], range: nil, locale: .current)
            default:
                return left < right ? .orderedAscending : (left > right ? .orderedDescending : .orderedSame)
            }
        }
        return ValueComparison.compare(lhs, rhs) ?? .orderedSame
    }

    /// Orders two objects by a list of descriptors, the first deciding unless it finds them equal.
    package static func compare(_ lhs: Any, _ rhs: Any, by descriptors: [NSSortDescriptor]) -> ComparisonResult {
        for descriptor in descriptors {
            let order = descriptor.compare(lhs, to: rhs)
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }
}

// MARK: - Sorting sequences

extension Sequence {
    /// The elements sorted by sort descriptors, as `NSArray.sortedArray(using:)` does.
    ///
    /// The sort is stable: elements the descriptors find equal keep their order.
    /// - Complexity: O(*n* log *n*) comparisons.
    public func sorted(using descriptors: [NSSortDescriptor]) -> [Element] {
        let indexed = Array(enumerated())
        return indexed.sorted { lhs, rhs in
            switch SortComparison.compare(lhs.element, rhs.element, by: descriptors) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: lhs.offset < rhs.offset
            }
        }.map(\.element)
    }
}

extension MutableCollection where Self: RandomAccessCollection {
    /// Sorts the collection in place by sort descriptors (stable).
    public mutating func sort(using descriptors: [NSSortDescriptor]) {
        let sorted = self.sorted(using: descriptors)
        for (index, element) in zip(indices, sorted) { self[index] = element }
    }
}

// MARK: - Sorting Foundation's collections

// OpenCoreData declares its own `NSSortDescriptor` (it compares managed objects' values by key
// and key path, which swift-corelibs-foundation's cannot), so Foundation's `sortedArray(using:)`
// and `sort(using:)`, which take Foundation's descriptors, would not accept
// `[NSSortDescriptor(key: "name", ascending: true)]` in a file importing OpenCoreData. These
// overloads take OpenCoreData's, and sort as Apple's do (stable; the first descriptor decides
// unless it finds two elements equal).

extension NSArray {
    /// The elements sorted by sort descriptors.
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        Array(self).sorted(using: sortDescriptors)
    }
}

extension NSMutableArray {
    /// Sorts the elements in place by sort descriptors.
    public func sort(using sortDescriptors: [NSSortDescriptor]) {
        let sorted = Array(self).sorted(using: sortDescriptors)
        for (index, element) in sorted.enumerated() { replaceObject(at: index, with: element) }
    }
}

extension NSSet {
    /// The elements sorted by sort descriptors (a set's order is not defined; this one is).
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        allObjects.sorted(using: sortDescriptors)
    }
}

extension NSOrderedSet {
    /// The elements sorted by sort descriptors.
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        array.sorted(using: sortDescriptors)
    }
}

extension NSMutableOrderedSet {
    /// Sorts the elements in place by sort descriptors. On a `mutableOrderedSetValue(forKey:)`
    /// set this reorders the relationship.
    public func sort(using sortDescriptors: [NSSortDescriptor]) {
        sort(options: .stable) { SortComparison.compare($0, $1, by: sortDescriptors) }
    }
}
