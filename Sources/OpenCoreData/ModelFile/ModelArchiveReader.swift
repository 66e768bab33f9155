import Foundation

/// Builds an `NSManagedObjectModel` from a compiled model: the `NSKeyedArchiver` archive in a
/// `.mom` file or in a SQLite store's `Z_MODELCACHE` (after inflating it).
///
/// The archived classes and keys are listed in shared/docs/coredata-formats.md §2. Objects are
/// read through ``KeyedArchive``; this type maps `NSEntityDescription`, the property classes,
/// fetch indexes, fetch requests and configurations onto OpenCoreData's model classes.
///
/// Not decoded (no fixture shows their archived form): `allowsExternalBinaryDataStorage` (except
/// under OpenCoreData's own key, see `ModelCacheArchiver`), composite attribute elements and fetch request flag bits. Archived predicates and expressions
/// are rebuilt as format strings and parsed (see `ModelPredicates`); one that can't be is logged
/// and left out. An app's own `NSCoding` default value (a transformable attribute's) is dropped:
/// the class isn't there to decode it.
package struct ModelArchiveReader {
    let location: ModelFileLocation

    package init(url: URL?) {
        location = ModelFileLocation(url: url)
    }

    package init(location: ModelFileLocation) {
        self.location = location
    }

    /// Reads an archive (binary or XML property list) into `model`, which should be empty.
    package func read(_ data: Data, into model: NSManagedObjectModel) throws {
        let archive = try KeyedArchive(data: data, location: location)
        let root = try archive.root()
        if root.className.hasPrefix("XDPM") || root.className.hasPrefix("XDUML") {
            throw ModelFileError.corrupt(location, "this is a model in the legacy pre-Xcode 4 format (\(root.className)), which is not supported; open it in Xcode 4 or later and save it to convert it to the XML format")
        }
        guard root.isKind(of: "NSManagedObjectModel") else {
            throw ModelFileError.corrupt(location, "the archive holds a \(root.className), not an NSManagedObjectModel")
        }
        let builder = Builder(location: location)
        try builder.build(root, into: model)
    }
}

// MARK: - Builder

/// The state of one decoding: objects already built, by archive index, so that an entity or
/// property referenced from several places is built once.
private final class Builder {
    let location: ModelFileLocation
    let formatter = ArchivedPredicateFormatter()
    var entities: [Int: NSEntityDescription] = [:]
    var entityObjects: [Int: ArchivedObject] = [:]

    init(location: ModelFileLocation) {
        self.location = location
    }

    func build(_ root: ArchivedObject, into model: NSManagedObjectModel) throws {
        var ordered: [(String, Int)] = []
        for entry in try root.entries("NSEntities") {
            guard case .object(let object) = entry.value, object.isKind(of: "NSEntityDescription") else {
                throw ModelFileError.corrupt(location, "NSManagedObjectModel.NSEntities holds something that is not an entity")
            }
            let entity = try makeEntity(object)
            guard !ordered.contains(where: { $0.0 == entity.name }) else {
                throw ModelFileError.invalidModel(location.entity(entity.name), "two entities have the same name")
            }
            ordered.append((entity.name ?? "", object.index))
        }
        // Xcode writes entities in name order; the archive's dictionary order is a hash order.
        ordered.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }

        for (_, index) in ordered {
            guard let object = entityObjects[index], let entity = entities[index] else { continue }
            try fillEntity(entity, from: object)
        }
        try linkInheritance(ordered.map(\.1))
        model.entities = ordered.compactMap { entities[$0.1] }
        model.link()
        try ModelChecker(location: location).check(model)

