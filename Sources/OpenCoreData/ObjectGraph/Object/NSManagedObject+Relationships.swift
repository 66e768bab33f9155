import Foundation

// MARK: - Relationships and inverse maintenance

extension NSManagedObject {
    /// A mutable set that changes a to-many relationship, with inverse maintenance.
    public func mutableSetValue(forKey key: String) -> NSMutableSet {
        guard let index = layout.index(forKey: key), let relationship = layout.properties[index] as? NSRelationshipDescription,
              relationship.isToMany else {
            CoreDataError.programmerError("mutableSetValue(forKey:): entity '\(entity.name ?? "?")' has no to-many relationship '\(key)'.")
        }
        return RelationshipMutableSet(owner: self, index: index)
    }

    /// A mutable ordered set that changes an ordered to-many relationship, with inverse maintenance.
    public func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        RelationshipMutableOrderedSet(owner: self, index: orderedProxyIndex(forKey: key, caller: "mutableOrderedSetValue(forKey:)"))
    }

    /// What generated accessors (`addToItems(_:)`, `insertIntoItems(_:at:)`…) edit an ordered
    /// to-many relationship through: `mutableOrderedSetValue(forKey:)`'s editing, without
    /// mirroring the relationship for reading, which costs O(n) per set made. Its `array`,
    /// `firstObject`, enumerators and iteration are empty; read the relationship itself.
    public func _orderedRelationshipEditor(forKey key: String) -> NSMutableOrderedSet {
        RelationshipMutableOrderedSet(owner: self, index: orderedProxyIndex(forKey: key, caller: "_orderedRelationshipEditor(forKey:)"),
                                      mirrors: false)
    }

    private func orderedProxyIndex(forKey key: String, caller: String) -> Int {
        guard let index = layout.index(forKey: key), let relationship = layout.properties[index] as? NSRelationshipDescription,
              relationship.isToMany else {
            CoreDataError.programmerError("\(caller): entity '\(entity.name ?? "?")' has no to-many relationship '\(key)'.")
        }
        return index
    }

    /// The IDs of a relationship's destinations, without firing relationship faults where the IDs are known.
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        guard let index = layout.index(forKey: key), layout.isRelationship[index] else { unknownKey(key) }
        fireFaultIfNeeded()
        switch slots[index] {
        case .value(let value): return value.objectIDValue.map { [$0] } ?? []
        case .toOne(let object): return object.map { [$0.objectID] } ?? []
        case .toMany(let storage): return storage.objects.map(\.objectID)
        case .unloadedToMany: return loadedToMany(at: index).objects.map(\.objectID)
        case .custom: return []
        }
    }

    /// Whether a relationship is still a fault (its destinations not loaded).
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let index = layout.index(forKey: key), layout.isRelationship[index] else { unknownKey(key) }
        if faulted { return true }
        switch slots[index] {
        case .unloadedToMany: return true
        case .value(let value): return value.objectIDValue != nil
        default: return false
        }
    }

    // MARK: - Reading

    /// The to-one destination at a slot, resolving a stored ID to a registered object or fault.
    package func resolveToOne(at index: Int) -> NSManagedObject? {
        if faulted { fireFaultIfNeeded() }
        switch slots[index] {
        case .toOne(let object):
            return object
        case .value(let value):
            guard case .objectID(let id) = value, let context = _context else { return nil }
            let object = context.object(with: id)
            slots[index] = .toOne(object)
            return object
        default:
            return nil
        }
    }

    /// The loaded storage of a to-many slot, firing the relationship fault with one store query if needed.
    package func loadedToMany(at index: Int) -> RelationshipStorage {
        if faulted { fireFaultIfNeeded() }
        switch slots[index] {
        case .toMany(let storage):
            return storage
        default:
            let relationship = layout.relationship(at: index)
            var objects = OrderedSetStorage()
            var ids: [NSManagedObjectID] = []
            // A new object has no stored destinations, unless a child context reads it from the
            // parent that inserted it.
            if let context = _context, !objectID.isTemporaryID || (!insertedFlag && context.parentStorage != nil) {
                guard let destinations = context.destinations(of: self, relationship: relationship) else {
                    // Not read: the relationship stays a fault (the next access reads it again),
                    // and this access sees no destinations; the context reports the failure.
                    return RelationshipStorage(objects: OrderedSetStorage(), committedIDs: [])
                }
                ids = destinations.ids
                for object in destinations.objects { objects.append(object) }
            }
            let storage = RelationshipStorage(objects: objects, committedIDs: ids)
            slots[index] = .toMany(storage)
            return storage
        }
    }

    // MARK: - Writing with inverse maintenance

    /// Sets a to-one relationship and maintains the inverse on the old and new destinations.
    package func setToOne(_ newValue: NSManagedObject?, at index: Int) {
        let relationship = layout.relationship(at: index)
        if let newValue { checkRelatable(newValue, key: relationship.name) }
        let old = resolveToOne(at: index)
        if old === newValue { return }
        willChangeSlot(index)
        slots[index] = .toOne(newValue)
        markChanged()
        guard let inverse = relationship.inverseRelationship else { return }
        if let old { old.primitiveRemoveInverse(self, inverse: inverse) }
        if let newValue { newValue.primitiveAddInverse(self, inverse: inverse) }
    }

    /// Replaces the destinations of a to-many relationship.
    package func replaceToMany(at index: Int, with objects: [NSManagedObject]) {
        let storage = loadedToMany(at: index)
        let newSet = OrderedSetStorage(objects)
        for old in Array(storage.objects) where !newSet.contains(old) {
            removeFromToMany(old, at: index)
        }
        for object in objects where !storage.objects.contains(object) {
            addToToMany(object, at: index, position: nil)
        }
        let relationship = layout.relationship(at: index)
        if relationship.isOrdered, storage.objects.elements != newSet.elements {
            willChangeSlot(index)
            storage.objects = newSet
            markChanged()
        }
    }

    /// Adds a destination to a to-many relationship and maintains the inverse.
    package func addToToMany(_ object: NSManagedObject, at index: Int, position: Int?) {
        let relationship = layout.relationship(at: index)
        checkRelatable(object, key: relationship.name)
        let storage = loadedToMany(at: index)
        // A member stays where it is: NSMutableOrderedSet's add(_:) and insert(_:at:) do nothing
        // for an object already in the set.
        if storage.objects.contains(object) { return }
        willChangeSlot(index)
        if let position {
            storage.objects.insert(object, at: min(position, storage.objects.count))
        } else {
            storage.objects.append(object)
        }
        markChanged()
        if let inverse = relationship.inverseRelationship {
            object.primitiveAddInverse(self, inverse: inverse)
        }
    }

    /// Removes a destination from a to-many relationship and maintains the inverse.
    package func removeFromToMany(_ object: NSManagedObject, at index: Int) {
        let relationship = layout.relationship(at: index)
        let storage = loadedToMany(at: index)
        guard let position = storage.objects.firstIndex(of: object) else { return }
        willChangeSlot(index)
        storage.objects.remove(at: position)
        markChanged()
        if let inverse = relationship.inverseRelationship {
            object.primitiveRemoveInverse(self, inverse: inverse)
        }
    }

    /// Makes this object's `inverse` point at `source` (the other side already points here).
    func primitiveAddInverse(_ source: NSManagedObject, inverse: NSRelationshipDescription) {
        guard let index = layout.indexByName[inverse.name] else { return }
        if inverse.isToMany {
            let storage = loadedToMany(at: index)
            if !storage.objects.contains(source) {
                willChangeSlot(index)
                storage.objects.append(source)
                markChanged()
            }
        } else {
            let previous = resolveToOne(at: index)
            if previous === source { return }
            willChangeSlot(index)
            slots[index] = .toOne(source)
            markChanged()
            // The previous owner loses this object from its side of the relationship.
            if let previous, let forward = inverse.inverseRelationship,
               let forwardIndex = previous.layout.indexByName[forward.name] {
                if forward.isToMany {
                    let storage = previous.loadedToMany(at: forwardIndex)
                    if let position = storage.objects.firstIndex(of: self) {
                        previous.willChangeSlot(forwardIndex)
                        storage.objects.remove(at: position)
                        previous.markChanged()
                    }
                } else if previous.resolveToOne(at: forwardIndex) === self {
                    previous.willChangeSlot(forwardIndex)
                    previous.slots[forwardIndex] = .toOne(nil)
                    previous.markChanged()
                }
            }
        }
    }

    /// Removes `source` from this object's `inverse`.
    func primitiveRemoveInverse(_ source: NSManagedObject, inverse: NSRelationshipDescription) {
        guard let index = layout.indexByName[inverse.name] else { return }
        if inverse.isToMany {
            let storage = loadedToMany(at: index)
            if let position = storage.objects.firstIndex(of: source) {
                willChangeSlot(index)
                storage.objects.remove(at: position)
                markChanged()
            }
        } else if resolveToOne(at: index) === source {
            willChangeSlot(index)
            slots[index] = .toOne(nil)
            markChanged()
        }
    }

    /// Stops when relating objects from different coordinators, as Apple raises
    /// "Illegal attempt to establish a relationship between objects in different contexts".
    func checkRelatable(_ other: NSManagedObject, key: String) {
        if let mine = _context, let theirs = other._context, mine !== theirs {
            CoreDataError.programmerError("Illegal attempt to establish a relationship '\(key)' between objects in different contexts (source entity '\(entity.name ?? "?")', destination '\(other.entity.name ?? "?")').")
        }
        if let relationship = layout.propertiesByName[key] as? NSRelationshipDescription,
           let destination = relationship.destinationEntity, !other.entity.isKindOf(entity: destination) {
            CoreDataError.programmerError("Unacceptable type of value for relationship: entity '\(entity.name ?? "?")' property '\(key)' wants '\(destination.name ?? "?")', got '\(other.entity.name ?? "?")'.")
        }
    }
}

