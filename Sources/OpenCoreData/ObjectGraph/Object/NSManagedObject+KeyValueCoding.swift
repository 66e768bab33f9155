import Foundation

// MARK: - Key-value coding

extension NSManagedObject {
    /// The value of a property: `NSNumber` for numbers, the object for a to-one, `NSSet` or
    /// `NSOrderedSet` for a to-many. Fires the fault if needed.
    ///
    /// A fetched property gives the array its fetch request returns (see `fetchedPropertyValue`).
    ///
    /// An unknown key stops with a message naming the entity and key, as Apple raises
    /// `NSUnknownKeyException`.
    public func value(forKey key: String) -> Any? {
        guard let index = layout.index(forKey: key) else {
            if key == "objectID" || key == "self" { return key == "self" ? self : objectID }
            unknownKey(key)
        }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return publicValue(at: index)
    }

    /// Sets a property, with change tracking and inverse maintenance for relationships.
    ///
    /// A value of the wrong type stops with a message naming the entity, key and type, as
    /// Apple raises "Unacceptable type of value for attribute".
    public func setValue(_ value: Any?, forKey key: String) {
        guard let index = layout.index(forKey: key) else { unknownKey(key) }
        if layout.hasDerivedAttributes { checkNotDerived(index, key) }
        willChangeValue(forKey: key)
        setPublicValue(value, at: index, key: key)
        didChangeValue(forKey: key)
    }

