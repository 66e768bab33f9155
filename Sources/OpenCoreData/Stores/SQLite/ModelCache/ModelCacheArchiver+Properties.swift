import Foundation

// MARK: - Properties

extension ModelCacheEncoder {
    /// Identifies a property as listed by one entity: a subentity archives its inherited
    /// properties as objects of its own (their `NSEntity` is the subentity), as Apple does.
    private struct PropertyInEntity: Hashable {
        let property: ObjectIdentifier
        let entity: ObjectIdentifier
    }

    static let attributeClasses = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
    static let derivedAttributeClasses = ["NSDerivedAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject"]
    static let compositeAttributeClasses = ["NSCompositeAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject"]
    static let relationshipClasses = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
    static let fetchedPropertyClasses = ["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"]

    /// `NSFlagsKey` bit for `preservesValueInHistoryOnDeletion` (16 on the one such attribute in the fixtures).
    static let preservesValueInHistoryFlag: Int64 = 0x10

    /// The property as archived in `entity`'s `NSProperties`.
    func property(_ property: NSPropertyDescription, in entity: NSEntityDescription) -> PropertyListValue {
        let classes: [String]
        switch property {
        case is NSDerivedAttributeDescription: classes = Self.derivedAttributeClasses
        case is NSCompositeAttributeDescription: classes = Self.compositeAttributeClasses
        case is NSAttributeDescription: classes = Self.attributeClasses
        case is NSRelationshipDescription: classes = Self.relationshipClasses
        default: classes = Self.fetchedPropertyClasses
        }
        let identity = PropertyInEntity(property: ObjectIdentifier(property), entity: ObjectIdentifier(entity))
        return writer.object(identity: identity, classes: classes) { writer in
            var fields: [(String, PropertyListValue)] = [
                ("NSPropertyName", writer.string(property.name)),
                ("NSEntity", writer.reference(for: entity)),
                ("NSRenamingIdentifier", writer.string(property.renamingIdentifier ?? property.name)),
                ("_P", .integer(Self.privateFlags(of: property))),
            ]
            if property.isOptional { fields.append(("NSIsOptional", .bool(true))) }
            if property.isTransient { fields.append(("NSIsTransient", .bool(true))) }
            if property.isReadOnly { fields.append(("NSIsReadOnly", .bool(true))) }
            if property.isIndexed { fields.append(("NSIsIndexed", .bool(true))) }
            if property.isIndexedBySpotlight { fields.append(("NSIsIndexedBySpotlight", .bool(true))) }
            if let modifier = property.versionHashModifier { fields.append(("NSVersionHashModifier", writer.string(modifier))) }
            if let info = property.userInfo, !info.isEmpty { fields.append(("NSUserInfo", self.userInfo(info))) }
            let rules = self.validationRules(of: property)
            if !rules.predicates.isEmpty {
                fields.append(("NSValidationPredicates", writer.array(rules.predicates)))
                fields.append(("NSValidationWarnings", writer.array(rules.warnings)))
            }
            switch property {
            case let attribute as NSAttributeDescription:
                fields += self.attributeFields(attribute)
                if let composite = attribute as? NSCompositeAttributeDescription {
                    // Elements are archived as attributes of the owning entity (wave3-research §5).
                    fields.append(("NSCompositeElements", writer.array(composite.elements.map { self.property($0, in: entity) })))
                }
            case let relationship as NSRelationshipDescription:
                fields += self.relationshipFields(relationship)
            case let fetched as NSFetchedPropertyDescription:
                if let request = fetched.fetchRequest {
                    fields.append(("NSFetchRequest", self.fetchRequest(request, model: entity.managedObjectModel)))
                    fields.append(("_NSFetchRequestEntityName", writer.string(request.entityName)))
                }
            default:
                break
            }
            return fields
        }
    }

