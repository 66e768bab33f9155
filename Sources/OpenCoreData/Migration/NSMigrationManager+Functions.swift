import Foundation

// MARK: - FUNCTION($manager, …) in mapping models

extension NSMigrationManager {
    /// Answers the selectors Xcode's mapping models call on `$manager`:
    /// `fetchRequestForSourceEntityNamed:predicateString:`,
    /// `destinationInstancesForEntityMappingNamed:sourceInstances:`,
    /// `destinationInstancesForSourceRelationshipNamed:sourceInstances:` and
    /// `sourceInstancesForEntityMappingNamed:destinationInstances:`. Another selector stops the
    /// migration with `NSMigrationError`, as an unrecognised message would on Apple platforms.
    public func performExpressionFunction(_ selector: String, arguments: [Any?]) -> Any? {
        func string(_ index: Int) -> String? {
            index < arguments.count ? PredicateValue.unwrap(arguments[index]) as? String : nil
        }
        let instances = arguments.count > 1 ? Self.objects(in: PredicateValue.unwrap(arguments[1])) : []
        switch selector {
        case "fetchRequestForSourceEntityNamed:predicateString:":
            guard let name = string(0), sourceModel.entitiesByName[name] != nil else {
                return fail("fetchRequestForSourceEntityNamed:predicateString: names no entity of the source model (\(string(0) ?? "nil")).")
            }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: name)
            // Each entity mapping migrates its own entity's instances; subentities have theirs.
            request.includesSubentities = false
            do {
                request.predicate = try NSPredicate.parse(format: string(1) ?? "TRUEPREDICATE")
            } catch {
                return fail("The source predicate of the entity mapping for \(name) does not parse: \(error)")
            }
            return request
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            guard let name = string(0) else { return fail("\(selector) needs an entity mapping name.") }
            return destinationInstances(forEntityMappingName: name, sourceInstances: instances)
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            return instances.flatMap { source in
                mappings(forSourceEntity: source.entity).flatMap { destinationInstances(forEntityMappingName: $0, sourceInstances: [source]) }
            }
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            guard let name = string(0) else { return fail("\(selector) needs an entity mapping name.") }
            return sourceInstances(forEntityMappingName: name, destinationInstances: instances)
        default:
            return fail("The migration manager does not answer the selector '\(selector)' of a FUNCTION expression.")
        }
    }

    /// The names of the entity mappings that migrate instances of `entity`.
    func mappings(forSourceEntity entity: NSEntityDescription) -> [String] {
        (mappingModel.entityMappings ?? []).compactMap { mapping in
            mapping.mappingType != .removeEntityMappingType && mapping.sourceEntityName == entity.name ? mapping.name : nil
        }
    }

    /// Records the error the migration stops with after the expression; an expression has no error channel.
    private func fail(_ message: String) -> Any? {
        if expressionError == nil {
            expressionError = CoreDataError.make(NSMigrationError, message,
                                                 userInfo: ["entityMapping": currentEntityMapping.name ?? ""])
        }
        return nil
    }
}
