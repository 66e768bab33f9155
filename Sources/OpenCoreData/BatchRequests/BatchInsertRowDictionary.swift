import Foundation

/// The dictionary a batch insert's `dictionaryHandler` fills in: an `NSMutableDictionary` that
/// keeps the values of the entity's properties by slot.
///
/// swift-corelibs-foundation's own `NSMutableDictionary` boxes every key and value into an
/// `NSObject` and hashes the key as an `NSString`, and reading the row back unboxes and hashes
/// again: most of a million-row batch insert went there. This one stores the value as given in
/// the property's slot and hands the store the slots that were set.
///
/// To the handler it is a dictionary like any other: reading, enumerating, removing and copying
/// work. Keys that name no property (or are not strings) are kept as well, so the row can be
/// refused with an error that names them.
final class BatchInsertRowDictionary: NSMutableDictionary {
    /// The slot of each property name.
    private let slotByName: [String: Int]
    /// The property name of each slot.
    private let names: [String]
    // Unchecked exclusivity: a class's stored arrays otherwise pay a dynamic exclusivity check on
    // every access, several per value of a million-row insert. Safe because no access overlaps
    // another: the handler and the request use the dictionary in turn, on one thread, and no
    // method here calls out while it holds an access to one of these arrays.

    /// Values by slot; nil where the row does not set the property.
    @exclusivity(unchecked) private(set) var values: [Any?]
    /// The slots set, in the order they were first set.
    @exclusivity(unchecked) private(set) var setSlots: [Int] = []
    /// Entries whose key names no property, in the order they were set.
    @exclusivity(unchecked) private(set) var otherEntries: [(key: AnyHashable, value: Any)] = []
    /// The slots the previous row set, in order: a handler sets the same keys in the same order
    /// row after row, so the next key is first compared with the name of the slot set at the
    /// same position last time, which spares hashing it.
    @exclusivity(unchecked) private var previousSlots: [Int] = []

    /// An empty row for an entity whose properties are `names`, in slot order.
    init(names: [String], slotByName: [String: Int]) {
        self.names = names
        self.slotByName = slotByName
        values = Array(repeating: nil, count: names.count)
        super.init(objects: nil, forKeys: nil, count: 0)
    }

    /// An empty dictionary with no property slots (what `init()` and `copy` paths create).
    required init(objects: UnsafePointer<AnyObject>!, forKeys keys: UnsafePointer<NSObject>!, count cnt: Int) {
        names = []
        slotByName = [:]
        values = []
        super.init(objects: nil, forKeys: nil, count: 0)
        for index in 0..<cnt {
            // The caller's pointers hold `cnt` keys and objects (NSDictionary's initializer contract).
            setObject(objects[index], forKey: AnyHashable(keys[index]))
        }
    }

    /// Empties the row for the next call of the handler, keeping its storage.
    func reset() {
        for slot in setSlots { values[slot] = nil }
        swap(&previousSlots, &setSlots)
        setSlots.removeAll(keepingCapacity: true)
        otherEntries.removeAll()
    }

    /// The slot of a property name; nil for a name that is no property.
    @inline(__always)
    private func slot(named name: String) -> Int? {
        let position = setSlots.count
        if position < previousSlots.count {
            let predicted = previousSlots[position]
            if names[predicted] == name { return predicted }
        }
        return slotByName[name]
    }

    // MARK: - NSDictionary primitives

    override var count: Int { setSlots.count + otherEntries.count }

    override func object(forKey aKey: Any) -> Any? {
        if let name = aKey as? String, let slot = slotByName[name] { return values[slot] }
        guard let key = aKey as? AnyHashable else { return nil }
        return otherEntries.first { $0.key == key }?.value
    }

    override func keyEnumerator() -> NSEnumerator {
        KeyEnumerator(setSlots.map { names[$0] } + otherEntries.map(\.key.base))
    }

    override func setObject(_ anObject: Any, forKey aKey: AnyHashable) {
        if let name = aKey.base as? String, let slot = slot(named: name) {
            if values[slot] == nil { setSlots.append(slot) }
            values[slot] = anObject
        } else if let index = otherEntries.firstIndex(where: { $0.key == aKey }) {
            otherEntries[index].value = anObject
        } else {
            otherEntries.append((aKey, anObject))
        }
    }

    override func removeObject(forKey aKey: Any) {
        if let name = aKey as? String, let slot = slotByName[name] {
            guard values[slot] != nil else { return }
            values[slot] = nil
            setSlots.removeAll { $0 == slot }
        } else if let key = aKey as? AnyHashable {
            otherEntries.removeAll { $0.key == key }
        }
    }
}

// MARK: - KeyEnumerator

/// Enumerates a snapshot of the keys.
private final class KeyEnumerator: NSEnumerator {
    private var keys: IndexingIterator<[Any]>

    init(_ keys: [Any]) {
        self.keys = keys.makeIterator()
        super.init()
    }

    override func nextObject() -> Any? { keys.next() }
}