    /// Apple's private `_P` bits as observed on every property in the fixtures: 0x01 and 0x80
    /// always, 0x02 optional, 0x04 read-only, 0x08 transient, 0x30 when there are no validation
    /// rules, 0x40 when there is no `userInfo`. (241 a plain attribute, 243 optional, 247 derived,
    /// 193 validated, 255/191 fetched without/with user info.)
    static func privateFlags(of property: NSPropertyDescription) -> Int64 {
        var flags: Int64 = 0x81
        if property.isOptional { flags |= 0x02 }
        if property.isReadOnly { flags |= 0x04 }
        if property.isTransient { flags |= 0x08 }
        if property.validationPredicates.isEmpty { flags |= 0x30 }
        if property.userInfo?.isEmpty ?? true { flags |= 0x40 }
        return flags
    }

    private func validationRules(of property: NSPropertyDescription) -> (predicates: [PropertyListValue], warnings: [PropertyListValue]) {
        var predicates: [PropertyListValue] = []
        var warnings: [PropertyListValue] = []
        for (offset, rule) in property.validationPredicates.enumerated() {
            guard let archived = predicate(rule.node) else {
                Log.store.warning("Z_MODELCACHE: the validation predicate '\(rule.predicateFormat)' of \(property.name) has no archived form; left out")
                continue
            }
            predicates.append(archived)
            let warning = offset < property.validationWarnings.count ? property.validationWarnings[offset] : ""
            warnings.append(writer.foundationValue(warning) ?? writer.string(""))
        }
        return (predicates, warnings)
    }

    private func attributeFields(_ attribute: NSAttributeDescription) -> [(String, PropertyListValue)] {
        var fields: [(String, PropertyListValue)] = [
            ("NSAttributeType", .integer(Int64(attribute.attributeType.rawValue))),
            ("NSAttributeValueClassName", writer.string(attribute.attributeValueClassName)),
            ("NSDefaultValue", defaultValue(of: attribute)),
            ("NSValueTransformerName", writer.string(attribute.valueTransformerName)),
            ("NSFlagsKey", .integer(attribute.preservesValueInHistoryOnDeletion ? Self.preservesValueInHistoryFlag : 0)),
        ]
        // No Apple archive in the fixtures shows this flag; OpenCoreData's own key (docs/Deviations.md).
        if attribute.allowsExternalBinaryDataStorage { fields.append(("NSAllowsExternalBinaryDataStorage", .bool(true))) }
        if let derived = attribute as? NSDerivedAttributeDescription {
            let expression = derived.derivationExpression.flatMap { self.expression($0.node) }
            if derived.derivationExpression != nil, expression == nil {
                Log.store.warning("Z_MODELCACHE: the derivation of \(attribute.name) has no archived form; left out")
            }
            fields.append(("NSDerivationExpression", expression ?? KeyedArchiveWriter.null))
            fields.append(("NSFilteringPredicate", KeyedArchiveWriter.null))
        }
        return fields
    }

    /// The default value in its archived class: booleans as booleans (an `NSNumber` holding
    /// one is indistinguishable from an integer on Linux), anything else as Foundation archives it.
    private func defaultValue(of attribute: NSAttributeDescription) -> PropertyListValue {
        guard let value = attribute.defaultValue else { return KeyedArchiveWriter.null }
        if attribute.attributeType == .booleanAttributeType, let number = writer.number(value) {
            switch number {
            case .integer(let integer): return writer.primitive(.bool(integer != 0))
            case .real(let real): return writer.primitive(.bool(real != 0))
            default: break
            }
        }
        return writer.foundationValue(value) ?? KeyedArchiveWriter.null
    }

    private func relationshipFields(_ relationship: NSRelationshipDescription) -> [(String, PropertyListValue)] {
        let destination = relationship.destinationEntity
        let inverse = relationship.inverseRelationship
        // Apple archives an unbounded (`Int.max`) maximum as a 32-bit -1.
        let maxCount = relationship.maxCount > Int(Int32.max) ? -1 : Int64(relationship.maxCount)
        var fields: [(String, PropertyListValue)] = [
            ("NSDestinationEntity", destination.map { writer.reference(for: $0) } ?? KeyedArchiveWriter.null),
            ("_NSDestinationEntityName", writer.string(destination?.name ?? relationship.destinationEntityName)),
            ("NSInverseRelationship", inverse.flatMap { inverse in destination.map { property(inverse, in: $0) } } ?? KeyedArchiveWriter.null),
            ("_NSInverseRelationshipName", writer.string(inverse?.name ?? relationship.inverseRelationshipName)),
            ("NSMinCount", .integer(Int64(relationship.minCount))),
            ("NSMaxCount", .integer(maxCount)),
            ("NSDeleteRule", .integer(Int64(relationship.deleteRule.rawValue))),
        ]
        if relationship.isOrdered { fields.append(("NSIsOrdered", .bool(true))) }
        return fields
    }

