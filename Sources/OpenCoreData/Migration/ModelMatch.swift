import Foundation

// MARK: - ModelMatch

/// How the entities and properties of a destination model correspond to a source model's, by
/// Apple's lightweight-migration rules, or the reason they cannot be inferred.
///
/// The rules (Apple's "Migrating your data model automatically" and "Lightweight Migration"):
/// an element of the destination corresponds to the source element named by its renaming
/// identifier, or by its own name when it has none; entities, attributes and relationships may be
/// added, removed and renamed; a non-optional attribute may become optional, and an optional one
/// non-optional when it has a default value; a relationship may change between to-one and
/// to-many and between unordered and ordered; entities may gain or lose a parent, but two
/// entities whose source hierarchies differ cannot share one in the destination. Anything else
/// throws `NSInferredMappingModelError` (134190) naming the entity and property.
package struct ModelMatch {
    /// A destination entity and the source entity its rows come from (nil when it is new).
    package struct EntityMatch {
        package let destination: NSEntityDescription
        package let source: NSEntityDescription?
        /// Every stored attribute of the destination (inherited ones included), by name.
        package let attributes: [AttributeMatch]
        /// Every stored relationship of the destination (inherited ones included), by name.
        package let relationships: [RelationshipMatch]

        /// Whether the rows come over unchanged: same name and version hash.
        package var isCopy: Bool {
            guard let source else { return false }
            return source.name == destination.name && source.versionHash == destination.versionHash
        }
    }

    /// A destination attribute and the source attribute its values come from (nil: new, so
    /// its default value or nil).
    package struct AttributeMatch {
        package let destination: NSAttributeDescription
        package let source: NSAttributeDescription?
    }

    /// A destination relationship and the source relationship its destinations come from.
    package struct RelationshipMatch {
        package let destination: NSRelationshipDescription
        package let source: NSRelationshipDescription?
    }

    package let sourceModel: NSManagedObjectModel
    package let destinationModel: NSManagedObjectModel
    /// Every destination entity, in the destination model's order.
    package let entities: [EntityMatch]
    /// Source entities no destination entity comes from: their rows are dropped.
    package let removed: [NSEntityDescription]

    /// - Throws: `NSInferredMappingModelError` when a change cannot be inferred.
    package init(source: NSManagedObjectModel, destination: NSManagedObjectModel) throws {
        sourceModel = source
        destinationModel = destination
        let origins = try Self.origins(of: destination.orderedEntities(), in: source)
        let originOf = { (entity: NSEntityDescription) in origins[ObjectIdentifier(entity)] }
        var matches: [EntityMatch] = []
        for entity in destination.orderedEntities() {
            matches.append(try Self.match(entity, from: originOf(entity), originOf: originOf))
        }
        let used = Set(origins.values.map(ObjectIdentifier.init))
        entities = matches
        removed = source.orderedEntities().filter { !used.contains(ObjectIdentifier($0)) }
        try checkHierarchies()
    }

    /// The match of a destination entity, by name.
    package func match(forDestination name: String) -> EntityMatch? {
        entities.first { $0.destination.name == name }
    }

    // MARK: - Entities

    /// The source entity each destination entity comes from. A renaming identifier names the
    /// source entity; one naming no source entity is the identifier of an earlier rename that
    /// a later version kept, so it matches the source entity with the same identifier, and
    /// otherwise the entity's own name does, as for an entity without one. A source entity is
    /// claimed once, explicit renames first.
    private static func origins(of entities: [NSEntityDescription], in source: NSManagedObjectModel) throws -> [ObjectIdentifier: NSEntityDescription] {
        let byName = source.entitiesByName
        var origins: [ObjectIdentifier: NSEntityDescription] = [:]
        var claimed: [ObjectIdentifier: NSEntityDescription] = [:]
        func claim(_ entity: NSEntityDescription, _ origin: NSEntityDescription?) throws {
            guard let origin, origins[ObjectIdentifier(entity)] == nil else { return }
            if let other = claimed[ObjectIdentifier(origin)] {
                // A plain name match yields to a rename; two renames of one entity are an error.
                guard entity.renamingIdentifier == nil || other.renamingIdentifier == nil else {
                    throw Self.error("Entities of the destination model both come from the source entity '\(origin.name ?? "?")'.", entity: entity)
                }
                return
            }
            claimed[ObjectIdentifier(origin)] = entity
            origins[ObjectIdentifier(entity)] = origin
        }
        for entity in entities {
            if let identifier = entity.renamingIdentifier { try claim(entity, byName[identifier]) }
        }
        for entity in entities {
            if let identifier = entity.renamingIdentifier { try claim(entity, source.entities.first { $0.renamingIdentifier == identifier }) }
        }
        for entity in entities {
            try claim(entity, byName[entity.name ?? ""])
        }
        return origins
    }

    /// The source property a destination property comes from: the one its renaming identifier
    /// names, else one with the same identifier (a rename kept from an earlier version), else
    /// the one with its name.
    private static func previous<Property: NSPropertyDescription>(of property: Property, in byName: [String: Property]?) -> Property? {
        guard let byName else { return nil }
        if let identifier = property.renamingIdentifier {
            if let named = byName[identifier] { return named }
            if let kept = byName.values.first(where: { $0.renamingIdentifier == identifier }) { return kept }
        }
        return byName[property.name]
    }

    private static func match(_ entity: NSEntityDescription, from origin: NSEntityDescription?,
                              originOf: (NSEntityDescription) -> NSEntityDescription?) throws -> EntityMatch {
        var attributes: [AttributeMatch] = []
        for attribute in entity.attributesByName.values.sorted(by: { $0.name < $1.name }) where attribute.isStored {
            let previous = Self.previous(of: attribute, in: origin?.attributesByName).flatMap { $0.isStored ? $0 : nil }
            if let previous {
                try checkConvertible(previous, to: attribute, entity: entity)
            } else if origin != nil && !attribute.isOptional && attribute.defaultValue == nil {
                // Only rows that exist need a value; a new entity has none.
                throw error("The new non-optional attribute '\(attribute.name)' of entity '\(entity.name ?? "?")' has no default value.",
                            entity: entity, property: attribute)
            }
            attributes.append(AttributeMatch(destination: attribute, source: previous))
        }
        var relationships: [RelationshipMatch] = []
        for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) where relationship.isStored {
            let previous = Self.previous(of: relationship, in: origin?.relationshipsByName).flatMap { $0.isStored ? $0 : nil }
            if let previous {
                let target = relationship.destinationEntity
                let expected = target.flatMap(originOf)
                guard let expected, let previousTarget = previous.destinationEntity,
                      previousTarget === expected || previousTarget.isKindOf(entity: expected) || expected.isKindOf(entity: previousTarget) else {
                    throw error("The relationship '\(relationship.name)' of entity '\(entity.name ?? "?")' points to '\(target?.name ?? "?")', which does not come from '\(previous.destinationEntity?.name ?? "?")', the source relationship's destination.",
                                entity: entity, property: relationship)
                }
            }
            relationships.append(RelationshipMatch(destination: relationship, source: previous))
        }
        return EntityMatch(destination: entity, source: origin, attributes: attributes, relationships: relationships)
    }

    // MARK: - Attribute types

    /// Whether values of `source` can become values of `destination`: the same type, or numbers
    /// of any kind (integers, booleans, floating point, decimals) as another kind of number.
    private static func checkConvertible(_ source: NSAttributeDescription, to destination: NSAttributeDescription,
                                         entity: NSEntityDescription) throws {
        if source.attributeType != destination.attributeType
            && !(isNumber(source.attributeType) && isNumber(destination.attributeType)) {
            throw error("The attribute '\(destination.name)' of entity '\(entity.name ?? "?")' changes type from \(source.attributeType) to \(destination.attributeType), which cannot be inferred.",
                        entity: entity, property: destination)
        }
        if source.isOptional && !destination.isOptional && destination.defaultValue == nil {
            throw error("The attribute '\(destination.name)' of entity '\(entity.name ?? "?")' becomes non-optional without a default value.",
                        entity: entity, property: destination)
        }
    }

    private static func isNumber(_ type: NSAttributeType) -> Bool {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
             .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
            true
        default:
            false
        }
    }

    // MARK: - Hierarchies

    /// Two entities whose source hierarchies differ cannot share a hierarchy in the destination
    /// (their rows would share one table).
    private func checkHierarchies() throws {
        var sourceRootByDestinationRoot: [ObjectIdentifier: NSEntityDescription] = [:]
        for match in entities {
            guard let source = match.source else { continue }
            let root = ObjectIdentifier(match.destination.rootEntity)
            if let existing = sourceRootByDestinationRoot[root], existing !== source.rootEntity {
                throw Self.error("Entity '\(match.destination.name ?? "?")' joins the hierarchy of '\(match.destination.rootEntity.name ?? "?")', which holds entities of another source hierarchy ('\(existing.name ?? "?")'); merging hierarchies cannot be inferred.",
                                 entity: match.destination)
            }
            sourceRootByDestinationRoot[root] = source.rootEntity
        }
    }

    // MARK: - Errors

    /// `NSInferredMappingModelError` naming the entity and property.
    package static func error(_ reason: String, entity: NSEntityDescription, property: NSPropertyDescription? = nil) -> NSError {
        var info: [String: Any] = ["entity": entity.name ?? ""]
        if let property { info["property"] = property.name }
        return CoreDataError.make(NSInferredMappingModelError, "Cannot infer a mapping model: \(reason)", userInfo: info)
    }
}
