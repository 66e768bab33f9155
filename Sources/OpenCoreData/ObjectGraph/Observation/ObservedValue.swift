import Foundation

/// One property's value as an observation compares it: attributes in store form, relationships
/// by the identity of their destinations.
///
/// Destinations are held strongly while the value is kept as a baseline, so an address compared
/// later never belongs to another object.
package enum ObservedValue: Equatable {
    /// An attribute value in store form (a transformable one encoded as it would be saved).
    case store(StoreValue)
    /// A to-one relationship's destination.
    case object(NSManagedObject?)
    /// A to-many relationship's destinations; order counts only for an ordered relationship.
    case objects([NSManagedObject], ordered: Bool)

    package static func == (lhs: ObservedValue, rhs: ObservedValue) -> Bool {
        switch (lhs, rhs) {
        case (.store(let a), .store(let b)):
            return a == b
        case (.object(let a), .object(let b)):
            return a === b
        case (.objects(let a, let ordered), .objects(let b, _)):
            guard a.count == b.count else { return false }
            if ordered { return zip(a, b).allSatisfy { $0 === $1 } }
            return Set(a.map(ObjectIdentifier.init)) == Set(b.map(ObjectIdentifier.init))
        default:
            return false
        }
    }
}

extension NSManagedObject {
    /// The slots an observation of every key compares: attributes and relationships (fetched
    /// properties are not values of the object).
    package var observableIndices: [Int] {
        layout.properties.indices.filter { layout.properties[$0] is NSAttributeDescription || layout.properties[$0] is NSRelationshipDescription }
    }

    /// The current value of slot `index` for an observation, firing the object's fault, and the
    /// fault of a to-many relationship, if needed (observed objects only: never on a hot path).
    package func observedValue(at index: Int) -> ObservedValue {
        fireFaultIfNeeded()
        if layout.isRelationship[index] {
            let relationship = layout.relationship(at: index)
            if relationship.isToMany {
                return .objects(Array(loadedToMany(at: index).objects), ordered: relationship.isOrdered)
            }
            return .object(resolveToOne(at: index))
        }
        // Read without building the slots of an object that reads its committed values.
        if readsCommitted { return .store(committedStoreValue(at: index)) }
        guard index < storedSlots.count else { return .store(.null) }
        switch storedSlots[index] {
        case .value(let value):
            return .store(value)
        case .custom(let value):
            return .store(TransformableCoding.encode(value, attribute: layout.properties[index] as? NSAttributeDescription))
        case .toOne, .toMany, .unloadedToMany:
            return .store(.null)
        }
    }

    /// The current values of `indices`, in order.
    package func observedValues(at indices: [Int]) -> [ObservedValue] {
        indices.map { observedValue(at: $0) }
    }
}
