import Foundation
import OpenCoreData

/// What `coredata model diff` reports: how a new model version differs from an old one, entity
/// by entity and property by property, and whether lightweight migration can infer the change.
///
/// Elements correspond as lightweight migration pairs them: a new entity or property comes from
/// the old one named by its renaming identifier (Xcode's "Renaming ID"), else by its own name.
struct ModelDiff {
    /// How an entity or property changed.
    enum Change: String, Sendable {
        case added, removed, renamed, changed, unchanged
    }

    /// One changed fact: `type String → Date`, `optional yes → no`.
    struct Difference: Equatable, Sendable {
        var what: String
        var old: String
        var new: String
    }

    /// A property of a new entity and the old property it comes from, or an old one that is gone.
    struct PropertyDiff: Sendable {
        /// `attribute`, `relationship` or `fetched property`.
        var kind: String
        /// The new name (the old name for a removed property).
        var name: String
        /// The old name when the property was renamed.
        var oldName: String?
        var change: Change
        var differences: [Difference]
        /// For an added property: its type and optionality (`Boolean, required, default NO`).
        var summary: String?
    }

    /// An entity of either model and what happened to it.
    struct EntityDiff: Sendable {
        /// The new name (the old name for a removed entity).
        var name: String
        /// The old name when the entity was renamed.
        var oldName: String?
        var change: Change
        var oldHash: Data?
        var newHash: Data?
        /// Parent, abstractness, version hash modifier.
        var differences: [Difference]
        var properties: [PropertyDiff]
        /// For an added entity: how many attributes and relationships it has.
        var summary: String?
    }

    /// Whether lightweight migration can infer a mapping from the old model to the new one.
    enum Inference: Sendable {
        /// It can; the inferred entity mappings counted by type (`copy`, `transform`, `add`, `remove`).
        case inferable(mappings: [(type: String, count: Int)])
        /// It cannot: `NSInferredMappingModelError` (134190) with its reason, entity and property.
        case notInferable(code: Int, reason: String, entity: String?, property: String?)
    }

    let old: ResolvedModel
    let new: ResolvedModel
    /// Changed, added, removed and renamed entities first by name, then unchanged ones by name.
    let entities: [EntityDiff]
    let inference: Inference
    /// Changes Apple infers that OpenCoreData's SQLite store does not migrate yet.
    let storeLimitations: [String]

    /// Whether the models differ at all.
    var hasDifferences: Bool { entities.contains { $0.change != .unchanged } }

    /// Compares two models.
    init(old: ResolvedModel, new: ResolvedModel) {
        self.old = old
        self.new = new
        let oldModel = old.model, newModel = new.model
        let oldEntities = oldModel.entitiesByName
        var diffs: [EntityDiff] = []
        var used = Set<String>()
        var limitations: [String] = []
        for entity in ModelReport.sortedEntities(newModel) {
            let name = entity.name ?? "?"
            guard let previous = oldEntities[Self.key(entity)] else {
                let attributes = entity.ownProperties.filter { $0 is NSAttributeDescription }.count
                let relationships = entity.ownProperties.filter { $0 is NSRelationshipDescription }.count
                diffs.append(EntityDiff(name: name, oldName: nil, change: .added, oldHash: nil, newHash: entity.versionHash,
                                        differences: [], properties: [],
                                        summary: "\(attributes) attribute\(attributes == 1 ? "" : "s"), \(relationships) relationship\(relationships == 1 ? "" : "s")"))
                continue
            }
            used.insert(previous.name ?? "")
            let properties = Self.properties(of: entity, from: previous, limitations: &limitations)
            let differences = Self.entityDifferences(previous, entity)
            let renamed = previous.name != entity.name
            let changed = previous.versionHash != entity.versionHash || !differences.isEmpty || properties.contains { $0.change != .unchanged }
            diffs.append(EntityDiff(name: name, oldName: renamed ? previous.name : nil,
                                    change: renamed ? .renamed : (changed ? .changed : .unchanged),
                                    oldHash: previous.versionHash, newHash: entity.versionHash, differences: differences,
                                    properties: properties.filter { $0.change != .unchanged }, summary: nil))
        }
        for entity in ModelReport.sortedEntities(oldModel) where !used.contains(entity.name ?? "") {
            diffs.append(EntityDiff(name: entity.name ?? "?", oldName: nil, change: .removed, oldHash: entity.versionHash, newHash: nil,
                                    differences: [], properties: [], summary: nil))
        }
        entities = diffs.filter { $0.change != .unchanged }.sorted { $0.name < $1.name }
            + diffs.filter { $0.change == .unchanged }.sorted { $0.name < $1.name }
        storeLimitations = limitations
        inference = Self.infer(from: oldModel, to: newModel)
    }