        for value in try root.elements("NSVersionIdentifiers") {
            if let identifier = try value.foundationValue() as? AnyHashable { model.versionIdentifiers.insert(identifier) }
        }
        for entry in try root.entries("NSConfigurations") {
            guard let name = entry.key.stringValue else { continue }
            var members: [NSEntityDescription] = []
            let values: [ArchiveValue]
            if case .object(let collection) = entry.value { values = try collection.collectionElements() } else { values = [] }
            for value in values {
                switch value {
                case .object(let object): if let entity = entities[object.index] { members.append(entity) }
                default: if let entityName = value.stringValue, let entity = model.entitiesByName[entityName] { members.append(entity) }
                }
            }
            members.sort { ($0.name ?? "") < ($1.name ?? "") }
            model.setEntities(members, forConfigurationName: name)
        }
        for entry in try root.entries("NSFetchRequestTemplates") {
            guard let name = entry.key.stringValue, case .object(let object) = entry.value else { continue }
            let request = try fetchRequest(object, location: location.property(name))
            if let entityName = request.entityName { request.entity = model.entitiesByName[entityName] }
            model.setFetchRequestTemplate(request, forName: name)
        }
    }

    // MARK: - Entities

    /// Creates the entity for an archived entity object, once.
    func makeEntity(_ object: ArchivedObject) throws -> NSEntityDescription {
        if let entity = entities[object.index] { return entity }
        guard let name = try object.string("NSEntityName"), !name.isEmpty else {
            throw ModelFileError.corrupt(location, "an archived entity has no NSEntityName")
        }
        let entity = NSEntityDescription()
        entity.name = name
        entities[object.index] = entity
        entityObjects[object.index] = object
        return entity
    }

    func fillEntity(_ entity: NSEntityDescription, from object: ArchivedObject) throws {
        let location = self.location.entity(entity.name)
        entity.managedObjectClassName = try object.string("NSClassNameForEntity") ?? "NSManagedObject"
        entity.isAbstract = try object.bool("NSIsAbstract") ?? false
        entity.versionHashModifier = try object.string("NSVersionHashModifier")
        entity.renamingIdentifier = try object.string("NSRenamingIdentifier")
        entity.userInfo = try userInfo(object)
        entity.uniquenessConstraints = try nameGroups(object, "NSUniqueTuples", location: location)
        entity.compoundIndexes = try nameGroups(object, "NSCompoundIndexes", location: location)
        entity.indexes = try object.elements("NSFetchIndexDescriptions").compactMap { value in
            guard case .object(let index) = value else { return nil }
            return try fetchIndex(index, location: location)
        }

        // A store's model cache lists inherited properties on subentities too; keep only the entity's own.
        let inherited = try inheritedPropertyNames(of: object)
        var properties: [NSPropertyDescription] = []
        for entry in try object.entries("NSProperties") {
            guard case .object(let propertyObject) = entry.value else {
                throw ModelFileError.corrupt(location.property(entry.key.stringValue), "NSProperties holds something that is not a property")
            }
            let property = try makeProperty(propertyObject, location: location)
            guard !inherited.contains(property.name) else { continue }
            guard !properties.contains(where: { $0.name == property.name }) else {
                throw ModelFileError.invalidModel(location.property(property.name), "two properties have the same name")
            }
            properties.append(property)
        }
        // Xcode's order: attributes, then relationships, then fetched properties, each by name.
        properties.sort { left, right in
            let (leftRank, rightRank) = (Self.rank(left), Self.rank(right))
            if leftRank != rightRank { return leftRank < rightRank }
            return left.name.utf8.lexicographicallyPrecedes(right.name.utf8)
        }
        entity.properties = properties
    }

    private static func rank(_ property: NSPropertyDescription) -> Int {
        switch property {
        case is NSAttributeDescription: return 0
        case is NSRelationshipDescription: return 1
        default: return 2
        }
    }

    private func inheritedPropertyNames(of object: ArchivedObject) throws -> Set<String> {
        var names = Set<String>()
        var current = try object.object("NSSuperentity")
        var steps = 0
        while let ancestor = current {
            steps += 1
            guard steps <= 1000, ancestor.index != object.index else {
                throw ModelFileError.invalidModel(location.entity(try object.string("NSEntityName")), "the entity inherits from itself")
            }
            for entry in try ancestor.entries("NSProperties") {
                if let name = entry.key.stringValue { names.insert(name) }
            }
            current = try ancestor.object("NSSuperentity")
        }
        return names
    }

    private func linkInheritance(_ indices: [Int]) throws {
        var children: [Int: [NSEntityDescription]] = [:]
        for index in indices {
            guard let object = entityObjects[index], let entity = entities[index] else { continue }
            guard let parent = try object.object("NSSuperentity") else { continue }
            guard entities[parent.index] != nil else {
                throw ModelFileError.invalidModel(location.entity(entity.name), "the superentity is not one of the model's entities")
            }
            children[parent.index, default: []].append(entity)
        }
        for (parentIndex, subentities) in children {
            entities[parentIndex]?.subentities = subentities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        }
    }

    private func userInfo(_ object: ArchivedObject) throws -> [AnyHashable: Any]? {
        guard object.has("NSUserInfo") else { return nil }
        var info: [AnyHashable: Any] = [:]
        for entry in try object.entries("NSUserInfo") {
            guard let key = try entry.key.foundationValue() as? AnyHashable, let value = try entry.value.foundationValue() else { continue }
            info[key] = value
        }
        return info
    }

    /// Arrays of arrays of property names (uniqueness constraints, compound indexes); elements
    /// may be names or archived property descriptions.
    private func nameGroups(_ object: ArchivedObject, _ key: String, location: ModelFileLocation) throws -> [[Any]] {
        try object.elements(key).map { group in
            guard case .object(let groupObject) = group else { throw object.typeError(key, "an array of arrays") }
            return try groupObject.collectionElements().map { item -> Any in
                if let name = item.stringValue { return name }
                if case .object(let property) = item, let name = try property.string("NSPropertyName") { return name }
                throw object.typeError(key, "an array of arrays of property names")
            }
        }
    }

    private func fetchIndex(_ object: ArchivedObject, location: ModelFileLocation) throws -> NSFetchIndexDescription {
        let name = try object.string("NSIndexName") ?? ""
        var elements: [NSFetchIndexElementDescription] = []
        for value in try object.elements("NSIndexElements") {
            guard case .object(let element) = value else { continue }
            var propertyName = try element.string("NSPropertyName")
            if propertyName == nil, let property = try element.object("NSProperty") {
                propertyName = try property.string("NSPropertyName")
            }
            guard let propertyName else {
                throw ModelFileError.corrupt(location, "fetch index '\(name)' has an element without a property")
            }
            let collation: NSFetchIndexElementDescription.CollationType = try element.integer("NSFetchIndexElementType") == 1 ? .rTree : .binary
            elements.append(NSFetchIndexElementDescription(propertyName: propertyName, collationType: collation,
                                                           ascending: try element.bool("NSAscending") ?? true))
        }
        return NSFetchIndexDescription(name: name, elements: elements)
    }

    // MARK: - Properties

    func makeProperty(_ object: ArchivedObject, location: ModelFileLocation, compositeDepth: Int = 0) throws -> NSPropertyDescription {
        guard let name = try object.string("NSPropertyName"), !name.isEmpty else {
            throw ModelFileError.corrupt(location, "an archived \(object.className) has no NSPropertyName")
        }
        let location = location.property(name)
        let property: NSPropertyDescription
        if object.isKind(of: "NSAttributeDescription") {
            property = try attribute(object, location: location, compositeDepth: compositeDepth)
        } else if object.isKind(of: "NSRelationshipDescription") {
            property = try relationship(object, location: location)
        } else if object.isKind(of: "NSFetchedPropertyDescription") {
            let fetched = NSFetchedPropertyDescription()
            if let requestObject = try object.object("NSFetchRequest") {
                let request = try fetchRequest(requestObject, location: location)
                if request.entityName == nil, let entityName = try object.string("_NSFetchRequestEntityName") {
                    request.setEntityName(entityName)
                }
                // A predicate this reader can't rebuild (logged) matches nothing, as in XML models,
                // rather than letting the fetched property return every object.
                if request.predicate == nil, try requestObject.object("NSPredicate") != nil {
                    request.predicate = NSPredicate(value: false)
                }
                fetched.fetchRequest = request
            }
            property = fetched
        } else {
            throw ModelFileError.corrupt(location, "unknown property class \(object.className)")
        }
        property.name = name
        property.isOptional = try object.bool("NSIsOptional") ?? false
        property.isTransient = try object.bool("NSIsTransient") ?? (property is NSFetchedPropertyDescription)
        property.isReadOnly = try object.bool("NSIsReadOnly") ?? false
        property.isIndexed = try object.bool("NSIsIndexed") ?? false
        property.isIndexedBySpotlight = try object.bool("NSIsIndexedBySpotlight") ?? false
        property.versionHashModifier = try object.string("NSVersionHashModifier")
        property.renamingIdentifier = try object.string("NSRenamingIdentifier")
        property.userInfo = try userInfo(object)
        let rules = try validationRules(object, location: location)
        if !rules.isEmpty {
            property.setValidationPredicates(rules.map(\.predicate), withValidationWarnings: rules.map(\.warning))
        }
        return property
    }

    private func attribute(_ object: ArchivedObject, location: ModelFileLocation, compositeDepth: Int) throws -> NSAttributeDescription {
        let attribute: NSAttributeDescription
        if object.isKind(of: "NSDerivedAttributeDescription") {
            let derived = NSDerivedAttributeDescription()
            if let expression = try object.object("NSDerivationExpression") {
                derived.derivationExpression = ModelPredicates.archivedExpression(try? formatter.expression(expression), location: location)
            }
            attribute = derived
        } else if object.isKind(of: "NSCompositeAttributeDescription") {
            attribute = try composite(object, location: location, depth: compositeDepth)
        } else {
            attribute = NSAttributeDescription()
        }
        guard let rawType = try object.integer("NSAttributeType") else {
            throw ModelFileError.corrupt(location, "the attribute has no NSAttributeType")
        }
        guard rawType >= 0, let type = NSAttributeType(rawValue: UInt(rawType)) else {
            throw ModelFileError.corrupt(location, "unknown attribute type \(rawType)")
        }
        attribute.attributeType = type
        if let className = try object.string("NSAttributeValueClassName"),
           className != NSAttributeDescription.defaultValueClassName(for: type) {
            attribute.attributeValueClassName = className
        }
        attribute.valueTransformerName = try object.string("NSValueTransformerName")
        attribute.defaultValue = try object.value("NSDefaultValue").foundationValue()
        let flags = try object.integer("NSFlagsKey") ?? 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        // OpenCoreData's own key in the caches it writes (no Apple archive shows this flag).
        attribute.allowsExternalBinaryDataStorage = try object.bool("NSAllowsExternalBinaryDataStorage") ?? false
        return attribute
    }

    /// A composite and its `NSCompositeElements` (ordinary attribute descriptions, or nested
    /// composites), as wave3-research §5 read them from a SwiftData store's model cache.
    private func composite(_ object: ArchivedObject, location: ModelFileLocation, depth: Int) throws -> NSCompositeAttributeDescription {
        // An archive may point a composite at itself; the bound turns that into an error.
        guard depth < NSCompositeAttributeDescription.maximumDepth else {
            throw ModelFileError.invalidModel(location, "composites are nested more than \(NSCompositeAttributeDescription.maximumDepth) deep")
        }
        let composite = NSCompositeAttributeDescription()
        var names = Set<String>()
        for value in try object.elements("NSCompositeElements") {
            guard case .object(let elementObject) = value else { throw object.typeError("NSCompositeElements", "an array of attributes") }
            guard let element = try makeProperty(elementObject, location: location, compositeDepth: depth + 1) as? NSAttributeDescription else {
                throw ModelFileError.invalidModel(location, "a composite element is not an attribute")
            }
            guard names.insert(element.name).inserted else {
                throw ModelFileError.invalidModel(location, "the composite has two elements named '\(element.name)'")
            }
            composite.elements.append(element)
        }
        return composite
    }

    private func relationship(_ object: ArchivedObject, location: ModelFileLocation) throws -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        var destination = try object.string("_NSDestinationEntityName")
        if destination == nil, let destinationObject = try object.object("NSDestinationEntity") {
            destination = try destinationObject.string("NSEntityName")
        }
        guard let destination else {
            throw ModelFileError.corrupt(location, "the relationship has no destination entity")
        }
        relationship.destinationEntityName = destination
        var inverse = try object.string("_NSInverseRelationshipName")
        if inverse == nil, let inverseObject = try object.object("NSInverseRelationship") {
            inverse = try inverseObject.string("NSPropertyName")
        }
        relationship.inverseRelationshipName = inverse
        relationship.minCount = max(0, try object.integer("NSMinCount") ?? 0)
        let maxCount = try object.integer("NSMaxCount") ?? 1
        // Apple archives an `Int.max` maximum as a 32-bit -1.
        relationship.maxCount = maxCount < 0 ? Int.max : maxCount
        let rule = try object.integer("NSDeleteRule") ?? 1
        guard rule >= 0, let deleteRule = NSDeleteRule(rawValue: UInt(rule)) else {
            throw ModelFileError.corrupt(location, "unknown delete rule \(rule)")
        }
        relationship.deleteRule = deleteRule
        relationship.isOrdered = try object.bool("NSIsOrdered") ?? false
        return relationship
    }

    private func validationRules(_ object: ArchivedObject, location: ModelFileLocation) throws -> [(predicate: NSPredicate, warning: String)] {
        let predicates = try object.elements("NSValidationPredicates")
        guard !predicates.isEmpty else { return [] }
        let warnings = try object.elements("NSValidationWarnings")
        var rules: [(predicate: NSPredicate, warning: String)] = []
        for (offset, value) in predicates.enumerated() {
            guard case .object(let archived) = value,
                  let predicate = ModelPredicates.archivedPredicate(try? formatter.predicate(archived), location: location)
            else { continue }
            let warning = offset < warnings.count ? (warnings[offset].stringValue ?? "") : ""
            rules.append((predicate, warning))
        }
        return rules
    }

    // MARK: - Fetch requests

    func fetchRequest(_ object: ArchivedObject, location: ModelFileLocation) throws -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        if let entityObject = try object.object("NSEntity") {
            if let entityName = try entityObject.string("NSEntityName") { request.setEntityName(entityName) }
        } else if let entityName = try object.string("NSEntityName") {
            request.setEntityName(entityName)
        }
        if let predicate = try object.object("NSPredicate") {
            request.predicate = ModelPredicates.archivedPredicate(try? formatter.predicate(predicate), location: location)
        }
        let sortDescriptors = try object.elements("NSSortDescriptors").compactMap { value -> NSSortDescriptor? in
            guard case .object(let descriptor) = value, let key = try descriptor.string("NSKey") else { return nil }
            let ascending = try descriptor.bool("NSAscending") ?? true
            guard let selector = try descriptor.string("NSSelector"), selector != "compare:" else {
                return NSSortDescriptor(key: key, ascending: ascending)
            }
            return NSSortDescriptor(key: key, ascending: ascending, selector: Selector(selector))
        }
        if !sortDescriptors.isEmpty { request.sortDescriptors = sortDescriptors }
        request.fetchLimit = max(0, try object.integer("NSFetchLimit") ?? 0)
        request.fetchOffset = max(0, try object.integer("NSFetchOffset") ?? 0)
        request.fetchBatchSize = max(0, try object.integer("NSBatchSize") ?? 0)
        if let resultType = try object.integer("NSResultType"), resultType >= 0 {
            request.resultType = NSFetchRequestResultType(rawValue: UInt(resultType))
        }
        return request
    }
}
