import Foundation

/// Checks a freshly loaded and linked model for references that don't resolve, so that a broken
/// model file fails when it is loaded, with the file, entity and property named, rather than later
/// in a fetch or a save.
///
/// Checked: every relationship's destination exists, every named inverse exists on the
/// destination and is a relationship, no property shadows an inherited one, fetched properties
/// name an existing entity, and fetch indexes name existing properties. Uniqueness constraints
/// and compound indexes that name a missing property are dropped with a logged warning.
package struct ModelChecker {
    let location: ModelFileLocation
    /// Source lines of entities, when the model came from XML.
    var lines: [String: Int] = [:]

    package init(location: ModelFileLocation, lines: [String: Int] = [:]) {
        self.location = location
        self.lines = lines
    }

    package func check(_ model: NSManagedObjectModel) throws {
        let byName = model.entitiesByName
        for entity in model.entities {
            let name = entity.name ?? ""
            let location = self.location.entity(name).line(lines[name])
            let inherited = Set((entity.superentity?.properties ?? []).map(\.name))
            for property in entity.ownProperties {
                let location = location.property(property.name)
                if inherited.contains(property.name) {
                    throw ModelFileError.invalidModel(location, "the property has the same name as an inherited property")
                }
                if let relationship = property as? NSRelationshipDescription {
                    try check(relationship, byName: byName, location: location)
                } else if let fetched = property as? NSFetchedPropertyDescription, let request = fetched.fetchRequest {
                    guard let entityName = request.entityName, let target = byName[entityName] else {
                        throw ModelFileError.invalidModel(location, "the fetched property's entity '\(request.entityName ?? "")' does not exist")
                    }
                    request.entity = target
                }
            }
            // Constraint and compound-index groups naming a missing property are dropped, with a
            // warning, rather than failing the load: hand-edited models in the wild have them
            // (MomXML's test model), and a store can't create an index over a missing column.
            let properties = entity.propertiesByName
            func resolves(_ group: [Any]) -> Bool {
                group.allSatisfy { item in
                    (item as? String ?? (item as? NSPropertyDescription)?.name).map { properties[$0] != nil } ?? false
                }
            }
            if !entity.uniquenessConstraints.allSatisfy(resolves) {
                Log.modelFile.warning("\(location.text): dropping uniqueness constraints that name missing properties: \(entity.uniquenessConstraints.filter { !resolves($0) })")
                entity.uniquenessConstraints = entity.uniquenessConstraints.filter(resolves)
            }
            if !entity.compoundIndexes.allSatisfy(resolves) {
                Log.modelFile.warning("\(location.text): dropping compound indexes that name missing properties: \(entity.compoundIndexes.filter { !resolves($0) })")
                entity.compoundIndexes = entity.compoundIndexes.filter(resolves)
            }
            for index in entity.indexes {
                for element in index.elements where !(element.property is NSExpressionDescription) {
                    guard element.property != nil else {
                        throw ModelFileError.invalidModel(location.property(element.propertyName),
                                                          "fetch index '\(index.name)' names a property that does not exist")
                    }
                }
            }
        }
    }

    private func check(_ relationship: NSRelationshipDescription, byName: [String: NSEntityDescription],
                       location: ModelFileLocation) throws {
        guard let destination = relationship.destinationEntity else {
            let destinationName = relationship.destinationEntityName ?? ""
            throw ModelFileError.invalidModel(location, "the destination entity '\(destinationName)' does not exist")
        }
        guard let inverseName = relationship.inverseRelationshipName ?? relationship.inverseRelationship?.name else { return }
        guard relationship.inverseRelationship != nil else {
            if destination.propertiesByName[inverseName] != nil {
                throw ModelFileError.invalidModel(location, "the inverse '\(inverseName)' on entity '\(destination.name ?? "")' is not a relationship")
            }
            throw ModelFileError.invalidModel(location, "the inverse relationship '\(inverseName)' does not exist on entity '\(destination.name ?? "")'")
        }
    }
}