    /// The name of the old element a new one comes from: its renaming identifier, else its name.
    static func key(_ entity: NSEntityDescription) -> String { entity.renamingIdentifier ?? entity.name ?? "" }
    static func key(_ property: NSPropertyDescription) -> String { property.renamingIdentifier ?? property.name }

    // MARK: - Inference

    private static func infer(from old: NSManagedObjectModel, to new: NSManagedObjectModel) -> Inference {
        do {
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: old, destinationModel: new)
            let order: [(NSEntityMappingType, String)] = [(.copyEntityMappingType, "copy"), (.transformEntityMappingType, "transform"),
                                                          (.addEntityMappingType, "add"), (.removeEntityMappingType, "remove")]
            let mappings = mapping.entityMappings ?? []
            let counts = order.map { pair in (type: pair.1, count: mappings.filter { $0.mappingType == pair.0 }.count) }
            return .inferable(mappings: counts.filter { $0.count > 0 })
        } catch {
            let nsError = error as NSError
            return .notInferable(code: nsError.code, reason: ToolError.describe(error),
                                 entity: nsError.userInfo["entity"] as? String, property: nsError.userInfo["property"] as? String)
        }
    }

    // MARK: - Entities

    private static func entityDifferences(_ old: NSEntityDescription, _ new: NSEntityDescription) -> [Difference] {
        var differences: [Difference] = []
        let oldParent = old.superentity?.name ?? "none", newParent = new.superentity.map { Self.key($0) } ?? "none"
        if oldParent != newParent { differences.append(Difference(what: "parent", old: oldParent, new: new.superentity?.name ?? "none")) }
        if old.isAbstract != new.isAbstract { differences.append(Difference(what: "abstract", old: yesNo(old.isAbstract), new: yesNo(new.isAbstract))) }
        if old.versionHashModifier != new.versionHashModifier {
            differences.append(Difference(what: "version hash modifier", old: old.versionHashModifier ?? "none", new: new.versionHashModifier ?? "none"))
        }
        return differences
    }

    /// The new entity's own properties against the old entity's, then the old ones no new property comes from.
    private static func properties(of entity: NSEntityDescription, from previous: NSEntityDescription,
                                   limitations: inout [String]) -> [PropertyDiff] {
        let oldProperties = previous.propertiesByName
        var result: [PropertyDiff] = []
        for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
            let kind = kindName(property)
            guard let before = oldProperties[key(property)], kindName(before) == kind else {
                result.append(PropertyDiff(kind: kind, name: property.name, oldName: nil, change: .added, differences: [], summary: summary(property)))
                continue
            }
            var differences = propertyDifferences(before, property)
            if differences.isEmpty && before.versionHash != property.versionHash {
                differences.append(Difference(what: "version hash", old: HashesReport.hex(before.versionHash), new: HashesReport.hex(property.versionHash)))
            }
            let renamed = before.name != property.name
            result.append(PropertyDiff(kind: kind, name: property.name, oldName: renamed ? before.name : nil,
                                       change: renamed ? .renamed : (differences.isEmpty ? .unchanged : .changed),
                                       differences: differences, summary: nil))
            if let old = before as? NSRelationshipDescription, let new = property as? NSRelationshipDescription, shape(old) != shape(new) {
                limitations.append("relationship '\(new.name)' of '\(entity.name ?? "?")' changes from \(shape(old)) to \(shape(new))")
            }
        }
        let kept = Set(entity.properties.compactMap { property -> String? in
            guard let before = oldProperties[key(property)], kindName(before) == kindName(property) else { return nil }
            return before.name
        })
        for property in previous.ownProperties.sorted(by: { $0.name < $1.name }) where !kept.contains(property.name) {
            result.append(PropertyDiff(kind: kindName(property), name: property.name, oldName: nil, change: .removed, differences: [], summary: nil))
        }
        return result
    }

    // MARK: - Properties

    private static func kindName(_ property: NSPropertyDescription) -> String {
        switch property {
        case is NSRelationshipDescription: "relationship"
        case is NSFetchedPropertyDescription: "fetched property"
        default: "attribute"
        }
    }

    private static func propertyDifferences(_ old: NSPropertyDescription, _ new: NSPropertyDescription) -> [Difference] {
        var differences: [Difference] = []
        func compare(_ what: String, _ before: String, _ after: String) {
            if before != after { differences.append(Difference(what: what, old: before, new: after)) }
        }
        if let old = old as? NSAttributeDescription, let new = new as? NSAttributeDescription {
            compare("type", ValueCoding.typeName(old.attributeType), ValueCoding.typeName(new.attributeType))
            compare("default", defaultText(old), defaultText(new))
            compare("external storage", yesNo(old.allowsExternalBinaryDataStorage), yesNo(new.allowsExternalBinaryDataStorage))
        }
        compare("optional", yesNo(old.isOptional), yesNo(new.isOptional))
        compare("transient", yesNo(old.isTransient), yesNo(new.isTransient))
        if let old = old as? NSRelationshipDescription, let new = new as? NSRelationshipDescription {
            // A destination renamed through its renaming identifier is the same destination.
            compare("destination", old.destinationEntity?.name ?? "?", new.destinationEntity.map { Self.key($0) } ?? "?")
            if let index = differences.indices.last, differences[index].what == "destination" {
                differences[index].new = new.destinationEntity?.name ?? "?"
            }
            compare("to-many", yesNo(old.isToMany), yesNo(new.isToMany))
            compare("ordered", yesNo(old.isOrdered), yesNo(new.isOrdered))
            compare("min count", String(old.minCount), String(new.minCount))
            compare("max count", old.maxCount == 0 ? "*" : String(old.maxCount), new.maxCount == 0 ? "*" : String(new.maxCount))
            compare("delete rule", ModelReport.deleteRuleName(old.deleteRule), ModelReport.deleteRuleName(new.deleteRule))
            compare("inverse", old.inverseRelationship?.name ?? "none", new.inverseRelationship.map { Self.key($0) } ?? "none")
            if let index = differences.indices.last, differences[index].what == "inverse" {
                differences[index].new = new.inverseRelationship?.name ?? "none"
            }
        }
        compare("version hash modifier", old.versionHashModifier ?? "none", new.versionHashModifier ?? "none")
        return differences
    }

    private static func summary(_ property: NSPropertyDescription) -> String {
        var facts: [String] = []
        if let attribute = property as? NSAttributeDescription {
            facts.append(ValueCoding.typeName(attribute.attributeType))
            facts.append(attribute.isOptional ? "optional" : "required")
            if attribute.defaultValue != nil { facts.append("default \(defaultText(attribute))") }
        } else if let relationship = property as? NSRelationshipDescription {
            facts.append("\(relationship.isOrdered ? "ordered " : "")\(relationship.isToMany ? "to-many" : "to-one") \(relationship.destinationEntity?.name ?? "?")")
            facts.append(relationship.isOptional ? "optional" : "required")
        }
        if property.isTransient { facts.append("transient") }
        return facts.joined(separator: ", ")
    }

    private static func defaultText(_ attribute: NSAttributeDescription) -> String {
        guard let value = attribute.defaultValue else { return "none" }
        return ValueCoding.text(value, attribute: attribute) ?? "none"
    }

    private static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    /// How the SQLite store keeps a relationship: a foreign key, or a join table.
    private static func shape(_ relationship: NSRelationshipDescription) -> String {
        if !relationship.isToMany { return "to-one" }
        return (relationship.inverseRelationship?.isToMany ?? true) ? "many-to-many" : "one-to-many"
    }
}
