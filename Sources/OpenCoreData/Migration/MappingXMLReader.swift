import Foundation

/// Reads the source of an Xcode mapping model: the `xcmapping.xml` inside a `.xcmappingmodel` folder.
///
/// The file is in Core Data's XML store format (shared/fixtures, black-box): a `database` of
/// `object`s typed `XDDEVMAPPINGMODEL`, `XDDEVENTITYMAPPING`, `XDDEVATTRIBUTEMAPPING` and
/// `XDDEVRELATIONSHIPMAPPING`, each with `attribute` elements (name, type, text) and
/// `relationship` elements (`idrefs`). What Xcode's compiler adds is rebuilt the way the
/// Apple-compiled `.cdm` of the same source shows it:
///
/// - the source and destination models are found from the recorded `sourcemodelpath` and
///   `destinationmodelpath` (see ``MappingModelFiles``), and give the entity version hashes;
/// - an entity mapping is named `SourceToDestination` (`CarToCar`), or after its one entity;
///   its `Undefined` type becomes add (no source), remove (no destination), custom (a policy
///   class) or copy;
/// - a property mapping without a stored expression gets `$source.name` when the source entity
///   has that attribute, and for a relationship of the source entity
///   `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "Mapping", $source.name)`
///   when one entity mapping migrates its destination entity (subentities included), else
///   `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "name", $source.name)`;
/// - property mappings are in name order; the source expression fetches every source instance.
///
/// Stored value expressions (`valueexpressiondata`) are keyed archives of `NSExpression`; a
/// `valueexpression` string in Apple's format syntax is accepted too, for hand-written files.
struct MappingXMLReader {
    let url: URL
    let location: ModelFileLocation
    let expressions = MappingExpressionReader()

    init(url: URL) {
        self.url = url
        location = ModelFileLocation(url: url)
    }

    /// Reads the mapping model; models passed in replace the ones the file names.
    func read(_ data: Data, sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?) throws -> NSMappingModel {
        let root = try ModelXMLDocument.parse(data, location: location, keepingText: true)
        guard root.name == "database" else {
            throw MappingModelFailure.corrupt("the XML's root element is <\(root.name)>, not the <database> of an Xcode mapping model")
        }
        let objects = try MappingXMLObjects(root)
        let modelObject = try objects.single(ofType: "XDDEVMAPPINGMODEL")
        let entityObjects = try objects.entityMappings(of: modelObject)
        let source = try sourceModel ?? model(modelObject, "sourcemodelpath", role: "source")
        let destination = try destinationModel ?? model(modelObject, "destinationmodelpath", role: "destination")

        var mappings: [NSEntityMapping] = []
        var names = Set<String>()
        for object in entityObjects {
            let mapping = try entityMapping(object, source: source, destination: destination)
            guard names.insert(mapping.name).inserted else {
                throw MappingModelFailure.corrupt("two entity mappings are named '\(mapping.name ?? "")'")
            }
            mappings.append(mapping)
        }
        for (object, mapping) in zip(entityObjects, mappings) {
            let context = "entity mapping '\(mapping.name ?? "")'"
            let sourceEntity = mapping.sourceEntityName.flatMap { source.entitiesByName[$0] }
            mapping.attributeMappings = try propertyMappings(object, "attributemappings", type: "XDDEVATTRIBUTEMAPPING", objects: objects, context: context) { name in
                guard sourceEntity?.attributesByName[name] != nil else { return nil }
                return NSExpression(node: .keyPath(.variable(NSMigrationSourceObjectKey), name))
            }
            mapping.relationshipMappings = try propertyMappings(object, "relationshipmappings", type: "XDDEVRELATIONSHIPMAPPING", objects: objects, context: context) { name in
                relationshipExpression(name, sourceEntity: sourceEntity, mappings: mappings, source: source)
            }
        }
        let model = NSMappingModel()
        model.entityMappings = mappings
        return model
    }

    // MARK: - Models

    private func model(_ object: MappingXMLObject, _ key: String, role: String) throws -> NSManagedObjectModel {
        guard let path = try object.string(key), !path.isEmpty else {
            throw MappingModelFailure.corrupt("the mapping model does not record its \(role) model (\(key))")
        }
        let (found, tried) = MappingModelFiles.modelURL(recordedPath: path, mappingFile: url)
        guard let found else {
            throw MappingModelFailure.missing("the \(role) model '\(path)' was not found near the mapping model (tried \(tried.joined(separator: ", "))); keep the model next to it, or pass the models")
        }
        do {
            return try NSManagedObjectModel.load(contentsOf: found)
        } catch {
            throw MappingModelFailure.corrupt("the \(role) model '\(found.path)' can't be loaded: \(error.localizedDescription)", underlying: error)
        }
    }

    // MARK: - Entity mappings