// MARK: - Mutable proxies

/// The `NSMutableSet` that `mutableSetValue(forKey:)` returns: every change goes through the object.
final class RelationshipMutableSet: NSMutableSet {
    private let owner: NSManagedObject
    private let index: Int

    init(owner: NSManagedObject, index: Int) {
        self.owner = owner
        self.index = index
        super.init(capacity: 0)
    }

    required convenience init(arrayLiteral elements: Any...) {
        CoreDataError.programmerError("RelationshipMutableSet cannot be created from a literal.")
    }

    required init(capacity numItems: Int) {
        CoreDataError.programmerError("RelationshipMutableSet is created by mutableSetValue(forKey:) only.")
    }

    required init?(coder: NSCoder) {
        CoreDataError.programmerError("RelationshipMutableSet cannot be decoded.")
    }

    private var storage: RelationshipStorage { owner.loadedToMany(at: index) }

    override var count: Int { storage.objects.count }

    override func member(_ object: Any) -> Any? {
        guard let object = object as? NSManagedObject else { return nil }
        return storage.objects.contains(object) ? object : nil
    }

    override func objectEnumerator() -> NSEnumerator {
        NSArray(array: Array(storage.objects)).objectEnumerator()
    }

    // swift-corelibs-foundation's NSSet describes its own (empty) storage and then reads `count`
    // descriptions from it, which traps for a subclass.
    override func description(withLocale locale: Locale?) -> String {
        NSSet(array: Array(storage.objects)).description(withLocale: locale)
    }

