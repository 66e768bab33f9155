import Foundation

/// A context's registered objects by ID, not retained: an object removes itself when freed.
///
/// Keyed by `ObjectKey`, a plain value, so a lookup neither boxes the ID nor calls `isEqual`.
package struct IdentityMap {
    private var entries: [ObjectKey: Unmanaged<NSManagedObject>] = [:]

    package init() {}

    package subscript(_ id: NSManagedObjectID) -> Unmanaged<NSManagedObject>? {
        get { entries[id.key] }
        set { entries[id.key] = newValue }
    }

    /// The registered objects (unretained references).
    package var values: Dictionary<ObjectKey, Unmanaged<NSManagedObject>>.Values { entries.values }

    package var count: Int { entries.count }

    /// Removes the entry for `id` if it is `object`, with one hash lookup.
    package mutating func remove(_ id: NSManagedObjectID, ifItIs object: NSManagedObject) {
        guard let index = entries.index(forKey: id.key),
              entries.values[index].toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
        entries.remove(at: index)
    }

    package var isEmpty: Bool { entries.isEmpty }
}