    private func entityMapping(_ object: MappingXMLObject, source: NSManagedObjectModel, destination: NSManagedObjectModel) throws -> NSEntityMapping {
        let sourceName = try object.string("sourcename").flatMap { $0.isEmpty ? nil : $0 }
        let destinationName = try object.string("destinationname").flatMap { $0.isEmpty ? nil : $0 }
        let policy = try object.string("migrationpolicyclassname").flatMap { $0.isEmpty ? nil : $0 }
        let mapping = NSEntityMapping()
        if let name = try object.string("name"), !name.isEmpty {
            mapping.name = name
        } else if let sourceName, let destinationName {
            mapping.name = "\(sourceName)To\(destinationName)"
        } else if let name = destinationName ?? sourceName {
            mapping.name = name
        } else {
            throw MappingModelFailure.corrupt("entity mapping \(object.id) names neither a source nor a destination entity")
        }
        let context = "entity mapping '\(mapping.name ?? "")'"
        mapping.sourceEntityName = sourceName
        mapping.destinationEntityName = destinationName
        mapping.entityMigrationPolicyClassName = policy
        mapping.mappingType = try mappingType(object, source: sourceName, destination: destinationName, policy: policy, context: context)
        try MappingModelValidation.checkEntities(mapping, context: context)
        if let sourceName {
            guard let hash = source.entityVersionHashesByName[sourceName] else {
                throw MappingModelFailure.corrupt("\(context) names the source entity '\(sourceName)', which the source model does not have")
            }
            mapping.sourceEntityVersionHash = hash
        }
        if let destinationName {
            guard let hash = destination.entityVersionHashesByName[destinationName] else {
                throw MappingModelFailure.corrupt("\(context) names the destination entity '\(destinationName)', which the destination model does not have")
            }
            mapping.destinationEntityVersionHash = hash
        }
        if let data = try object.data("sourceexpressiondata") {
            mapping.sourceExpression = try expressions.expression(archive: data, location: location, context: "the source expression of \(context)")
        } else if let sourceName, try object.bool("autogenerateexpression") ?? true {
            mapping.sourceExpression = Self.fetchAll(sourceName)
        }
        return mapping
    }

    /// The stored type name, or for `Undefined` the type Xcode's compiler gives.
    private func mappingType(_ object: MappingXMLObject, source: String?, destination: String?, policy: String?, context: String) throws -> NSEntityMappingType {
        let typeName = try object.string("mappingtypename") ?? "Undefined"
        switch typeName {
        case "Custom": return .customEntityMappingType
        case "Add": return .addEntityMappingType
        case "Remove": return .removeEntityMappingType
        case "Copy": return .copyEntityMappingType
        case "Transform": return .transformEntityMappingType
        case "Undefined", "":
            if source == nil { return .addEntityMappingType }
            if destination == nil { return .removeEntityMappingType }
            if let policy, policy != "NSEntityMigrationPolicy" { return .customEntityMappingType }
            return .copyEntityMappingType
        default:
            throw MappingModelFailure.corrupt("\(context) has the unknown mapping type '\(typeName)'")
        }
    }

    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)`.
    static func fetchAll(_ entityName: String) -> NSExpression {
        let request = ExpressionNode.customFunction(
            .variable(NSMigrationManagerKey), "fetchRequestForSourceEntityNamed:predicateString:",
            [.constant(entityName), .constant("TRUEPREDICATE")])
        return NSFetchRequestExpression(node: .fetchRequest(request, .keyPath(.variable(NSMigrationManagerKey), "sourceContext"), countOnly: false))
    }

    // MARK: - Property mappings

    private func propertyMappings(_ object: MappingXMLObject, _ key: String, type: String, objects: MappingXMLObjects, context: String,
                                  generated: (String) -> NSExpression?) throws -> [NSPropertyMapping] {
        var mappings: [NSPropertyMapping] = []
        var names = Set<String>()
        for propertyObject in try objects.resolve(object.references(key), type: type, context: "\(key) of \(context)") {
            guard let name = try propertyObject.string("name"), !name.isEmpty else {
                throw MappingModelFailure.corrupt("a property mapping of \(context) has no name")
            }
            guard names.insert(name).inserted else {
                throw MappingModelFailure.corrupt("\(context) maps property '\(name)' twice")
            }
            let mapping = NSPropertyMapping()
            mapping.name = name
            let expressionContext = "the value expression of property mapping '\(name)' of \(context)"
            if let data = try propertyObject.data("valueexpressiondata") {
                mapping.valueExpression = try expressions.expression(archive: data, location: location, context: expressionContext)
            } else if let format = try propertyObject.string("valueexpression"), !format.isEmpty {
                mapping.valueExpression = try expressions.parse(format, context: expressionContext)
            } else if try propertyObject.bool("autogenerateexpression") ?? true {
                mapping.valueExpression = generated(name)
            }
            mappings.append(mapping)
        }
        return mappings.sorted { ($0.name ?? "").utf8.lexicographicallyPrecedes(($1.name ?? "").utf8) }
    }

    /// The expression Xcode generates for a relationship the source entity has, or nil.
    private func relationshipExpression(_ name: String, sourceEntity: NSEntityDescription?, mappings: [NSEntityMapping],
                                        source: NSManagedObjectModel) -> NSExpression? {
        guard let relationship = sourceEntity?.relationshipsByName[name], let target = relationship.destinationEntity else { return nil }
        let sourceInstances = ExpressionNode.keyPath(.variable(NSMigrationSourceObjectKey), name)
        let candidates = mappings.filter { mapping in
            guard let entityName = mapping.sourceEntityName, let entity = source.entitiesByName[entityName] else { return false }
            return entity.isKindOf(entity: target)
        }
        if candidates.count == 1, let mappingName = candidates[0].name {
            return NSExpression(node: .customFunction(.variable(NSMigrationManagerKey), "destinationInstancesForEntityMappingNamed:sourceInstances:",
                                                      [.constant(mappingName), sourceInstances]))
        }
        return NSExpression(node: .customFunction(.variable(NSMigrationManagerKey), "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
                                                  [.constant(name), sourceInstances]))
    }
}