    /// The value at a dotted key path (`"location.placeName"`); to-many steps give sets of values.
    /// Collection operators (`items.@count`, `items.@sum.price`, `@max`, `@min`, `@avg`,
    /// `@distinctUnionOfObjects`…) apply to the collection before them, as Foundation's.
    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath.utf8.contains(UInt8(ascii: "@")) {
            return KeyValueAccess.value(forKeyPath: keyPath, of: self)
        }
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty else { return nil }
        let first = components.removeFirst()
        let head = value(forKey: first)
        return components.isEmpty ? head : KeyPathWalker.value(of: head, at: components)
    }

    /// Stops when code sets a derived attribute: Core Data computes those when it saves, and
    /// Apple archives them read-only (`NSDerivedAttributeDescription`).
    package func checkNotDerived(_ index: Int, _ key: String) {
        guard layout.properties[index] is NSDerivedAttributeDescription else { return }
        CoreDataError.programmerError("The derived attribute '\(key)' of entity '\(entity.name ?? "?")' is read-only: Core Data computes it when the object is saved.")
    }

    /// Sets the value at a dotted key path: every step but the last must be a to-one.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        let components = keyPath.split(separator: ".").map(String.init)
        guard components.count > 1 else { return setValue(value, forKey: keyPath) }
        var target: NSManagedObject = self
        for component in components.dropLast() {
            guard let next = target.value(forKey: component) as? NSManagedObject else { return }
            target = next
        }
        target.setValue(value, forKey: components[components.count - 1])
    }

    /// Sets several properties from a dictionary, `NSNull` standing for nil, as Foundation's
    /// `setValuesForKeys(_:)` (swift-corelibs-foundation has no key-value coding).
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (key, value) in keyedValues { setValue(value is NSNull ? nil : value, forKey: key) }
    }

    /// The values for several keys (nil values as `NSNull`, as Apple's).
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        var result: [String: Any] = [:]
        for key in keys { result[key] = value(forKey: key) ?? NSNull() }
        return result
    }

    /// The value of a property without calling access hooks; for custom accessors.
    public func primitiveValue(forKey key: String) -> Any? {
        guard let index = layout.index(forKey: key) else { unknownKey(key) }
        return publicValue(at: index)
    }

    /// Sets a property without change notifications hooks; still tracked and inverse-maintained.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) {
        guard let index = layout.index(forKey: key) else { unknownKey(key) }
        setPublicValue(value, at: index, key: key)
    }

    // MARK: - Slots

    package func publicValue(at index: Int) -> Any? {
        fireFaultIfNeeded()
        if readsCommitted {
            return AttributeConversion.publicValue(committedStoreValue(at: index), type: layout.attributeTypes[index])
        }
        switch storedSlots[index] {
        case .value(let value):
            if layout.isRelationship[index] {
                return resolveToOne(at: index)
            }
            return AttributeConversion.publicValue(value, type: layout.attributeTypes[index])
        case .custom(let value):
            // A fetched property's slot stays empty: its value is its request's results.
            if value == nil, layout.attributeTypes[index] == .undefinedAttributeType, !layout.isRelationship[index],
               let fetched = layout.properties[index] as? NSFetchedPropertyDescription {
                return fetchedPropertyValue(fetched)
            }
            return value
        case .toOne(let object):
            return object
        case .toMany, .unloadedToMany:
            let storage = loadedToMany(at: index)
            let relationship = layout.relationship(at: index)
            if relationship.isOrdered { return NSOrderedSet(array: Array(storage.objects)) }
            return NSSet(array: Array(storage.objects))
        }
    }

    package func setPublicValue(_ value: Any?, at index: Int, key: String) {
        fireFaultIfNeeded()
        if let relationship = layout.properties[index] as? NSRelationshipDescription {
            if relationship.isToMany {
                replaceToMany(at: index, with: Self.objects(in: value, key: key, entity: entity))
            } else {
                guard value == nil || value is NSNull || value is NSManagedObject else {
                    CoreDataError.programmerError("Unacceptable type of value for to-one relationship: entity '\(entity.name ?? "?")' property '\(key)' wants a managed object, got \(AttributeConversion.typeName(of: value)).")
                }
                setToOne(value as? NSManagedObject, at: index)
            }
            return
        }
        let type = layout.attributeTypes[index]
        if AttributeConversion.isCustom(type) {
            let newValue = value is NSNull ? nil : value
            if let composite = layout.properties[index] as? NSCompositeAttributeDescription, let newValue,
               CompositeCoding.leafValues(ofPublic: newValue, composite: composite) == nil {
                CoreDataError.programmerError("Unacceptable type of value for composite attribute: entity '\(entity.name ?? "?")' property '\(key)' wants a dictionary of its elements' values (\(composite.leaves.map { $0.path.joined(separator: ".") + ": " + $0.attribute.attributeType.xmlName }.joined(separator: ", "))), got \(AttributeConversion.typeName(of: newValue)).")
            }
            willChangeSlot(index)
            slots[index] = .custom(newValue)
            markChanged()
            return
        }
        guard let storeValue = AttributeConversion.storeValue(value, type: type) else {
            CoreDataError.programmerError("Unacceptable type of value for attribute: entity '\(entity.name ?? "?")' property '\(key)' is \(type.xmlName), got \(AttributeConversion.typeName(of: value)).")
        }
        setStoreValue(storeValue, at: index)
    }

    /// Sets an attribute's store value and tracks the change.
    @inline(__always)
    package func setStoreValue(_ value: StoreValue, at index: Int) {
        if faulted { fireFaultIfNeeded() }
        willChangeSlot(index)
        slots[index] = .value(value)
        markChanged()
    }

    /// The store value of an attribute slot (fires the fault).
    @inline(__always)
    package func storeValue(at index: Int) -> StoreValue {
        if faulted { fireFaultIfNeeded() }
        if readsCommitted { return committedStoreValue(at: index) }
        if case .value(let value) = storedSlots[index] { return value }
        return .null
    }

    static func objects(in value: Any?, key: String, entity: NSEntityDescription) -> [NSManagedObject] {
        guard let value, !(value is NSNull) else { return [] }
        let elements: [Any]
        switch value {
        case let set as NSSet: elements = set.allObjects
        case let set as NSOrderedSet: elements = set.array
        case let array as NSArray: elements = array.map { $0 }
        case let array as [Any]: elements = array
        case let set as Set<NSManagedObject>: elements = Array(set)
        default:
            if let sequence = value as? any Sequence {
                elements = sequence.map { $0 as Any }
            } else {
                CoreDataError.programmerError("Unacceptable type of value for to-many relationship: entity '\(entity.name ?? "?")' property '\(key)' wants a set of managed objects, got \(AttributeConversion.typeName(of: value)).")
            }
        }
        return elements.map { element in
            guard let object = element as? NSManagedObject else {
                CoreDataError.programmerError("Unacceptable object in to-many relationship: entity '\(entity.name ?? "?")' property '\(key)' got \(AttributeConversion.typeName(of: element)).")
            }
            return object
        }
    }

    package func unknownKey(_ key: String) -> Never {
        CoreDataError.programmerError("[<\(Swift.type(of: self))> valueForUndefinedKey:]: the entity '\(entity.name ?? "?")' is not key value coding-compliant for the key \"\(key)\".")
    }

    // MARK: - Changes

    /// Records that the object changed, so the context lists it in `updatedObjects`.
    @inline(__always)
    package func markChanged() {
        guard !deletedFlag else { return }
        guard insertedFlag else {
            withContext { $0.noteUpdated(self) }
            return
        }
        // An unsaved object is not in updatedObjects, but a change after the pass that posted
        // its insertion is posted as an update, as Apple posts it.
        if !insertedChangeNoted { withContext { $0.noteInsertedObjectChanged(self) } }
    }

    /// The persistent properties whose values differ from the last saved or fetched ones.
    ///
    /// A new object has no saved values to differ from: it reports the values it holds (set,
    /// or its model defaults), never `NSNull` for a property that holds nothing, and no empty
    /// to-many relationship.
    public func changedValues() -> [String: Any] {
        guard !faulted else { return [:] }
        var result: [String: Any] = [:]
        if insertedFlag {
            for (index, property) in layout.properties.enumerated() where property.isStored {
                guard let value = publicValue(at: index) else { continue }
                if let set = value as? NSSet, set.count == 0 { continue }
                if let set = value as? NSOrderedSet, set.count == 0 { continue }
                result[property.name] = value
            }
            return result
        }
        for (index, property) in layout.properties.enumerated() where property.isStored {
            if slotDiffersFromCommitted(index) {
                result[property.name] = publicValue(at: index) ?? NSNull()
            }
        }
        return result
    }

    /// The changes since the last `processPendingChanges`; the same as `changedValues()` here.
    public func changedValuesForCurrentEvent() -> [String: Any] { changedValues() }

    /// The last saved or fetched values for keys (all persistent properties when nil), nil
    /// values as `NSNull`; transient keys are left out.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobject/committedvalues(forkeys:)>:
    /// a new object was never fetched or saved, so it has no committed values (an empty dictionary).
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        if insertedFlag { return [:] }
        // An unfired fault reads its row first, as any access to its values does.
        if committed == nil { fireFaultIfNeeded() }
        let names = keys ?? layout.properties.filter(\.isStored).map(\.name)
        var result: [String: Any] = [:]
        for name in names {
            guard let index = layout.indexByName[name], layout.properties[index].isStored else { continue }
            result[name] = committedPublicValue(at: index) ?? NSNull()
        }
        return result
    }

    func committedPublicValue(at index: Int) -> Any? {
        guard let committed, index < committed.values.count else { return nil }
        let value = committed.values[index]
        if layout.isRelationship[index] {
            switch value {
            case .objectID(let id): return _context?.object(with: id)
            case .objectIDs(let ids):
                let objects = ids.compactMap { _context?.object(with: $0) }
                return (layout.properties[index] as? NSRelationshipDescription)?.isOrdered == true
                    ? NSOrderedSet(array: objects) : NSSet(array: objects)
            default: return nil
            }
        }
        if AttributeConversion.isCustom(layout.attributeTypes[index]) {
            if case .data(let data) = value {
                return TransformableCoding.decode(data, attribute: layout.properties[index] as? NSAttributeDescription)
            }
            return nil
        }
        return AttributeConversion.publicValue(value, type: layout.attributeTypes[index])
    }

    /// Whether any slot differs from the committed snapshot, for an entity whose slots are all
    /// stored attribute values (`slotDiffersFromCommitted` for each, in one pass over the slots).
    package func plainSlotsDifferFromCommitted() -> Bool {
        guard committed != nil, !readsCommitted else { return slotsDifferOneByOne() }
        // Unsafe invariants: `committed` is non-nil (checked just above); `slots` is read only
        // inside the closure, which does not mutate `storedSlots`.
        let values = committed.unsafelyUnwrapped.values
        let differs = storedSlots.withUnsafeBufferPointer { slots -> Bool? in
            guard slots.count == values.count else { return nil }
            for index in 0..<slots.count {
                guard case .value(let value) = slots[index] else { return nil }
                if value != values[index] { return true }
            }
            return false
        }
        return differs ?? slotsDifferOneByOne()
    }

    private func slotsDifferOneByOne() -> Bool {
        layout.properties.indices.contains { layout.properties[$0].isStored && slotDiffersFromCommitted($0) }
    }

    /// Whether the slot differs from the committed snapshot (every slot differs for a new object).
    package func slotDiffersFromCommitted(_ index: Int) -> Bool {
        guard committed != nil else {
            return insertedFlag
        }
        // An object reading its committed row has no value of its own (and its slots are not
        // built just to be compared). The row is read in place, not copied out and retained.
        if readsCommitted { return false }
        // `committed` is non-nil: the guard above returned otherwise.
        let old = committed.unsafelyUnwrapped.values[index]
        switch storedSlots[index] {
        case .value(let value):
            return value != old
        case .custom(let value):
            let encoded = TransformableCoding.encode(value, attribute: layout.properties[index] as? NSAttributeDescription)
            return encoded != old
        case .toOne(let object):
            return object?.objectID != old.objectIDValue
        case .toMany(let storage):
            guard let before = storage.committedIDs else { return !storage.objects.isEmpty }
            let ids = storage.objects.map(\.objectID)
            let relationship = layout.properties[index] as? NSRelationshipDescription
            if relationship?.isOrdered == true { return ids != before }
            return ids.count != before.count || Set(ids) != Set(before)
        case .unloadedToMany:
            return false
        }
    }
}

