import Foundation

/// The rows one batch request changed, in one value: what the result's IDs and counts, the
/// coordinator's row-cache invalidation and persistent history are built from.
///
/// Rows are kept as primary keys grouped by change kind, concrete entity and changed property
/// names, not as object IDs: a batch insert of a million rows would otherwise allocate a million
/// IDs that a `.statusOnly` request never looks at.
package struct StoreBatchChanges: Sendable {
    /// How a row changed.
    package enum Kind: Int, Sendable {
        case insert = 0
        case update = 1
        case delete = 2
    }

    /// Rows of one entity changed in the same way.
    package struct Group: Sendable {
        package let kind: Kind
        package let entity: NSEntityDescription
        /// The stored properties an update wrote (empty for inserts and deletes).
        package let updatedProperties: [String]
        /// Whether the rows changed as a consequence (a nullified inverse, a recomputed derived
        /// attribute) rather than as what the request asked for; results leave them out.
        /// Rows deleted by a Cascade rule are not side effects: results include them.
        package let isSideEffect: Bool
        package var primaryKeys: [Int64]
        /// For deletes on a store that keeps history: the preserved values of the rows, parallel
        /// to `primaryKeys` (shorter when the last rows have none; empty when no row has any).
        package fileprivate(set) var tombstones: [[String: StoreValue]?] = []

        /// The preserved values of the row at `index` of `primaryKeys`, if it has any.
        package func tombstone(at index: Int) -> [String: StoreValue]? {
            index < tombstones.count ? tombstones[index] : nil
        }

        /// Adds a row, and its tombstone when it has one.
        fileprivate mutating func append(_ primaryKey: Int64, tombstone: [String: StoreValue]?) {
            if let tombstone {
                if tombstones.count < primaryKeys.count {
                    tombstones.append(contentsOf: repeatElement(nil, count: primaryKeys.count - tombstones.count))
                }
                tombstones.append(tombstone)
            }
            primaryKeys.append(primaryKey)
        }
    }

    package private(set) var groups: [Group] = []
    /// Rows whose keys were not collected: how many rows of an entity (its subentities
    /// included) changed in a way. Only for requests that asked for a count or a status on a
    /// store that keeps no history; the coordinator then forgets every cached row of the entity.
    package private(set) var unkeyed: [(kind: Kind, entity: NSEntityDescription, count: Int)] = []
    private var groupIndex: [GroupKey: Int] = [:]
    /// The group of the last row recorded: a batch records runs of rows of one group, and this
    /// spares hashing the group key (its property names) once per row.
    private var lastGroup: Int?

    private struct GroupKey: Hashable {
        let kind: Kind
        let entity: ObjectIdentifier
        let properties: [String]
        let isSideEffect: Bool
    }

    package init() {}

    /// Records one changed row; a deleted row with the values its entity preserves in history.
    package mutating func append(_ kind: Kind, entity: NSEntityDescription, primaryKey: Int64, updatedProperties: [String] = [],
                                 isSideEffect: Bool = false, tombstone: [String: StoreValue]? = nil) {
        if let last = lastGroup, groups[last].kind == kind, groups[last].entity === entity, groups[last].isSideEffect == isSideEffect,
           groups[last].updatedProperties == updatedProperties {
            groups[last].append(primaryKey, tombstone: tombstone)
            return
        }
        let key = GroupKey(kind: kind, entity: ObjectIdentifier(entity), properties: updatedProperties, isSideEffect: isSideEffect)
        if let index = groupIndex[key] {
            lastGroup = index
            groups[index].append(primaryKey, tombstone: tombstone)
        } else {
            groupIndex[key] = groups.count
            lastGroup = groups.count
            var group = Group(kind: kind, entity: entity, updatedProperties: updatedProperties, isSideEffect: isSideEffect, primaryKeys: [])
            group.append(primaryKey, tombstone: tombstone)
            groups.append(group)
        }
    }

    /// Records rows of an entity that changed without their keys.
    package mutating func append(_ kind: Kind, entity: NSEntityDescription, count: Int) {
        guard count > 0 else { return }
        unkeyed.append((kind, entity, count))
    }

    /// The number of rows changed in a way (side effects included or not).
    package func count(of kind: Kind, includingSideEffects: Bool = true) -> Int {
        groups.reduce(0) { $0 + ($1.kind == kind && (includingSideEffects || !$1.isSideEffect) ? $1.primaryKeys.count : 0) }
            + unkeyed.reduce(0) { $0 + ($1.kind == kind ? $1.count : 0) }
    }

    /// Whether nothing changed.
    package var isEmpty: Bool { groups.isEmpty && unkeyed.isEmpty }

    /// The IDs of the rows changed in a way, in the order they were recorded within each group.
    package func objectIDs(_ kind: Kind, store: NSPersistentStore, includingSideEffects: Bool = true) -> [NSManagedObjectID] {
        var ids: [NSManagedObjectID] = []
        for group in groups where group.kind == kind && (includingSideEffects || !group.isSideEffect) {
            let root = group.entity.rootEntity
            ids.reserveCapacity(ids.count + group.primaryKeys.count)
            for key in group.primaryKeys {
                ids.append(NSManagedObjectID(entity: group.entity, root: root, primaryKey: key, handle: store.handle))
            }
        }
        return ids
    }
}