    override func add(_ object: Any) {
        guard let object = object as? NSManagedObject else {
            CoreDataError.programmerError("Only managed objects can be added to relationship '\(owner.layout.properties[index].name)'.")
        }
        owner.addToToMany(object, at: index, position: nil)
    }

    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeFromToMany(object, at: index)
    }

    override func removeAllObjects() {
        for object in Array(storage.objects) { owner.removeFromToMany(object, at: index) }
    }

    override var allObjects: [Any] { Array(storage.objects) }

    override func contains(_ anObject: Any) -> Bool { member(anObject) != nil }

    override func addObjects(from array: [Any]) {
        for object in array { add(object) }
    }
}

/// A weak reference to a mutable ordered set that mirrors a relationship.
struct WeakOrderedSetMirror {
    weak var set: RelationshipMutableOrderedSet?
}

/// The `NSMutableOrderedSet` that `mutableOrderedSetValue(forKey:)` returns: a live view of an
/// ordered to-many relationship whose edits maintain inverses and are recorded as changes.
///
/// swift-corelibs-foundation's `NSOrderedSet` answers `array`, `set`, `firstObject`,
/// `lastObject`, its enumerators, `reversed`, `description` and iteration (`for in`, `map`,
/// `Array(_:)`) from storage of its own, in methods a subclass cannot override. So the set
/// mirrors the relationship into that storage: when it is made, whenever the relationship's
/// storage changes (the storage tells the sets that mirror it, whichever path changed it), and
/// at each overridable call (which also catches a relationship reloaded since). Keeping the
/// mirror costs a comparison of identities per element and an edit of the elements that changed.
final class RelationshipMutableOrderedSet: NSMutableOrderedSet {
    private let owner: NSManagedObject
    private let index: Int
    /// Whether the inherited storage mirrors the relationship (not for generated accessors,
    /// which only edit).
    private let mirrors: Bool
    /// What the inherited storage holds, in order.
    private var mirrored: [NSManagedObject] = []
    /// Set while the inherited storage is edited through `super`, whose own calls to `count` and
    /// `contains(_:)` must then see that storage.
    private var editingMirror = false