/// Walks the rest of a key path from a value: objects, dictionaries and collections.
package enum KeyPathWalker {
    package static func value(of root: Any?, at components: [String]) -> Any? {
        var current: Any? = root
        for (position, component) in components.enumerated() {
            guard let value = current else { return nil }
            switch value {
            case let object as NSManagedObject:
                current = object.value(forKey: component)
            case let dictionary as [String: Any]:
                current = dictionary[component]
            case let dictionary as NSDictionary:
                current = dictionary[component]
            case let set as NSSet:
                // Distinct values found without hashing them: Foundation's `NSSet` hashes its
                // members, and an `NSDecimalNumber`'s hash overflows the stack on Linux.
                let rest = Array(components[position...])
                return DistinctValueSet(distinct: StoreOrder.sorted(set.allObjects).lazy.compactMap { Self.value(of: $0, at: rest) })
            case let set as NSOrderedSet:
                let rest = Array(components[position...])
                return Self.orderedValues(set.array.compactMap { Self.value(of: $0, at: rest) })
            default:
                return nil
            }
        }
        return current
    }

    /// The values of an ordered to-many, as an `NSOrderedSet` of the distinct ones; an array of
    /// them when one is a decimal, which no `NSOrderedSet` can hold on Linux (it hashes its
    /// members, and an `NSDecimalNumber`'s hash overflows the stack; docs/Deviations.md).
    private static func orderedValues(_ values: [Any]) -> Any {
        let distinct = DistinctValues.of(values)
        if distinct.contains(where: { $0 is NSDecimalNumber || type(of: $0) == Decimal.self }) { return distinct }
        return NSOrderedSet(array: distinct)
    }
}
