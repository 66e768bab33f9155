import Foundation

/// A value as a store keeps it: typed, Sendable, free of managed objects.
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
