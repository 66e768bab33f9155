import Foundation

/// A context's registered objects by ID, not retained: an object removes itself when freed.
///
/// Every fetched object is inserted here and removed again when it is freed, so this is an
/// open-addressing table (linear probing, backward-shift deletion) with a multiplicative hash
/// of the key's three words, rather than a `Dictionary`, whose SipHash cost more than the rest
/// of a lookup. The seed is random per table, so keys a store file chooses cannot be lined up
/// to collide.
package struct IdentityMap {
    private struct Entry {
        var key: ObjectKey
        /// nil marks an empty slot.
        var object: Unmanaged<NSManagedObject>?
    }

    private var entries: ContiguousArray<Entry> = []
    /// `64 - log2(capacity)`: the hash's top bits pick the home slot.
    private var shift = 64
    private let seed = UInt64.random(in: .min ... .max)
    package private(set) var count = 0

    package init() {}

    package subscript(_ id: NSManagedObjectID) -> Unmanaged<NSManagedObject>? {
        get { self[id.key] }
        set { self[id.key] = newValue }
    }

    package subscript(_ key: ObjectKey) -> Unmanaged<NSManagedObject>? {
        get {
            guard let index = find(key) else { return nil }
            return entries[index].object
        }
        set {
            if let newValue { insert(key, newValue) } else if let index = find(key) { remove(at: index) }
        }
    }

    /// The registered objects (unretained references).
    package var values: [Unmanaged<NSManagedObject>] {
        var result: [Unmanaged<NSManagedObject>] = []
        result.reserveCapacity(count)
        for entry in entries { if let object = entry.object { result.append(object) } }
        return result
    }

    package var isEmpty: Bool { count == 0 }

    /// Removes the entry for `id` if it is `object`, with one probe sequence.
    package mutating func remove(_ id: NSManagedObjectID, ifItIs object: NSManagedObject) {
        guard let index = find(id.key),
              entries[index].object?.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
        remove(at: index)
    }

    // MARK: - The table

    @inline(__always)
    private func home(_ key: ObjectKey) -> Int {
        var bits = UInt64(bitPattern: key.primaryKey) ^ seed
        bits ^= UInt64(UInt(bitPattern: key.root)) &>> 4
        if let store = key.store { bits ^= UInt64(UInt(bitPattern: store)) &<< 7 }
        bits &*= 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: bits &>> UInt64(shift))
    }

    @inline(__always)
    private func find(_ key: ObjectKey) -> Int? {
        guard count > 0 else { return nil }
        let mask = entries.count - 1
        var index = home(key)
        while true {
            let entry = entries[index]
            guard entry.object != nil else { return nil }
            if entry.key == key { return index }
            index = (index + 1) & mask
        }
    }

    private mutating func insert(_ key: ObjectKey, _ object: Unmanaged<NSManagedObject>) {
        if (count + 1) * 4 > entries.count * 3 { grow() }
        let mask = entries.count - 1
        var index = home(key)
        while entries[index].object != nil {
            if entries[index].key == key {
                entries[index].object = object
                return
            }
            index = (index + 1) & mask
        }
        entries[index] = Entry(key: key, object: object)
        count += 1
    }

    /// Empties slot `index`, moving later entries of the same run back so every probe sequence
    /// stays unbroken (no tombstones).
    private mutating func remove(at index: Int) {
        let mask = entries.count - 1
        var hole = index
        var next = index
        while true {
            next = (next + 1) & mask
            guard entries[next].object != nil else { break }
            let wanted = home(entries[next].key)
            // The entry may move into the hole unless its home lies cyclically in (hole, next].
            let homeAfterHole = hole <= next ? (wanted > hole && wanted <= next) : (wanted > hole || wanted <= next)
            if !homeAfterHole {
                entries[hole] = entries[next]
                hole = next
            }
        }
        entries[hole].object = nil
        count -= 1
    }

    private mutating func grow() {
        let capacity = max(16, entries.count * 2)
        let old = entries
        entries = ContiguousArray(repeating: Entry(key: ObjectKey.empty, object: nil), count: capacity)
        shift = 64 - capacity.trailingZeroBitCount
        count = 0
        for entry in old {
            if let object = entry.object { insert(entry.key, object) }
        }
    }
}
