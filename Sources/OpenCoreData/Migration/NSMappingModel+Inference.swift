import Foundation

extension NSMappingModel {
    /// Returns a newly created mapping model that will migrate data from the source to the
    /// destination model, inferred by Apple's lightweight-migration rules (`ModelMatch`).
    ///
    /// Entity mappings are of type copy (same name and version hash), transform (changed or
    /// renamed), add (no source entity) or remove (no destination entity); attribute mappings read
    /// `$source.<name>` (nil for new attributes, which get their default value), relationship
    /// mappings `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", …)`.
    ///
    /// - Throws: `NSInferredMappingModelError` (134190) naming the entity and property whose change
    ///   cannot be inferred.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmappingmodel/inferredmappingmodel(forsourcemodel:destinationmodel:)>.
    public class func inferredMappingModel(forSourceModel sourceModel: NSManagedObjectModel,
                                           destinationModel: NSManagedObjectModel) throws -> NSMappingModel {
        try ModelMatch(source: sourceModel, destination: destinationModel).mappingModel()
    }
}

extension ModelMatch {
    /// The mapping model of this match, as `inferredMappingModel` returns it.
    package func mappingModel() -> NSMappingModel {
        var mappingNames: [ObjectIdentifier: String] = [:]
        for entity in entities {
            guard let source = entity.source else { continue }
            mappingNames[ObjectIdentifier(source)] = Self.mappingName(source: source, destination: entity.destination)
        }
        var mappings: [NSEntityMapping] = []
        for entity in entities {
            let mapping = NSEntityMapping()
            mapping.destinationEntityName = entity.destination.name
            mapping.destinationEntityVersionHash = entity.destination.versionHash
            if let source = entity.source {
                mapping.name = Self.mappingName(source: source, destination: entity.destination)
                mapping.mappingType = entity.isCopy ? .copyEntityMappingType : .transformEntityMappingType
                mapping.sourceEntityName = source.name
                mapping.sourceEntityVersionHash = source.versionHash
                mapping.sourceExpression = MappingXMLReader.fetchAll(source.name ?? "")
            } else {
                mapping.name = entity.destination.name
                mapping.mappingType = .addEntityMappingType
            }
            mapping.attributeMappings = entity.attributes.map { match in
                let property = NSPropertyMapping()
                property.name = match.destination.name
                property.valueExpression = match.source.map { NSExpression(node: .keyPath(.variable(NSMigrationSourceObjectKey), $0.name)) }
                return property
            }
            mapping.relationshipMappings = entity.relationships.map { match in
                let property = NSPropertyMapping()
                property.name = match.destination.name
                if let previous = match.source, let target = previous.destinationEntity,
                   let targetMapping = Self.mappingName(of: target, in: mappingNames) {
                    property.valueExpression = NSExpression(node: .customFunction(
                        .variable(NSMigrationManagerKey), "destinationInstancesForEntityMappingNamed:sourceInstances:",
                        [.constant(targetMapping), .keyPath(.variable(NSMigrationSourceObjectKey), previous.name)]))
                }
                return property
            }
            mappings.append(mapping)
        }
        for source in removed {
            let mapping = NSEntityMapping()
            mapping.name = source.name
            mapping.mappingType = .removeEntityMappingType
            mapping.sourceEntityName = source.name
            mapping.sourceEntityVersionHash = source.versionHash
            mappings.append(mapping)
        }
        let model = NSMappingModel()
        model.entityMappings = mappings
        return model
    }

    /// `<Source>To<Destination>`, as Xcode names entity mappings.
    private static func mappingName(source: NSEntityDescription, destination: NSEntityDescription) -> String {
        (source.name ?? "") + "To" + (destination.name ?? "")
    }

    /// The mapping of a relationship's source target, or of its nearest mapped ancestor.
    private static func mappingName(of target: NSEntityDescription, in names: [ObjectIdentifier: String]) -> String? {
        var current: NSEntityDescription? = target
        while let entity = current {
            if let name = names[ObjectIdentifier(entity)] { return name }
            current = entity.superentity
        }
        return nil
    }
}
