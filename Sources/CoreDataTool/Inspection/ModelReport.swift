import Foundation
import OpenCoreData

/// What `coredata model show` prints: entities, attributes, relationships, constraints, indexes.
public enum ModelReport {
    /// The model as JSON (`--json`).
    static func json(_ resolved: ResolvedModel) -> JSONValue {
        let model = resolved.model
        var root = JSONObject()
        root["source"] = .string(resolved.originDescription)
        root["versionIdentifiers"] = .array(versionIdentifiers(model).map(JSONValue.string))
        root["configurations"] = .array(model.configurations.map(JSONValue.string))
        root["entities"] = .array(sortedEntities(model).map(entityJSON))
        return .object(root)
    }

    /// The model as text, one block per entity.
    static func text(_ resolved: ResolvedModel) -> String {
        let model = resolved.model
        let entities = sortedEntities(model)
        var text = "Model: \(resolved.originDescription)\n"
        let identifiers = versionIdentifiers(model)
        if !identifiers.isEmpty { text += "Version identifiers: \(identifiers.joined(separator: ", "))\n" }
        if !model.configurations.isEmpty { text += "Configurations: \(model.configurations.joined(separator: ", "))\n" }
        text += "Entities: \(entities.count)\n"
        for entity in entities {
            text += "\n" + entityText(entity)
        }
        return text
    }

    static func sortedEntities(_ model: NSManagedObjectModel) -> [NSEntityDescription] {
        model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
    }

    static func versionIdentifiers(_ model: NSManagedObjectModel) -> [String] {
        model.versionIdentifiers.map { "\($0.base)" }.sorted()
    }

    // MARK: - Entities

