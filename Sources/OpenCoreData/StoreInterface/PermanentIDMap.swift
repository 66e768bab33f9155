import Foundation

/// The permanent ID a save gave each new object that had a temporary one, and the one place
/// IDs and row values are rewritten through it (by the stores as they write, by the context
/// as it takes the saved rows back).
///
/// Keyed by the temporary ID's `ObjectKey`: hashing a key needs no dynamic dispatch, unlike
/// `NSManagedObjectID`'s `hash`/`isEqual`.
package struct PermanentIDMap {
    private var ids: [ObjectKey: NSManagedObjectID] = [:]

    package init() {}

    /// Whether no temporary ID was replaced.
    package var isEmpty: Bool { ids.isEmpty }

    /// The number of temporary IDs replaced.
    package var count: Int { ids.count }

    /// Makes room for `count` new IDs.
    package mutating func reserveCapacity(_ count: Int) { ids.reserveCapacity(count) }

    /// Records the permanent ID of the object whose ID was `temporary`.
    package mutating func assign(_ permanent: NSManagedObjectID, to temporary: NSManagedObjectID) {
        ids[temporary.key] = permanent
    }

    /// The permanent ID given for `temporary`, if any.
    package func permanentID(for temporary: NSManagedObjectID) -> NSManagedObjectID? {
        temporary.isTemporaryID ? ids[temporary.key] : nil
    }

    /// `id` with a temporary ID replaced by its permanent one.
    @inline(__always)
    package func resolve(_ id: NSManagedObjectID) -> NSManagedObjectID {
        id.isTemporaryID ? (ids[id.key] ?? id) : id
    }

    /// Row values with every reference to a new object (to-one and to-many) made permanent.
    package func remapped(_ values: StoreValues) -> StoreValues {
        guard !ids.isEmpty else { return values }
        var values = values
        for index in values.indices {
            switch values[index] {
            case .objectID(let id) where id.isTemporaryID:
                values[index] = .objectID(resolve(id))
            case .objectIDs(let references) where references.contains(where: \.isTemporaryID):
                values[index] = .objectIDs(references.map(resolve))
            default:
                break
            }
        }
        return values
    }

    /// Adds another store's IDs (a save over several stores); the first ID of a key wins.
    package mutating func merge(_ other: PermanentIDMap) {
        ids.merge(other.ids) { first, _ in first }
    }
}
