import Foundation
import OpenCoreData

/// Finds objects by the values of an entity's uniqueness constraints, for import's matching rule 3.
///
/// Each constraint's index is built on first use from one fetch of the entity that declares it
/// (subentities included, as they share the constraint); records the import creates are added so
/// two records with the same constrained values are reported before anything is saved.
struct ConstraintIndex {
    private let context: NSManagedObjectContext
    private var indexes: [String: [String: NSManagedObject]] = [:]

    init(context: NSManagedObjectContext) {
        self.context = context
    }

    /// The constraints of an entity that name attributes only, with the entity that declares each.
    private func constraints(of entity: NSEntityDescription) -> [(names: [String], owner: NSEntityDescription)] {
        ModelReport.constraintNames(entity).compactMap { names in
            guard !names.isEmpty, names.allSatisfy({ entity.attributesByName[$0] != nil }) else { return nil }
            var owner = entity
            while let parent = owner.superentity, ModelReport.constraintNames(parent).contains(names) { owner = parent }
            return (names, owner)
        }
    }

    private static func indexName(_ names: [String], owner: NSEntityDescription) -> String {
        (owner.name ?? "") + "|" + names.joined(separator: ",")
    }

    /// The key of some values for a constraint, or nil when one is missing or null (NULLs never conflict).
    private static func valuesKey(_ names: [String], _ values: [String: JSONValue]) -> String? {
        var parts: [JSONValue] = []
        for name in names {
            guard let value = values[name], value != .null else { return nil }
            parts.append(value)
        }
        return JSONWriter.render(.array(parts))
    }

    private mutating func index(_ names: [String], owner: NSEntityDescription) throws -> [String: NSManagedObject] {
        let name = Self.indexName(names, owner: owner)
        if let index = indexes[name] { return index }
        let request = NSFetchRequest<NSManagedObject>(entityName: owner.name ?? "")
        request.includesSubentities = true
        request.fetchBatchSize = 500
        var index: [String: NSManagedObject] = [:]
        for object in try context.fetch(request) {
            var values: [String: JSONValue] = [:]
            for attributeName in names {
                guard let attribute = object.entity.attributesByName[attributeName] else { continue }
                values[attributeName] = ValueCoding.json(object.value(forKey: attributeName), attribute: attribute)
            }
            if let key = Self.valuesKey(names, values) { index[key] = object }
        }
        indexes[name] = index
        return index
    }

    /// An object with the same values as a record for one of its entity's constraints.
    mutating func match(_ entity: NSEntityDescription, values: [(String, JSONValue)]) throws -> (object: NSManagedObject, names: [String], owner: String)? {
        let given = Dictionary(values, uniquingKeysWith: { _, last in last })
        for (names, owner) in constraints(of: entity) {
            guard let key = Self.valuesKey(names, given) else { continue }
            if let object = try index(names, owner: owner)[key] { return (object, names, owner.name ?? "?") }
        }
        return nil
    }

    /// Records an object's constrained values; two records with equal values are an error.
    mutating func add(_ object: NSManagedObject, entity: NSEntityDescription, values: [(String, JSONValue)], label: String) throws {
        let given = Dictionary(values, uniquingKeysWith: { _, last in last })
        for (names, owner) in constraints(of: entity) {
            guard let key = Self.valuesKey(names, given) else { continue }
            var index = try index(names, owner: owner)
            if let other = index[key], other !== object, other.isInserted {
                throw ToolError("\(label): has the same \(names.joined(separator: ", ")) as an earlier record (\(key)), which the uniqueness constraint of \(owner.name ?? "?") forbids")
            }
            index[key] = object
            indexes[Self.indexName(names, owner: owner)] = index
        }
    }
}
