import Foundation
import Synchronization

/// The reference objects of a custom store's object IDs, and the `Int64` keys that stand for them.
///
/// An `NSManagedObjectID` holds an `Int64` key, which the SQLite and in-memory stores use as
/// `Z_PK`. A custom store names its records by any reference object (a string, a number, a
/// UUID…); this table, one per store, gives each (entity hierarchy, reference) pair a key
/// the first time the store names it, so IDs of custom stores cost the SQLite path nothing.
/// Keys are never reused while the store is open.
package final class ReferenceObjectTable: Sendable {
    private struct Entry: @unchecked Sendable {
        // @unchecked: reference objects are immutable values (strings, numbers, UUIDs) the
        // store hands over; they are only read after being stored, behind `state`'s lock.
        let reference: Any
        let root: ObjectIdentifier
    }
    private struct Key: Hashable, @unchecked Sendable {
        // @unchecked: as `Entry`.
        let root: ObjectIdentifier
        let reference: AnyHashable
    }
    private struct State: Sendable {
        var keys: [Key: Int64] = [:]
        var entries: [Int64: Entry] = [:]
        var lastKey: Int64 = 0
    }
    private let state = Mutex(State())

    package init() {}

    /// The key of a reference object in an entity hierarchy, made on first use.
    package func key(for reference: Any, root: NSEntityDescription) -> Int64 {
        let key = Key(root: ObjectIdentifier(root), reference: Self.hashable(reference))
        return state.withLock { state in
            if let existing = state.keys[key] { return existing }
            state.lastKey += 1
            state.keys[key] = state.lastKey
            state.entries[state.lastKey] = Entry(reference: reference, root: key.root)
            return state.lastKey
        }
    }

    /// The reference object a key stands for, or nil when the store never named it.
    package func reference(for key: Int64) -> Any? {
        state.withLock { $0.entries[key]?.reference }
    }

    /// The key of a reference already named whose text is `text`, in an entity hierarchy.
    package func existingKey(text: String, root: NSEntityDescription) -> Int64? {
        let root = ObjectIdentifier(root)
        return state.withLock { state in
            state.entries.first { $0.value.root == root && "\($0.value.reference)" == text }?.key
        }
    }

    /// A reference object as a dictionary key: integers of every width compare equal, as
    /// `NSNumber`s do, and anything not `Hashable` stops with a message (Apple requires
    /// reference objects to be values that can be compared).
    private static func hashable(_ reference: Any) -> AnyHashable {
        if let string = reference as? String { return AnyHashable(string) }
        if let number = reference as? NSNumber {
            let integer = number.int64Value
            return NSNumber(value: integer) == number ? AnyHashable(integer) : AnyHashable(number.doubleValue)
        }
        if let hashable = reference as? AnyHashable { return hashable }
        CoreDataError.programmerError("A reference object must be Hashable (a string, number or UUID); got \(type(of: reference)).")
    }
}
