import Foundation

/// Builds an `NSManagedObjectModel` from Xcode's model XML (`Foo.xcdatamodel/contents`,
/// Xcode 4 and later).
///
/// The grammar is in shared/docs/coredata-formats.md §1.2. Everything the XML says about the
/// persistent model is kept: entities and inheritance, every attribute and relationship option,
/// fetched properties, fetch request templates, configurations, constraints and indexes,
/// `userInfo`, `elementID` (as `renamingIdentifier`) and `versionHashModifier`. Layout-only
/// elements (`<elements>`) and tool metadata are ignored.
///
/// Malformed input throws an `NSError` naming the file, line, entity and property; it never traps.
package struct XMLModelReader {
    /// The file being read, for error messages.
    let location: ModelFileLocation

    package init(url: URL?) {
        location = ModelFileLocation(url: url)
    }

    /// Parses model XML data into `model`, which should be empty.
    package func read(_ data: Data, into model: NSManagedObjectModel) throws {
        let root = try ModelXMLDocument.parse(data, location: location)
        try read(root, into: model)
    }

    /// Fills `model` from a parsed `<model>` element.
    package func read(_ root: ModelXMLElement, into model: NSManagedObjectModel) throws {
        guard root.name == "model" else {
            throw ModelFileError.corrupt(location.line(root.line), "the root element is <\(root.name)>, not <model>; this is not an Xcode data model")
        }
        if let identifier = root["userDefinedModelVersionIdentifier"] {
            model.versionIdentifiers = [AnyHashable(identifier)]
        }

        var composites: [String: ModelXMLElement] = [:]
        for element in root.children(named: "composite") {
            guard let name = element["name"], !name.isEmpty else {
                throw ModelFileError.corrupt(location.line(element.line), "a <composite> has no name")
            }
            composites[name] = element
        }

        var entities: [NSEntityDescription] = []
        var entityElements: [String: ModelXMLElement] = [:]
        for element in root.children(named: "entity") {
            let entity = try readEntity(element, composites: composites)
            let name = entity.name ?? ""
            guard entityElements[name] == nil else {
                throw ModelFileError.invalidModel(location.entity(name).line(element.line), "two entities have the same name")
            }
            entityElements[name] = element
            entities.append(entity)
        }
        let byName = Dictionary(uniqueKeysWithValues: entities.map { ($0.name ?? "", $0) })
        try linkInheritance(entities, byName: byName, elements: entityElements)
        model.entities = entities
        model.link()
        try ModelChecker(location: location, lines: entityElements.mapValues(\.line)).check(model)

        for element in root.children(named: "fetchRequest") {
            let location = self.location.line(element.line)
            guard let name = element["name"], !name.isEmpty else {
                throw ModelFileError.corrupt(location, "a model-level <fetchRequest> has no name")
            }
            let request = try readFetchRequest(element, byName: byName, location: location.property(name))
            model.setFetchRequestTemplate(request, forName: name)
        }

        for element in root.children(named: "configuration") {
            guard let name = element["name"], !name.isEmpty else {
                throw ModelFileError.corrupt(location.line(element.line), "a <configuration> has no name")
            }
            var members: [NSEntityDescription] = []
            for member in element.children(named: "memberEntity") {
                let memberName = member["name"] ?? ""
                guard let entity = byName[memberName] else {
                    throw ModelFileError.invalidModel(location.entity(memberName).line(member.line),
                                                      "configuration '\(name)' lists an entity that does not exist")
                }
                members.append(entity)
            }
            model.setEntities(members, forConfigurationName: name)
        }
    }

    // MARK: - Entities

    private func readEntity(_ element: ModelXMLElement, composites: [String: ModelXMLElement]) throws -> NSEntityDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.corrupt(location.line(element.line), "an <entity> has no name")
        }
        let location = self.location.entity(name).line(element.line)
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = element["representedClassName"].flatMap { $0.isEmpty ? nil : $0 } ?? "NSManagedObject"
        entity.isAbstract = element.flag("isAbstract")
        entity.renamingIdentifier = nonEmpty(element["elementID"])
        entity.versionHashModifier = nonEmpty(element["versionHashModifier"])
        entity.codeGenerationType = nonEmpty(element["codeGenerationType"])

        var properties: [NSPropertyDescription] = []
        var seen = Set<String>()
        for child in element.children {
            let property: NSPropertyDescription
            switch child.name {
            case "attribute": property = try readAttribute(child, composites: composites, location: location)
            case "relationship": property = try readRelationship(child, location: location)
            case "fetchedProperty": property = try readFetchedProperty(child, location: location)
            case "userInfo": entity.userInfo = readUserInfo(child); continue
            case "uniquenessConstraints": entity.uniquenessConstraints = readNameGroups(child, group: "uniquenessConstraint", item: "constraint"); continue
            case "compoundIndexes": entity.compoundIndexes = readNameGroups(child, group: "compoundIndex", item: "index"); continue
            case "fetchIndex": entity.indexes.append(try readFetchIndex(child, location: location)); continue
            default: continue
            }
            guard seen.insert(property.name).inserted else {
                throw ModelFileError.invalidModel(location.property(property.name).line(child.line), "two properties have the same name")
            }
            properties.append(property)
        }
        entity.properties = properties
        return entity
    }

    private func linkInheritance(_ entities: [NSEntityDescription], byName: [String: NSEntityDescription],
                                 elements: [String: ModelXMLElement]) throws {
        var children: [String: [NSEntityDescription]] = [:]
        for entity in entities {
            let name = entity.name ?? ""
            guard let element = elements[name], let parentName = nonEmpty(element["parentEntity"]) else { continue }
            let location = self.location.entity(name).line(element.line)
            guard byName[parentName] != nil else {
                throw ModelFileError.invalidModel(location, "the parent entity '\(parentName)' does not exist")
            }
            var ancestor: String? = parentName
            var steps = 0
            while let current = ancestor {
                guard current != name, steps <= entities.count else {
                    throw ModelFileError.invalidModel(location, "the entity inherits from itself")
                }
                ancestor = elements[current].flatMap { nonEmpty($0["parentEntity"]) }
                steps += 1
            }
            children[parentName, default: []].append(entity)
        }
        for (parentName, subentities) in children {
            byName[parentName]?.subentities = subentities
        }
    }

    // MARK: - Properties

    private func readRelationship(_ element: ModelXMLElement, location: ModelFileLocation) throws -> NSRelationshipDescription {
        let name = try propertyName(element, location: location)
        let location = location.property(name).line(element.line)
        let relationship = NSRelationshipDescription()
        try readCommon(element, into: relationship, name: name)
        guard let destination = nonEmpty(element["destinationEntity"]) else {
            throw ModelFileError.corrupt(location, "the relationship has no destinationEntity")
        }
        relationship.destinationEntityName = destination
        relationship.inverseRelationshipName = nonEmpty(element["inverseName"])
        relationship.isOrdered = element.flag("ordered")
        relationship.minCount = try count(element, "minCount", location: location) ?? 0
        if element.flag("toMany") {
            relationship.maxCount = try count(element, "maxCount", location: location) ?? 0
        } else {
            relationship.maxCount = 1
        }
        switch element["deletionRule"] ?? "Nullify" {
        case "Nullify": relationship.deleteRule = .nullifyDeleteRule
        case "Cascade": relationship.deleteRule = .cascadeDeleteRule
        case "Deny": relationship.deleteRule = .denyDeleteRule
        case "No Action", "NoAction": relationship.deleteRule = .noActionDeleteRule
        case let other: throw ModelFileError.corrupt(location, "unknown deletionRule '\(other)'")
        }
        return relationship
    }

    private func readFetchedProperty(_ element: ModelXMLElement, location: ModelFileLocation) throws -> NSFetchedPropertyDescription {
        let name = try propertyName(element, location: location)
        let location = location.property(name).line(element.line)
        let fetched = NSFetchedPropertyDescription()
        try readCommon(element, into: fetched, name: name)
        fetched.isTransient = true
        guard let requestElement = element.children(named: "fetchRequest").first else {
            throw ModelFileError.corrupt(location, "the fetched property has no <fetchRequest>")
        }
        fetched.fetchRequest = try readFetchRequest(requestElement, byName: nil, location: location.line(requestElement.line))
        return fetched
    }

    /// Reads name, flags, `elementID`, `versionHashModifier` and `userInfo`, common to all properties.
    func readCommon(_ element: ModelXMLElement, into property: NSPropertyDescription, name: String) throws {
        property.name = name
        property.isOptional = element.flag("optional")
        property.isTransient = element.flag("transient")
        property.isIndexed = element.flag("indexed")
        property.isIndexedBySpotlight = element.flag("spotlightIndexingEnabled")
        property.renamingIdentifier = nonEmpty(element["elementID"])
        property.versionHashModifier = nonEmpty(element["versionHashModifier"])
        if let userInfo = element.children(named: "userInfo").first { property.userInfo = readUserInfo(userInfo) }
    }

    func propertyName(_ element: ModelXMLElement, location: ModelFileLocation) throws -> String {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.corrupt(location.line(element.line), "an <\(element.name)> has no name")
        }
        return name
    }

    private func count(_ element: ModelXMLElement, _ attribute: String, location: ModelFileLocation) throws -> Int? {
        guard let text = element[attribute] else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw ModelFileError.corrupt(location, "\(attribute) '\(text)' is not a count")
        }
        return value
    }

    // MARK: - Entity parts

    private func readUserInfo(_ element: ModelXMLElement) -> [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        for entry in element.children(named: "entry") {
            guard let key = entry["key"] else { continue }
            info[key] = entry["value"] ?? ""
        }
        return info
    }

    private func readNameGroups(_ element: ModelXMLElement, group: String, item: String) -> [[Any]] {
        element.children(named: group).map { groupElement in
            groupElement.children(named: item).compactMap { $0["value"] }
        }
    }

    private func readFetchIndex(_ element: ModelXMLElement, location: ModelFileLocation) throws -> NSFetchIndexDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.corrupt(location.line(element.line), "a <fetchIndex> has no name")
        }
        var elements: [NSFetchIndexElementDescription] = []
        for child in element.children(named: "fetchIndexElement") {
            let location = location.property(name).line(child.line)
            let collation: NSFetchIndexElementDescription.CollationType
            switch child["type"] ?? "Binary" {
            case "Binary": collation = .binary
            case "RTree", "R-Tree": collation = .rTree
            case let other: throw ModelFileError.corrupt(location, "unknown fetch index element type '\(other)'")
            }
            let ascending = (child["order"] ?? "ascending") != "descending"
            if let property = nonEmpty(child["property"]) {
                elements.append(NSFetchIndexElementDescription(propertyName: property, collationType: collation, ascending: ascending))
            } else if let expression = nonEmpty(child["expression"]) {
                let description = NSExpressionDescription()
                description.name = expression
                description.expressionResultType = child["expressionType"].flatMap(NSAttributeType.init(xmlName:)) ?? .undefinedAttributeType
                let indexElement = NSFetchIndexElementDescription(propertyName: expression, collationType: collation, ascending: ascending)
                indexElement.property = description
                elements.append(indexElement)
            } else {
                throw ModelFileError.corrupt(location, "a fetch index element names neither a property nor an expression")
            }
        }
        return NSFetchIndexDescription(name: name, elements: elements)
    }

    // MARK: - Fetch requests

    /// Reads a `<fetchRequest>`; `byName` resolves the entity of model-level templates (fetched
    /// properties resolve theirs when the model is checked).
    private func readFetchRequest(_ element: ModelXMLElement, byName: [String: NSEntityDescription]?,
                                  location: ModelFileLocation) throws -> NSFetchRequest<NSFetchRequestResult> {
        guard let entityName = nonEmpty(element["entity"]) else {
            throw ModelFileError.corrupt(location, "the fetch request names no entity")
        }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        if let byName {
            guard let entity = byName[entityName] else {
                throw ModelFileError.invalidModel(location.entity(entityName), "the fetch request's entity does not exist")
            }
            request.entity = entity
        }
        if let format = nonEmpty(element["predicateString"]) {
            if byName != nil {
                request.predicate = try ModelPredicates.predicate(format, location: location)
            } else {
                // A fetched property is evaluated lazily, and a model with a broken one should
                // still open its store; it matches nothing rather than everything.
                do {
                    request.predicate = try ModelPredicates.predicate(format, location: location)
                } catch {
                    Log.modelFile.warning("\((error as NSError).localizedDescription) The fetched property matches nothing.")
                    request.predicate = NSPredicate(value: false)
                }
            }
        }
        if let text = element["resultType"] {
            guard let raw = UInt(text) else { throw ModelFileError.corrupt(location, "resultType '\(text)' is not a number") }
            request.resultType = NSFetchRequestResultType(rawValue: raw)
        }
        if let text = element["fetchLimit"] {
            guard let value = Int(text), value >= 0 else { throw ModelFileError.corrupt(location, "fetchLimit '\(text)' is not a count") }
            request.fetchLimit = value
        }
        if let text = element["fetchBatchSize"] {
            guard let value = Int(text), value >= 0 else { throw ModelFileError.corrupt(location, "fetchBatchSize '\(text)' is not a count") }
            request.fetchBatchSize = value
        }
        if let value = optionalFlag(element, "includeSubentities") { request.includesSubentities = value }
        if let value = optionalFlag(element, "includePropertyValues") { request.includesPropertyValues = value }
        if let value = optionalFlag(element, "includesPendingChanges") { request.includesPendingChanges = value }
        if let value = optionalFlag(element, "returnObjectsAsFaults") { request.returnsObjectsAsFaults = value }
        if let value = optionalFlag(element, "returnDistinctResults") { request.returnsDistinctResults = value }
        return request
    }

    private func optionalFlag(_ element: ModelXMLElement, _ attribute: String) -> Bool? {
        element[attribute] == nil ? nil : element.flag(attribute)
    }

    func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