    init(owner: NSManagedObject, index: Int, mirrors: Bool = true) {
        self.owner = owner
        self.index = index
        self.mirrors = mirrors
        super.init(capacity: 0)
        if mirrors { syncMirror() }
    }

    required convenience init(arrayLiteral elements: Any...) {
        CoreDataError.programmerError("RelationshipMutableOrderedSet cannot be created from a literal.")
    }

    required init?(coder: NSCoder) {
        CoreDataError.programmerError("RelationshipMutableOrderedSet cannot be decoded.")
    }

    /// The relationship's storage, mirrored first if it is not the storage mirrored last (a
    /// relationship reloaded since).
    private var storage: RelationshipStorage {
        let storage = owner.loadedToMany(at: index)
        if mirrors && !storage.mirrors.contains(where: { $0.set === self }) { syncMirror(storage) }
        return storage
    }

    /// Makes the inherited storage equal to the relationship: keeps the common prefix and suffix
    /// (compared by identity) and replaces what lies between.
    func syncMirror(_ loaded: RelationshipStorage? = nil) {
        guard mirrors, !editingMirror else { return }
        let storage = loaded ?? owner.loadedToMany(at: index)
        if !storage.mirrors.contains(where: { $0.set === self }) { storage.mirrors.append(WeakOrderedSetMirror(set: self)) }
        let current = storage.objects.elements
        let common = Swift.min(current.count, mirrored.count)
        var prefix = 0
        while prefix < common && current[prefix] === mirrored[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < common - prefix && current[current.count - 1 - suffix] === mirrored[mirrored.count - 1 - suffix] { suffix += 1 }
        if prefix == current.count && prefix == mirrored.count { return }
        editingMirror = true
        defer { editingMirror = false }
        for position in stride(from: mirrored.count - suffix - 1, through: prefix, by: -1) {
            super.removeObject(at: position)
        }
        for (offset, object) in current[prefix..<(current.count - suffix)].enumerated() {
            super.insert(object, at: prefix + offset)
        }
        mirrored = Array(current)
    }

    override var count: Int { editingMirror ? super.count : storage.objects.count }

    override func object(at idx: Int) -> Any { storage.objects[idx] }

    override func index(of object: Any) -> Int {
        guard let object = object as? NSManagedObject else { return NSNotFound }
        return storage.objects.firstIndex(of: object) ?? NSNotFound
    }

    // swift-corelibs-foundation's NSOrderedSet.contains(_:) reads its own storage instead of
    // calling index(of:); answer from the relationship.
    override func contains(_ object: Any) -> Bool {
        if editingMirror { return super.contains(object) }
        return index(of: object) != NSNotFound
    }

    override func insert(_ object: Any, at idx: Int) {
        guard let object = object as? NSManagedObject else {
            CoreDataError.programmerError("Only managed objects can be added to relationship '\(owner.layout.properties[index].name)'.")
        }
        owner.addToToMany(object, at: index, position: idx)
    }

    override func removeObject(at idx: Int) {
        owner.removeFromToMany(storage.objects[idx], at: index)
    }

    override func replaceObject(at idx: Int, with object: Any) {
        removeObject(at: idx)
        insert(object, at: idx)
    }

    override func add(_ object: Any) {
        insert(object, at: count)
    }

    override func addObjects(from array: [Any]) {
        for object in array { add(object) }
    }

    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeFromToMany(object, at: index)
    }

