import Foundation

// MARK: - Saves by other coordinators

/// What tells a store file's contents apart cheaply: its modification date, size and file
/// number (an atomic write replaces the file, so the number changes too). Nil fields are ones
/// the file system does not report; a missing file has no state at all.
package struct AtomicStoreFileState: Equatable, Sendable {
    let modificationDate: Date?
    let size: UInt64?
    let fileNumber: UInt64?

    /// The state of the file at `url`, or nil when there is none.
    init?(of url: URL) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        modificationDate = attributes[.modificationDate] as? Date
        size = (attributes[.size] as? NSNumber)?.uint64Value
        fileNumber = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
    }
}

extension AtomicStoreBackend {
    /// Reads the file again when another coordinator saved it since this store loaded or saved it.
    ///
    /// An atomic store holds the whole file in memory, and its `save()` writes the whole cache:
    /// without this, a save from a second coordinator on the same file would write back the
    /// values it loaded, undoing the other's changes without a conflict. So `load()` runs again
    /// (`NSAtomicStore.reload`); a node whose values differ from the ones this store had gets
    /// the next version, so a context that read the old values gets a merge conflict, as with
    /// the other stores; unchanged nodes keep their version, new ones start at 1. If `load()`
    /// throws, the registered nodes stay and the save fails with its error.
    func reloadIfChangedElsewhere(_ store: NSAtomicStore) throws {
        guard let url = store.url else { return }
        let current = AtomicStoreFileState(of: url)
        guard store.loadedFile.withLock({ $0 }) != current else { return }
        let before = try Dictionary(store.cacheNodes().map { node in (node.objectID, try snapshot(of: node)) },
                                    uniquingKeysWith: { first, _ in first })
        try store.reload { loaded in
            for node in loaded {
                guard let old = before[node.objectID] else { continue }
                node.version = try Self.sameValues(old, snapshot(of: node)) ? old.version : old.version + 1
            }
        }
        store.loadedFile.withLock { $0 = current }
    }

    /// Whether two rows of one record hold the same values; unordered to-many relationships
    /// compare as sets (a store may keep them in a set of any order).
    private static func sameValues(_ old: RowSnapshot, _ new: RowSnapshot) -> Bool {
        let layout = old.objectID.entity.layout
        guard old.values.count == new.values.count else { return false }
        for index in old.values.indices where old.values[index] != new.values[index] {
            guard case .objectIDs(let oldIDs) = old.values[index], case .objectIDs(let newIDs) = new.values[index],
                  layout.isRelationship[index], !layout.relationship(at: index).isOrdered,
                  Set(oldIDs) == Set(newIDs) else { return false }
        }
        return true
    }
}
