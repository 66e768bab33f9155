import Foundation
import Synchronization

/// The index-based shape of an entity, computed once its model is frozen.
///
/// Property slots are numbered with inherited properties first, so a property has the same
/// index in an entity and in all its subentities. Managed objects and row snapshots keep their
/// values in arrays indexed this way; name lookups happen once, here.
package final class EntityLayout: @unchecked Sendable {
    // @unchecked Sendable: every field is a `let` computed from a frozen entity, except the
    // attachment, which is an atomic set once.

    /// Every property, inherited first, in declaration order.
    package let properties: [NSPropertyDescription]
    /// Slot index of each property by name.
    package let indexByName: [String: Int]
    package let propertiesByName: [String: NSPropertyDescription]
    /// Indices of stored (non-transient) attributes.
    package let storedAttributeIndices: [Int]
    /// Indices of all attributes, transient included.
    package let attributeIndices: [Int]
    /// Indices of relationships.
    package let relationshipIndices: [Int]
    /// Indices of to-one relationships that are stored (not transient).
    package let toOneIndices: [Int]
    /// Indices of to-many relationships.
    package let toManyIndices: [Int]
    /// The attribute type of each slot (undefined for relationships).
    package let attributeTypes: [NSAttributeType]
    /// Whether each slot is a relationship.
    package let isRelationship: [Bool]
    /// The relationship of each slot (nil for other properties); read through `relationship(at:)`.
    private let relationshipsBySlot: [NSRelationshipDescription?]
    /// Whether any attribute is derived (computed on save).
    package let hasDerivedAttributes: Bool
    /// Whether an unchanged object can read its values from its committed snapshot as they are:
    /// every property is an attribute kept in store form (no relationships, transformables or
    /// fetched properties, which need objects built from the snapshot).
    package let readsCommittedValues: Bool
    /// Indices of the properties validation has to look at: mandatory ones, relationships with
    /// count limits, 16- and 32-bit integers (range checks) and those with validation predicates.
    /// The others accept any value, so saving skips them without reading their values.
    package let validatedIndices: [Int]

    init(entity: NSEntityDescription) {
        let properties = entity.properties
        self.properties = properties
        var indexByName: [String: Int] = [:]
        var byName: [String: NSPropertyDescription] = [:]
        var stored: [Int] = [], attributes: [Int] = [], relationships: [Int] = []
        var toOne: [Int] = [], toMany: [Int] = []
        var types: [NSAttributeType] = []
        var isRelationship: [Bool] = []
        for (index, property) in properties.enumerated() {
            indexByName[property.name] = index
            byName[property.name] = property
            if let attribute = property as? NSAttributeDescription {
                attributes.append(index)
                if !attribute.isTransient { stored.append(index) }
                types.append(attribute.attributeType)
                isRelationship.append(false)
            } else if let relationship = property as? NSRelationshipDescription {
                relationships.append(index)
                if relationship.isToMany { toMany.append(index) } else if !relationship.isTransient { toOne.append(index) }
                types.append(.undefinedAttributeType)
                isRelationship.append(true)
            } else {
                types.append(.undefinedAttributeType)
                isRelationship.append(false)
            }
        }
        self.indexByName = indexByName
        self.propertiesByName = byName
        self.storedAttributeIndices = stored
        self.attributeIndices = attributes
        self.relationshipIndices = relationships
        self.toOneIndices = toOne
        self.toManyIndices = toMany
        self.attributeTypes = types
        self.isRelationship = isRelationship
        self.relationshipsBySlot = properties.map { $0 as? NSRelationshipDescription }
        self.hasDerivedAttributes = properties.contains { $0 is NSDerivedAttributeDescription }
        self.readsCommittedValues = properties.allSatisfy { property in
            guard let attribute = property as? NSAttributeDescription else { return false }
            return !AttributeConversion.isCustom(attribute.attributeType)
        }
        let inlineNames = UnsafeMutableBufferPointer<InlineName>.allocate(capacity: properties.count)
        _ = inlineNames.initialize(from: properties.map { InlineName($0.name) })
        self.inlineNames = UnsafeBufferPointer(inlineNames)
        self.validatedIndices = properties.indices.filter { Self.needsValidation(properties[$0]) }
    }

    /// The raw representation of each property name that Swift stores inline (ASCII, ≤ 15 bytes).
    /// Owned by the layout and freed with it. A buffer, not an Array: reading an Array stored in
    /// a class retains and releases its storage, and this is read on every property access.
    private let inlineNames: UnsafeBufferPointer<InlineName>

    /// What the layer above the seam keeps per layout (the object graph's slot template), as a
    /// retained object's address; 0 until `attachment(orMake:)` first runs. The seam never looks
    /// inside, so it names no type of that layer, and reading it costs one atomic load instead
    /// of a lookup keyed by the layout on every object creation.
    private let attachmentBits = Atomic<UInt>(0)

    deinit {
        inlineNames.deallocate()
        let bits = attachmentBits.load(ordering: .acquiring)
        if bits != 0, let pointer = UnsafeRawPointer(bitPattern: bits) {
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
    }

    /// The object attached to this layout, made by `make` the first time.
    ///
    /// Exactly one caller type uses this (the object graph, with its slot template), so every
    /// call passes the same `T`; if two threads race, one object wins and the other is dropped.
    @inline(__always)
    package func attachment<T: AnyObject>(orMake make: () -> T) -> T {
        let bits = attachmentBits.load(ordering: .acquiring)
        if bits != 0, let pointer = UnsafeRawPointer(bitPattern: bits) {
            // unsafeDowncast: the only attached object is a `T` (one caller type, see above).
            return unsafeDowncast(Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue(), to: T.self)
        }
        return attach(make())
    }

    /// Publishes `candidate` unless another thread attached an object first; returns the winner.
    private func attach<T: AnyObject>(_ candidate: T) -> T {
        let retained = Unmanaged<AnyObject>.passRetained(candidate)
        let bits = UInt(bitPattern: retained.toOpaque())
        let (exchanged, current) = attachmentBits.compareExchange(
            expected: 0, desired: bits, successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring)
        if exchanged { return candidate }
        retained.release()
        guard let pointer = UnsafeRawPointer(bitPattern: current) else { return candidate }
        return unsafeDowncast(Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue(), to: T.self)
    }

    /// The slot of a property by name: `value(forKey:)` and the typed accessors call this on every access.
    ///
    /// Short names (Swift's inline "small" strings) are compared by their 16 raw bytes: equal
    /// bytes mean equal strings, and anything else falls back to the dictionary, so the answer
    /// is always the dictionary's.
    @inline(__always)
    package func index(forKey key: String) -> Int? {
        let bits = InlineName(key)
        if bits.isInline {
            for index in inlineNames.indices where inlineNames[index] == bits { return index }
        }
        return indexByName[key]
    }

    private static func needsValidation(_ property: NSPropertyDescription) -> Bool {
        if property is NSFetchedPropertyDescription { return false }
        if !property.validationPredicates.isEmpty { return true }
        if let relationship = property as? NSRelationshipDescription {
            if !relationship.isOptional { return true }
            return relationship.isToMany && (relationship.minCount > 0 || relationship.maxCount > 0)
        }
        if let composite = property as? NSCompositeAttributeDescription, !composite.isTransient,
           composite.leaves.contains(where: { !$0.attribute.isOptional }) || composite.elements.contains(where: { !$0.isOptional }) {
            return true
        }
        if let attribute = property as? NSAttributeDescription,
           attribute.attributeType == .integer16AttributeType || attribute.attributeType == .integer32AttributeType {
            return true
        }
        return !property.isOptional && !property.isTransient
    }

    /// The relationship in a slot. `index` comes from `relationshipIndices`, `toOneIndices` or
    /// `toManyIndices` (or a slot whose `isRelationship` is true): any other slot is a
    /// programming error in the library, never the result of outside input.
    @inline(__always)
    package func relationship(at index: Int) -> NSRelationshipDescription {
        guard let relationship = relationshipsBySlot[index] else {
            preconditionFailure("slot \(index) of \(properties.count) is not a relationship")
        }
        return relationship
    }

    /// The number of value slots an object of this entity has.
    package var slotCount: Int { properties.count }
}

/// The 16 bytes of a `String`, meaningful for comparison only when the string is stored inline.
struct InlineName: Equatable {
    let low: UInt64
    let high: UInt64

    /// The string's two raw words. Only small strings are ever compared by them (`isInline`),
    /// and a small string is always native and contiguous, so no copy needs normalizing.
    @inline(__always)
    init(_ string: String) {
        (low, high) = unsafeBitCast(string, to: (UInt64, UInt64).self)
    }

    /// Swift marks small (inline) strings in the top bits of the second word; for those the raw
    /// bytes are the characters themselves and compare like the strings. Large strings hold a
    /// pointer here, so they never take the fast path.
    var isInline: Bool { (high >> 61) & 1 != 0 }
}