    override func removeAllObjects() {
        for object in Array(storage.objects) { owner.removeFromToMany(object, at: index) }
    }

    override func moveObjects(at indexes: IndexSet, to idx: Int) {
        let moving = indexes.map { storage.objects[$0] }
        var remaining = Array(storage.objects)
        for offset in indexes.reversed() { remaining.remove(at: offset) }
        let target = Swift.min(idx, remaining.count)
        remaining.insert(contentsOf: moving, at: target)
        owner.replaceToMany(at: index, with: remaining)
    }

    override func exchangeObject(at idx1: Int, withObjectAt idx2: Int) {
        var objects = Array(storage.objects)
        objects.swapAt(idx1, idx2)
        owner.replaceToMany(at: index, with: objects)
    }

    // The inherited versions of the edits below change the inherited storage directly, which
    // would leave the relationship unchanged.

    override func intersect(_ other: NSOrderedSet) {
        for object in Array(storage.objects) where !other.contains(object) { owner.removeFromToMany(object, at: index) }
    }

    override func add(_ objects: UnsafePointer<AnyObject>?, count: Int) {
        // The caller's buffer holds `count` objects (NSMutableOrderedSet's contract).
        for object in UnsafeBufferPointer(start: objects, count: objects == nil ? 0 : count) { add(object) }
    }

    override func sortRange(_ range: NSRange, options opts: NSSortOptions = [],
                            usingComparator cmptr: (Any, Any) -> ComparisonResult) {
        guard let bounds = Range(range) else { return }
        var objects = Array(storage.objects)
        let sorted = objects[bounds].enumerated().sorted { lhs, rhs in
            let order = cmptr(lhs.element, rhs.element)
            return order == .orderedSame ? lhs.offset < rhs.offset : order == .orderedAscending
        }
        objects.replaceSubrange(bounds, with: sorted.map(\.element))
        owner.replaceToMany(at: index, with: objects)
    }

    override func sort(using sortDescriptors: [Foundation.NSSortDescriptor]) {
        // Foundation's descriptors (Swift key paths on Linux) sort an array of the members.
        let sorted = NSArray(array: Array(storage.objects)).sortedArray(using: sortDescriptors)
        owner.replaceToMany(at: index, with: sorted.compactMap { $0 as? NSManagedObject })
    }
}