    private static func entityText(_ entity: NSEntityDescription) -> String {
        var text = entity.name ?? "?"
        var facts: [String] = []
        if let className = entity.managedObjectClassName, !className.isEmpty { facts.append("class \(className)") }
        if let parent = entity.superentity?.name { facts.append("parent \(parent)") }
        if entity.isAbstract { facts.append("abstract") }
        if !entity.subentities.isEmpty { facts.append("subentities \(entity.subentities.compactMap(\.name).sorted().joined(separator: ", "))") }
        if !facts.isEmpty { text += "  (" + facts.joined(separator: "; ") + ")" }
        text += "\n"

        let attributes = sortedProperties(entity).compactMap { $0 as? NSAttributeDescription }
        if !attributes.isEmpty {
            var table = TextTable(headers: ["attribute", "type", "optional", "default", "notes"], maximumCellWidth: 60)
            for attribute in attributes {
                table.append([attribute.name, ValueCoding.typeName(attribute.attributeType), attribute.isOptional ? "yes" : "no",
                              defaultText(attribute), attributeNotes(attribute, in: entity).joined(separator: "; ")])
            }
            text += indent(table.render())
        }
        let relationships = sortedProperties(entity).compactMap { $0 as? NSRelationshipDescription }
        if !relationships.isEmpty {
            var table = TextTable(headers: ["relationship", "destination", "kind", "optional", "min", "max", "inverse", "delete rule", "notes"])
            for relationship in relationships {
                var notes: [String] = []
                if relationship.isOrdered { notes.append("ordered") }
                if relationship.isTransient { notes.append("transient") }
                if let owner = declaringEntity(of: relationship, in: entity) { notes.append("inherited from \(owner)") }
                table.append([relationship.name, relationship.destinationEntity?.name ?? "?",
                              relationship.isToMany ? "to-many" : "to-one", relationship.isOptional ? "yes" : "no",
                              String(relationship.minCount), relationship.maxCount == 0 ? "*" : String(relationship.maxCount),
                              relationship.inverseRelationship?.name ?? "—", deleteRuleName(relationship.deleteRule),
                              notes.joined(separator: "; ")])
            }
            text += indent(table.render())
        }
        let fetched = sortedProperties(entity).compactMap { $0 as? NSFetchedPropertyDescription }
        for property in fetched {
            let request = property.fetchRequest
            text += "    fetched property \(property.name): \(request?.entityName ?? "?")"
            if let predicate = request?.predicate { text += " where \(predicate.predicateFormat)" }
            text += "\n"
        }
        let constraints = constraintNames(entity)
        if !constraints.isEmpty {
            text += "    uniqueness constraints: " + constraints.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: ", ") + "\n"
        }
        for index in entity.indexes {
            text += "    fetch index \(index.name): " + index.elements.map(elementText).joined(separator: ", ")
            if let predicate = index.partialIndexPredicate { text += " where \(predicate.predicateFormat)" }
            text += "\n"
        }
        return text
    }

    private static func entityJSON(_ entity: NSEntityDescription) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(entity.name ?? "")
        object["className"] = entity.managedObjectClassName.map(JSONValue.string) ?? .null
        object["parent"] = entity.superentity?.name.map(JSONValue.string) ?? .null
        object["abstract"] = .bool(entity.isAbstract)
        object["subentities"] = .array(entity.subentities.compactMap(\.name).sorted().map(JSONValue.string))
        var attributes: [JSONValue] = []
        var relationships: [JSONValue] = []
        var fetchedProperties: [JSONValue] = []
        for property in sortedProperties(entity) {
            var item = JSONObject()
            item["name"] = .string(property.name)
            if let attribute = property as? NSAttributeDescription {
                item["type"] = .string(ValueCoding.typeName(attribute.attributeType))
                item["optional"] = .bool(attribute.isOptional)
                item["transient"] = .bool(attribute.isTransient)
                item["default"] = attribute.defaultValue.map { ValueCoding.json($0, attribute: attribute) } ?? .null
                item["indexed"] = .bool(attribute.isIndexed)
                if let name = attribute.valueTransformerName { item["valueTransformer"] = .string(name) }
                if let derived = attribute as? NSDerivedAttributeDescription, let expression = derived.derivationExpression {
                    item["derivation"] = .string(expression.description)
                }
                if !attribute.validationPredicates.isEmpty {
                    item["validation"] = .array(attribute.validationPredicates.map { .string($0.predicateFormat) })
                }
                if attribute.allowsExternalBinaryDataStorage { item["externalStorage"] = .bool(true) }
                if let owner = declaringEntity(of: attribute, in: entity) { item["inheritedFrom"] = .string(owner) }
                attributes.append(.object(item))
            } else if let relationship = property as? NSRelationshipDescription {
                item["destination"] = .string(relationship.destinationEntity?.name ?? "")
                item["toMany"] = .bool(relationship.isToMany)
                item["optional"] = .bool(relationship.isOptional)
                item["transient"] = .bool(relationship.isTransient)
                item["ordered"] = .bool(relationship.isOrdered)
                item["minCount"] = .integer(relationship.minCount)
                item["maxCount"] = .integer(relationship.maxCount)
                item["inverse"] = relationship.inverseRelationship.map { .string($0.name) } ?? .null
                item["deleteRule"] = .string(deleteRuleName(relationship.deleteRule))
                if let owner = declaringEntity(of: relationship, in: entity) { item["inheritedFrom"] = .string(owner) }
                relationships.append(.object(item))
            } else if let fetched = property as? NSFetchedPropertyDescription {
                item["entity"] = fetched.fetchRequest?.entityName.map(JSONValue.string) ?? .null
                item["predicate"] = fetched.fetchRequest?.predicate.map { .string($0.predicateFormat) } ?? .null
                fetchedProperties.append(.object(item))
            }
        }
        object["attributes"] = .array(attributes)
        object["relationships"] = .array(relationships)
        if !fetchedProperties.isEmpty { object["fetchedProperties"] = .array(fetchedProperties) }
        object["uniquenessConstraints"] = .array(constraintNames(entity).map { .array($0.map(JSONValue.string)) })
        object["fetchIndexes"] = .array(entity.indexes.map { index in
            var item = JSONObject()
            item["name"] = .string(index.name)
            item["elements"] = .array(index.elements.map { element in
                .object(JSONObject([
                    ("property", .string(element.propertyName ?? element.property?.name ?? "")),
                    ("ascending", .bool(element.isAscending)),
                    ("collation", .string(element.collationType == .rTree ? "rtree" : "binary")),
                ]))
            })
            item["partialIndexPredicate"] = index.partialIndexPredicate.map { .string($0.predicateFormat) } ?? .null
            return .object(item)
        })
        return .object(object)
    }

    // MARK: - Helpers

    /// The entity's properties, inherited ones included, by name.
    static func sortedProperties(_ entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.properties.sorted { $0.name < $1.name }
    }

    /// The ancestor that declares an inherited property, or nil for the entity's own.
    static func declaringEntity(of property: NSPropertyDescription, in entity: NSEntityDescription) -> String? {
        var owner: NSEntityDescription?
        var current = entity.superentity
        while let ancestor = current {
            // Own properties only: the topmost ancestor declaring the name is the same one, and
            // building each ancestor's inherited `propertiesByName` made a deep chain cubic.
            if ancestor.ownProperties.contains(where: { $0.name == property.name }) { owner = ancestor }
            current = ancestor.superentity
        }
        return owner?.name
    }

    static func constraintNames(_ entity: NSEntityDescription) -> [[String]] {
        entity.uniquenessConstraints.map { constraint in
            constraint.map { element in
                if let property = element as? NSPropertyDescription { return property.name }
                return element as? String ?? "\(element)"
            }
        }
    }

    private static func attributeNotes(_ attribute: NSAttributeDescription, in entity: NSEntityDescription) -> [String] {
        var notes: [String] = []
        if attribute.isTransient { notes.append("transient") }
        if attribute.isIndexed { notes.append("indexed") }
        if let name = attribute.valueTransformerName, !name.isEmpty { notes.append("transformer \(name)") }
        if let derived = attribute as? NSDerivedAttributeDescription, let expression = derived.derivationExpression {
            notes.append("derived = \(expression.description)")
        }
        if attribute.allowsExternalBinaryDataStorage { notes.append("external storage") }
        for predicate in attribute.validationPredicates { notes.append("valid if \(predicate.predicateFormat)") }
        if let owner = declaringEntity(of: attribute, in: entity) { notes.append("inherited from \(owner)") }
        return notes
    }

    private static func defaultText(_ attribute: NSAttributeDescription) -> String? {
        guard let value = attribute.defaultValue else { return nil }
        return ValueCoding.text(value, attribute: attribute)
    }

    private static func elementText(_ element: NSFetchIndexElementDescription) -> String {
        var text = element.propertyName ?? element.property?.name ?? "?"
        text += element.isAscending ? " ascending" : " descending"
        if element.collationType == .rTree { text += " (R-tree)" }
        return text
    }

    static func deleteRuleName(_ rule: NSDeleteRule) -> String {
        switch rule {
        case .noActionDeleteRule: "No Action"
        case .nullifyDeleteRule: "Nullify"
        case .cascadeDeleteRule: "Cascade"
        case .denyDeleteRule: "Deny"
        }
    }

    private static func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
    }
}
