import Foundation

/// Reads a compiled mapping model (`.cdm`): an `NSKeyedArchiver` archive of an `NSMappingModel`.
///
/// Classes and keys, as observed in Apple-compiled files (shared/docs/wave2-research.md §0.2):
/// `NSMappingModel` (`NSEntityMappings`, an array in processing order; `NSEntityMappingsByName`),
/// `NSEntityMapping` (`NSMappingName`, `NSMappingType`, `NSSourceEntityName`,
/// `NSSourceEntityVersionHash`, `NSDestinationEntityName`, `NSDestinationEntityVersionHash`,
/// `NSSourceExpression`, `NSAttributeMappings`, `NSRelationshipMappings`,
/// `NSEntityMigrationPolicyClassName`, `NSUserInfo`) and `NSPropertyMapping`
/// (`NSDestinationPropertyName`, `NSValueExpression`, `NSUserInfo`; `NSPropertyTransforms` is
/// always `$null` in the evidence and is not read). The archive is read by ``KeyedArchive``, so
/// every access is bounds- and type-checked.
struct MappingArchiveReader {
    let location: ModelFileLocation
    let expressions = MappingExpressionReader()

    init(url: URL?) {
        location = ModelFileLocation(url: url)
    }

    /// The mapping model archived in `data`.
    func read(_ data: Data) throws -> NSMappingModel {
        let archive = try KeyedArchive(data: data, location: location)
        let root = try archive.root()
        guard root.isKind(of: "NSMappingModel") else {
            throw MappingModelFailure.corrupt("the archive holds a \(root.className), not an NSMappingModel")
        }
        var objects: [ArchivedObject] = []
        for value in try root.elements("NSEntityMappings") {
            guard case .object(let object) = value else {
                throw MappingModelFailure.corrupt("NSMappingModel.NSEntityMappings holds something that is not an entity mapping")
            }
            objects.append(object)
        }
        if objects.isEmpty {
            // No ordered list: fall back to the dictionary, in name order.
            var byName: [(String, ArchivedObject)] = []
            for entry in try root.entries("NSEntityMappingsByName") {
                guard case .object(let object) = entry.value else {
                    throw MappingModelFailure.corrupt("NSMappingModel.NSEntityMappingsByName holds something that is not an entity mapping")
                }
                byName.append((entry.key.stringValue ?? "", object))
            }
            objects = byName.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let model = NSMappingModel()
        var names = Set<String>()
        model.entityMappings = try objects.map { object in
            let mapping = try entityMapping(object)
            guard names.insert(mapping.name).inserted else {
                throw MappingModelFailure.corrupt("two entity mappings are named '\(mapping.name ?? "")'")
            }
            return mapping
        }
        return model
    }

    // MARK: - Entity mappings

    private func entityMapping(_ object: ArchivedObject) throws -> NSEntityMapping {
        guard object.isKind(of: "NSEntityMapping") else {
            throw MappingModelFailure.corrupt("an entity mapping is a \(object.className), not an NSEntityMapping")
        }
        guard let name = try object.string("NSMappingName"), !name.isEmpty else {
            throw MappingModelFailure.corrupt("an entity mapping has no NSMappingName")
        }
        let context = "entity mapping '\(name)'"
        let mapping = NSEntityMapping()
        mapping.name = name
        let rawType = try object.integer("NSMappingType") ?? 0
        guard rawType >= 0, let type = NSEntityMappingType(rawValue: UInt(rawType)) else {
            throw MappingModelFailure.corrupt("\(context) has the unknown mapping type \(rawType)")
        }
        mapping.mappingType = type
        mapping.sourceEntityName = try object.string("NSSourceEntityName")
        mapping.destinationEntityName = try object.string("NSDestinationEntityName")
        mapping.sourceEntityVersionHash = try data(object, "NSSourceEntityVersionHash")
        mapping.destinationEntityVersionHash = try data(object, "NSDestinationEntityVersionHash")
        try MappingModelValidation.checkEntities(mapping, context: context)
        if let source = try object.object("NSSourceExpression") {
            mapping.sourceExpression = try expressions.expression(source, context: "the source expression of \(context)")
        }
        mapping.entityMigrationPolicyClassName = try object.string("NSEntityMigrationPolicyClassName")
        mapping.userInfo = try userInfo(object)
        mapping.attributeMappings = try propertyMappings(object, "NSAttributeMappings", context: context)
        mapping.relationshipMappings = try propertyMappings(object, "NSRelationshipMappings", context: context)
        return mapping
    }

    /// A version hash: inline data or an archived `NSData`; nil when absent.
    private func data(_ object: ArchivedObject, _ key: String) throws -> Data? {
        switch try object.value(key) {
        case .null: return nil
        case .data(let data): return data
        case .object(let archived):
            if let data = try archived.foundationValue(depth: 2) as? Data { return data }
            throw object.typeError(key, "data")
        default: throw object.typeError(key, "data")
        }
    }

    private func userInfo(_ object: ArchivedObject) throws -> [AnyHashable: Any]? {
        guard case .object = try object.value("NSUserInfo") else { return nil }
        var info: [AnyHashable: Any] = [:]
        for entry in try object.entries("NSUserInfo") {
            guard let key = try entry.key.foundationValue() as? AnyHashable, let value = try entry.value.foundationValue() else { continue }
            info[key] = value
        }
        return info
    }

    // MARK: - Property mappings

    private func propertyMappings(_ object: ArchivedObject, _ key: String, context: String) throws -> [NSPropertyMapping]? {
        if case .null = try object.value(key) { return nil }
        var names = Set<String>()
        return try object.elements(key).map { value in
            guard case .object(let archived) = value, archived.isKind(of: "NSPropertyMapping") else {
                throw MappingModelFailure.corrupt("\(key) of \(context) holds something that is not a property mapping")
            }
            guard let name = try archived.string("NSDestinationPropertyName") ?? archived.string("NSPropertyName"), !name.isEmpty else {
                throw MappingModelFailure.corrupt("a property mapping of \(context) has no NSDestinationPropertyName")
            }
            guard names.insert(name).inserted else {
                throw MappingModelFailure.corrupt("\(context) maps property '\(name)' twice")
            }
            let mapping = NSPropertyMapping()
            mapping.name = name
            if let expression = try archived.object("NSValueExpression") {
                mapping.valueExpression = try expressions.expression(expression, context: "the value expression of property mapping '\(name)' of \(context)")
            }
            mapping.userInfo = try userInfo(archived)
            return mapping
        }
    }
}

// MARK: - Validation

/// Consistency rules both mapping model readers apply.
enum MappingModelValidation {
    /// An add mapping needs a destination, a remove mapping a source, the others both.
    static func checkEntities(_ mapping: NSEntityMapping, context: String) throws {
        let hasSource = !(mapping.sourceEntityName ?? "").isEmpty
        let hasDestination = !(mapping.destinationEntityName ?? "").isEmpty
        switch mapping.mappingType {
        case .addEntityMappingType:
            guard hasDestination else { throw MappingModelFailure.corrupt("\(context) adds instances but names no destination entity") }
        case .removeEntityMappingType:
            guard hasSource else { throw MappingModelFailure.corrupt("\(context) removes instances but names no source entity") }
        case .undefinedEntityMappingType, .customEntityMappingType:
            // A custom policy may create instances from nothing or consume them without a destination.
            guard hasSource || hasDestination else { throw MappingModelFailure.corrupt("\(context) names neither a source nor a destination entity") }
        case .copyEntityMappingType, .transformEntityMappingType:
            guard hasSource, hasDestination else {
                throw MappingModelFailure.corrupt("\(context) needs both a source and a destination entity")
            }
        }
    }
}
