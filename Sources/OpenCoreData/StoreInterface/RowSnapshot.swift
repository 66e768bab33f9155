import Foundation

/// A value as a store keeps it: typed, Sendable, free of managed objects. Stores produce and
/// consume these; the context converts them to and from public values (`AttributeConversion`).
///
/// Snapshots in the row cache hold these, so contexts on different threads can share them.
package enum StoreValue: Sendable, Hashable {
    case null
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case decimal(Decimal)
    case uri(URL)
    /// A to-one relationship's destination.
    case objectID(NSManagedObjectID)
    /// A to-many relationship's destinations, in order for ordered relationships.
    case objectIDs([NSManagedObjectID])
    /// A to-many relationship the snapshot does not carry (the store fetches it when the fault fires).
    case unloaded

    package var isNull: Bool { if case .null = self { return true } else { return false } }

    package var objectIDValue: NSManagedObjectID? {
        if case .objectID(let id) = self { return id }
        return nil
    }

    /// Equality with strings compared by their exact Unicode scalars, as `NSString`'s literal
    /// comparison and SQLite's BINARY collation compare them: Swift's `==` calls canonically
    /// equivalent strings (precomposed "Zoë" and decomposed "Zoe\u{308}") equal, so a change
    /// from one to the other would be taken for no change and never saved. Every change check
    /// (dirty slots, merges, uniqueness) goes through here. The synthesized `hash(into:)` stays
    /// consistent: literally equal strings are canonically equal, so they hash alike.
    @inline(__always)
    package static func == (lhs: StoreValue, rhs: StoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return literallyEqual(a, b)
        case (.null, .null), (.unloaded, .unloaded): return true
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.decimal(let a), .decimal(let b)): return a == b
        case (.uri(let a), .uri(let b)): return a == b
        case (.objectID(let a), .objectID(let b)): return a == b
        case (.objectIDs(let a), .objectIDs(let b)): return a == b
        default: return false
        }
    }

    /// Whether two strings have the same UTF-8 bytes: cheaper than Swift's canonical `==`,
    /// which has to normalize non-ASCII text.
    @inline(__always)
    package static func literallyEqual(_ a: String, _ b: String) -> Bool {
        let (left, right) = (a.utf8, b.utf8)
        guard left.count == right.count else { return false }
        // Native strings are contiguous UTF-8: one memcmp. Bridged ones compare byte by byte.
        let contiguous = left.withContiguousStorageIfAvailable { x in
            right.withContiguousStorageIfAvailable { y in
                guard let p = x.baseAddress, let q = y.baseAddress else { return true }
                return memcmp(p, q, x.count) == 0
            }
        }
        if let contiguous, let answer = contiguous { return answer }
        return left.elementsEqual(right)
    }
}

/// The persistent state of one row: the values of its stored properties and its version (`Z_OPT`).
///
/// Values are indexed by the entity's `EntityLayout` slot; transient slots hold `.null`.
package struct RowSnapshot: Sendable {
    package var objectID: NSManagedObjectID
    package var version: Int64
    package var values: StoreValues

    package init(objectID: NSManagedObjectID, version: Int64, values: StoreValues) {
        self.objectID = objectID
        self.version = version
        self.values = values
    }
}
