import Foundation

extension NSManagedObjectContext {
    /// Checks the graph's invariants and returns a description of each violation (empty when sound).
    ///
    /// Debug aid for tests: every loaded relationship with an inverse is mirrored on the other
    /// side, the identity map agrees with the objects' IDs and contexts, and the change sets agree
    /// with the objects' flags.
    package func graphInvariantViolations() -> [String] {
        var problems: [String] = []
        for object in registry.objects {
            let id = object.objectID
            if registry[id]?.toOpaque() != Unmanaged.passUnretained(object).toOpaque() { problems.append("registry does not find \(id) under its own ID") }
            if object._context !== self { problems.append("\(id) is registered but points at another context") }
            if object.faulted || object.deletedFlag { continue }
            for index in object.layout.relationshipIndices {
                let relationship = object.layout.relationship(at: index)
                guard let inverse = relationship.inverseRelationship else { continue }
                let destinations: [NSManagedObject]
                switch object.slots[index] {
                case .toOne(let destination): destinations = destination.map { [$0] } ?? []
                case .toMany(let storage): destinations = Array(storage.objects)
                default: continue
                }
                for destination in destinations where !destination.faulted && !destination.deletedFlag && destination._context === self {
                    guard let inverseIndex = destination.layout.indexByName[inverse.name] else { continue }
                    let mirrored: Bool
                    switch destination.slots[inverseIndex] {
                    case .toOne(let back): mirrored = back === object
                    case .toMany(let storage): mirrored = storage.objects.contains(object)
                    case .value(let value): mirrored = value.objectIDValue == object.objectID
                    case .unloadedToMany, .custom: mirrored = true
                    }
                    if !mirrored {
                        problems.append("\(object.entity.name ?? "?").\(relationship.name) → \(destination.objectID) is not mirrored by \(destination.entity.name ?? "?").\(inverse.name)")
                    }
                }
            }
        }
        for object in inserted.values where !object.insertedFlag || registry[object.objectID] == nil {
            problems.append("inserted set holds \(object.objectID) which is not an inserted, registered object")
        }
        for object in deleted.values where !object.deletedFlag {
            problems.append("deleted set holds \(object.objectID) which is not marked deleted")
        }
        return problems
    }
}