    // MARK: Fetch indexes

    func fetchIndex(_ index: NSFetchIndexDescription, in entity: NSEntityDescription) -> PropertyListValue {
        writer.object(for: index, classes: ["NSFetchIndexDescription", "NSObject"]) { writer in
            // The index's own UID, reserved before this closure runs: its elements point back to it.
            let indexReference = writer.reference(for: index)
            let elements = index.elements.map { element in
                writer.object(classes: ["NSFetchIndexElementDescription", "NSObject"], fields: [
                    ("NSPropertyName", writer.string(element.propertyName ?? element.property?.name)),
                    ("NSFetchIndexElementType", .integer(Int64(element.collationType.rawValue))),
                    ("NSAscending", .bool(element.isAscending)),
                    ("NSFetchIndexDescription", indexReference),
                ])
            }
            return [
                ("NSIndexName", writer.string(index.name)),
                ("NSIndexElements", writer.array(elements, classes: KeyedArchiveWriter.Classes.mutableArray)),
                ("NSEntity", writer.reference(for: entity)),
                ("NSPartialIndexPredicate", index.partialIndexPredicate.flatMap { self.predicate($0.node) } ?? KeyedArchiveWriter.null),
            ]
        }
    }

    // MARK: Fetch requests

    /// A fetch request (a template or a fetched property's), with the keys Apple archives.
    func fetchRequest<Result>(_ request: NSFetchRequest<Result>, model: NSManagedObjectModel?) -> PropertyListValue {
        let entity = request.entity ?? request.entityName.flatMap { model?.entitiesByName[$0] }
        var predicate = KeyedArchiveWriter.null
        if let requestPredicate = request.predicate {
            if let archived = self.predicate(requestPredicate.node) {
                predicate = archived
            } else {
                Log.store.warning("Z_MODELCACHE: the fetch predicate '\(requestPredicate.predicateFormat)' has no archived form; left out")
            }
        }
        var sorts = KeyedArchiveWriter.null
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty {
            sorts = writer.array(descriptors.compactMap { descriptor in
                guard let key = descriptor.key else { return nil }
                return writer.object(classes: ["NSSortDescriptor", "NSObject"], fields: [
                    ("NSKey", writer.string(key)),
                    ("NSAscending", .bool(descriptor.ascending)),
                    ("NSSelector", writer.string(descriptor.selector?.description ?? "compare:")),
                    ("NSReverseNullOrder", .bool(false)),
                ])
            })
        }
        var fields: [(String, PropertyListValue)] = [
            ("NSEntity", entity.map { writer.reference(for: $0) } ?? KeyedArchiveWriter.null),
            ("NSPredicate", predicate),
            ("NSSortDescriptors", sorts),
            ("NSFetchLimit", .integer(Int64(request.fetchLimit))),
            ("NSFetchOffset", .integer(Int64(request.fetchOffset))),
            ("NSBatchSize", .integer(Int64(request.fetchBatchSize))),
            ("NSResultType", .integer(Int64(request.resultType.rawValue))),
            ("NSValuesToFetch", KeyedArchiveWriter.null),
            ("NSValuesToGroupBy", KeyedArchiveWriter.null),
            ("NSHavingPredicate", KeyedArchiveWriter.null),
            ("NSRelationshipKeyPathsForPrefetching", KeyedArchiveWriter.null),
            ("NSAllocationType", .integer(0)),
        ]
        if entity == nil, let name = request.entityName { fields.append(("NSEntityName", writer.string(name))) }
        return writer.object(classes: ["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"], fields: fields)
    }
}
