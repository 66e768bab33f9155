import Foundation
import OpenCoreData

extension MigrationPlan {
    // MARK: - Text

    /// The plan as text: source and destination, the steps, the entity mappings with their types
    /// and row counts, and each entity mapping's property mappings.
    func text() -> String {
        var lines: [(String, String)] = [("Store", storePath), ("Source model", sourceDescription),
                                         ("Destination model", "\(destinationName) (\(destination.originDescription))")]
        if isNeeded { lines.append(("Mapping", mappingDescription)) }
        let width = lines.map(\.0.count).max() ?? 0
        var text = lines.map { $0.0 + ":" + String(repeating: " ", count: width - $0.0.count + 1) + $0.1 }.joined(separator: "\n") + "\n"
        guard let mapping else {
            return text + "\nThe store already matches the model: nothing to migrate.\n"
        }
        text += "\nSteps:\n"
        for (index, step) in steps.enumerated() {
            text += "  \(index + 1). \(step.from) → \(step.to): \(step.how)\n"
        }
        if !skippedVersions.isEmpty {
            text += "  (straight to \(destinationName), as Core Data's automatic migration does: the versions between, "
                + skippedVersions.map { "'\($0)'" }.joined(separator: ", ") + ", are not passed through; migrating through each is not planned yet)\n"
        }
        let mappings = mapping.entityMappings ?? []
        text += "\nEntity mappings:\n"
        var table = TextTable(headers: ["mapping", "type", "source", "rows", "destination", "policy"])
        for entityMapping in mappings {
            table.append([entityMapping.name ?? "?", Self.typeName(entityMapping.mappingType), entityMapping.sourceEntityName ?? "-",
                          entityMapping.sourceEntityName.map { sourceRows[$0].map(String.init) ?? "0" } ?? "-",
                          entityMapping.destinationEntityName ?? "-", entityMapping.entityMigrationPolicyClassName ?? ""])
        }
        text += Self.indent(table.render())
        text += "\nProperty mappings:\n"
        for entityMapping in mappings {
            let properties = (entityMapping.attributeMappings ?? []) + (entityMapping.relationshipMappings ?? [])
            guard !properties.isEmpty else { continue }
            text += "  \(entityMapping.name ?? "?")\n"
            for property in properties {
                text += "    \(property.name ?? "?") = \(Self.expressionText(property, in: entityMapping))\n"
            }
        }
        if !warnings.isEmpty {
            text += "\nWarnings:\n" + warnings.map { "  \($0)\n" }.joined()
        }
        return text
    }

    /// One step per model version passed through; migrations run in one step today.
    var steps: [(from: String, to: String, how: String)] {
        guard isNeeded else { return [] }
        let how: String
        switch mappingSource {
        case .inferred: how = "inferred mapping (lightweight migration, in place in one SQLite transaction)"
        case .file(let path): how = "mapping model \(path) (heavyweight migration through NSMigrationManager)"
        }
        return [(sourceName, destinationName, how)]
    }

    /// A property mapping's value: its expression, or what an empty one means.
    static func expressionText(_ property: NSPropertyMapping, in entityMapping: NSEntityMapping) -> String {
        if let expression = property.valueExpression { return expression.description }
        return entityMapping.mappingType == .addEntityMappingType || entityMapping.sourceEntityName == nil
            ? "nil (new entity: default value)" : "nil (new property: default value)"
    }

    static func typeName(_ type: NSEntityMappingType) -> String {
        switch type {
        case .undefinedEntityMappingType: "undefined"
        case .customEntityMappingType: "custom"
        case .addEntityMappingType: "add"
        case .removeEntityMappingType: "remove"
        case .copyEntityMappingType: "copy"
        case .transformEntityMappingType: "transform"
        }
    }

    private static func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
    }

    // MARK: - JSON

    /// The plan as JSON (`--json`).
    func json() -> JSONObject {
        var root = JSONObject()
        root["store"] = .string(storePath)
        root["needed"] = .bool(isNeeded)
        var source = JSONObject()
        source["description"] = .string(sourceDescription)
        switch sourceOrigin {
        case .bundleVersion(let name, let url)?:
            source["origin"] = .string("bundle")
            source["version"] = .string(name)
            source["path"] = .string(url.path)
        case .modelCache?:
            source["origin"] = .string("modelCache")
        case nil:
            source["origin"] = .null
        }
        root["sourceModel"] = .object(source)
        root["destinationModel"] = .object(JSONObject([("version", .string(destinationName)), ("path", .string(destination.originDescription))]))
        switch mappingSource {
        case .inferred: root["mapping"] = .object(JSONObject([("kind", .string("inferred"))]))
        case .file(let path): root["mapping"] = .object(JSONObject([("kind", .string("mappingModel")), ("path", .string(path))]))
        }
        root["skippedVersions"] = .array(skippedVersions.map(JSONValue.string))
        root["steps"] = .array(steps.map { .object(JSONObject([("from", .string($0.from)), ("to", .string($0.to)), ("how", .string($0.how))])) })
        root["entityMappings"] = .array((mapping?.entityMappings ?? []).map(entityMappingJSON))
        root["warnings"] = .array(warnings.map(JSONValue.string))
        return root
    }

    private func entityMappingJSON(_ mapping: NSEntityMapping) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(mapping.name ?? "")
        object["type"] = .string(Self.typeName(mapping.mappingType))
        object["source"] = mapping.sourceEntityName.map(JSONValue.string) ?? .null
        object["sourceRows"] = mapping.sourceEntityName.map { .integer(sourceRows[$0] ?? 0) } ?? .null
        object["destination"] = mapping.destinationEntityName.map(JSONValue.string) ?? .null
        object["policy"] = mapping.entityMigrationPolicyClassName.map(JSONValue.string) ?? .null
        func properties(_ list: [NSPropertyMapping]?) -> JSONValue {
            .array((list ?? []).map { property in
                .object(JSONObject([("name", .string(property.name ?? "")),
                                    ("valueExpression", property.valueExpression.map { .string($0.description) } ?? .null)]))
            })
        }
        object["attributeMappings"] = properties(mapping.attributeMappings)
        object["relationshipMappings"] = properties(mapping.relationshipMappings)
        return .object(object)
    }
}
