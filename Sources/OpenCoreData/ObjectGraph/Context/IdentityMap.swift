import Foundation

/// A context's registered objects by ID, not retained: an object removes itself when freed.
///
/// Every fetched object is inserted here and removed again when it is freed, so this is an
/// open-addressing table (linear probing, backward-shift deletion) rather than a `Dictionary`,
/// whose SipHash and scattered slots cost more than the rest of a lookup.
///
/// Primary keys are mostly consecutive, so a key's home slot is its primary key plus an offset
/// per entity hierarchy and store: objects fetched together sit together in memory. Keys that
/// pile up (a store file may choose any keys) make a long probe; the table then switches for
/// good to a multiplicative hash with a per-table random seed.
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

    /// The registered objects, retained for as long as the caller holds the array.
    ///
    /// There is deliberately no list of the unretained references: a walk over the registered
    /// objects may free some of them (turning an object into a fault drops slots that may hold
    /// the last strong reference to a related object, which then leaves this map), and a
    /// reference taken before that would dangle. Every object in the table is alive when this
    /// runs — an object leaves the table in its `deinit` — so retaining them here is safe.
    package var objects: [NSManagedObject] {
        var result: [NSManagedObject] = []
        result.reserveCapacity(count)
        for entry in entries { if let object = entry.object { result.append(object.takeUnretainedValue()) } }
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

    /// Set once a probe ran long: home slots then come from a seeded multiplicative hash.
    private var scrambled = false
    /// The longest probe an insert accepts before the table switches to `scrambled`.
    private static let longProbe = 48

    @inline(__always)
    private func home(_ key: ObjectKey) -> Int {
        var offset = UInt64(UInt(bitPattern: key.root)) &>> 4
        offset ^= UInt64(key.store) &<< 7
        offset &*= 0x9E37_79B9_7F4A_7C15
        let primaryKey = UInt64(bitPattern: key.primaryKey)
        if !scrambled {
            return Int(truncatingIfNeeded: primaryKey &+ (offset &>> 32)) & (entries.count - 1)
        }
        let bits = (primaryKey ^ seed ^ offset) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: bits &>> UInt64(shift))
    }

    /// How far an entry sits from its home slot.
    @inline(__always)
    private func distance(_ index: Int) -> Int {
        (index - home(entries[index].key)) & (entries.count - 1)
    }

    // Robin Hood order: along a probe sequence, entries never sit closer to their home than the
    // entries before them. A lookup stops at the first entry closer to home than the probe, and
    // a removal stops shifting at an entry that is home already — with consecutive keys almost
    // every entry is at home, so neither ever walks a whole run.

    @inline(__always)
    private func find(_ key: ObjectKey) -> Int? {
        guard count > 0 else { return nil }
        let mask = entries.count - 1
        var index = home(key)
        var probe = 0
        while true {
            guard entries[index].object != nil else { return nil }
            if entries[index].key == key { return index }
            if distance(index) < probe { return nil }
            index = (index + 1) & mask
            probe += 1
        }
    }

    private mutating func insert(_ key: ObjectKey, _ object: Unmanaged<NSManagedObject>) {
        if (count + 1) * 4 > entries.count * 3 { grow() }
        let mask = entries.count - 1
        var index = home(key)
        var probe = 0
        // One walk finds the key or the slot to take: in Robin Hood order the key cannot sit
        // past an entry that is closer to its own home than the probe has come.
        while entries[index].object != nil {
            if entries[index].key == key {
                entries[index].object = object
                return
            }
            if distance(index) < probe { break }
            index = (index + 1) & mask
            probe += 1
        }
        var carried = Entry(key: key, object: object)
        // Steps to the empty slot, counted apart from the probe, which each swap shortens: two
        // runs of consecutive keys with overlapping home slots make every insert into the first
        // shift the entries of the whole second run, however short each probe is.
        var steps = probe
        while entries[index].object != nil {
            let resident = distance(index)
            if resident < probe {
                swap(&carried, &entries[index])
                probe = resident
            }
            index = (index + 1) & mask
            probe += 1
            steps += 1
            if (probe > Self.longProbe || steps > Self.longProbe) && !scrambled {
                // Keys pile up: place the carried entry, then rebuild with the seeded hash.
                scrambled = true
                rehash(capacity: entries.count)
                return insert(carried.key, carried.object!)
            }
        }
        entries[index] = carried
        count += 1
    }

    /// Empties slot `index`, shifting the entries after it back by one until one is at home, so
    /// probe sequences stay unbroken (no tombstones).
    private mutating func remove(at index: Int) {
        let mask = entries.count - 1
        var hole = index
        while true {
            let next = (hole + 1) & mask
            guard entries[next].object != nil, distance(next) > 0 else { break }
            entries[hole] = entries[next]
            hole = next
        }
        entries[hole].object = nil
        count -= 1
    }

    /// Makes room for `capacity` entries at once, so registering a fetch's rows rehashes at most once.
    package mutating func reserveCapacity(_ capacity: Int) {
        guard capacity * 4 > entries.count * 3 else { return }
        var size = max(16, entries.count)
        while capacity * 4 > size * 3 { size *= 2 }
        rehash(capacity: size)
    }

    private mutating func grow() {
        rehash(capacity: max(16, entries.count * 2))
    }

    private mutating func rehash(capacity: Int) {
        let old = entries
        entries = ContiguousArray(repeating: Entry(key: ObjectKey.empty, object: nil), count: capacity)
        shift = 64 - capacity.trailingZeroBitCount
        count = 0
        for entry in old {
            if let object = entry.object { insert(entry.key, object) }
        }
    }
}
