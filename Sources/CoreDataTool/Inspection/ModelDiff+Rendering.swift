import Foundation

extension ModelDiff {
    // MARK: - Text

    /// The diff as text: one block per changed entity, `+`/`-`/`~` lines per property, the
    /// unchanged entities in one line, then the lightweight-migration verdict.
    func text() -> String {
        var text = "Old: \(old.originDescription)\nNew: \(new.originDescription)\n\n"
        let counts = [Change.added, .removed, .renamed, .changed, .unchanged].map { change in
            "\(entities.filter { $0.change == change }.count) \(change.rawValue)"
        }
        text += "Entities: " + counts.joined(separator: ", ") + "\n"
        for entity in entities where entity.change != .unchanged {
            text += "\n" + entityText(entity)
        }
        let unchanged = entities.filter { $0.change == .unchanged }.map(\.name)
        if !unchanged.isEmpty { text += "\nUnchanged: " + unchanged.joined(separator: ", ") + "\n" }
        text += "\n" + inferenceText()
        return text
    }

    private func entityText(_ entity: EntityDiff) -> String {
        var head: String
        switch entity.change {
        case .added: head = "+ \(entity.name)  added"
        case .removed: head = "- \(entity.name)  removed"
        case .renamed: head = "~ \(entity.oldName ?? "?") → \(entity.name)  renamed (renaming identifier '\(entity.oldName ?? "?")')"
        default: head = "~ \(entity.name)  changed"
        }
        if let summary = entity.summary { head += " (\(summary))" }
        if let oldHash = entity.oldHash, let newHash = entity.newHash, oldHash != newHash {
            head += "; version hash \(Self.shortHash(oldHash)) → \(Self.shortHash(newHash))"
        }
        var lines = [head]
        for difference in entity.differences {
            lines.append("    \(difference.what): \(difference.old) → \(difference.new)")
        }
        for property in entity.properties {
            lines.append("    " + propertyText(property))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func propertyText(_ property: PropertyDiff) -> String {
        let changes = property.differences.map { "\($0.what) \($0.old) → \($0.new)" }
        switch property.change {
        case .added:
            return "+ \(property.kind) \(property.name)" + (property.summary.map { " (\($0))" } ?? "")
        case .removed:
            return "- \(property.kind) \(property.name)"
        case .renamed:
            return "~ \(property.kind) \(property.oldName ?? "?") → \(property.name) (renamed)" + (changes.isEmpty ? "" : ": " + changes.joined(separator: "; "))
        default:
            return "~ \(property.kind) \(property.name): " + changes.joined(separator: "; ")
        }
    }

    private func inferenceText() -> String {
        switch inference {
        case .inferable(let mappings):
            var text = hasDifferences ? "Lightweight migration: can be inferred" : "Lightweight migration: not needed, the models' entities are the same"
            if hasDifferences, !mappings.isEmpty {
                text += " (entity mappings: " + mappings.map { "\($0.count) \($0.type)" }.joined(separator: ", ") + ")"
            }
            text += "\n"
            for limitation in storeLimitations {
                text += "  note: OpenCoreData's SQLite store does not migrate this yet: \(limitation) (docs/Migration.md)\n"
            }
            return text
        case .notInferable(let code, let reason, let entity, let property):
            var place: [String] = []
            if let entity { place.append("entity \(entity)") }
            if let property { place.append("property \(property)") }
            return "Lightweight migration: cannot be inferred (error \(code)" + (place.isEmpty ? "" : "; " + place.joined(separator: ", ")) + ")\n  \(reason)\n"
        }
    }

    /// The first 16 hex digits of a version hash: enough to tell versions apart in a terminal.
    static func shortHash(_ hash: Data) -> String {
        String(HashesReport.hex(hash).prefix(16)) + "…"
    }

    // MARK: - JSON

    /// The diff as JSON (`--json`).
    func json() -> JSONValue {
        var root = JSONObject()
        root["old"] = .string(old.originDescription)
        root["new"] = .string(new.originDescription)
        root["identical"] = .bool(!hasDifferences)
        root["entities"] = .array(entities.map(entityJSON))
        var verdict = JSONObject()
        switch inference {
        case .inferable(let mappings):
            verdict["inferable"] = .bool(true)
            verdict["entityMappings"] = .object(JSONObject(mappings.map { ($0.type, JSONValue.integer($0.count)) }))
            verdict["storeLimitations"] = .array(storeLimitations.map(JSONValue.string))
        case .notInferable(let code, let reason, let entity, let property):
            verdict["inferable"] = .bool(false)
            verdict["code"] = .integer(code)
            verdict["reason"] = .string(reason)
            verdict["entity"] = entity.map(JSONValue.string) ?? .null
            verdict["property"] = property.map(JSONValue.string) ?? .null
        }
        root["lightweightMigration"] = .object(verdict)
        return .object(root)
    }

    private func entityJSON(_ entity: EntityDiff) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(entity.name)
        object["oldName"] = entity.oldName.map(JSONValue.string) ?? .null
        object["change"] = .string(entity.change.rawValue)
        object["oldVersionHash"] = entity.oldHash.map { .string($0.base64EncodedString()) } ?? .null
        object["newVersionHash"] = entity.newHash.map { .string($0.base64EncodedString()) } ?? .null
        object["differences"] = .array(entity.differences.map(Self.differenceJSON))
        object["properties"] = .array(entity.properties.map { property in
            var item = JSONObject()
            item["kind"] = .string(property.kind)
            item["name"] = .string(property.name)
            item["oldName"] = property.oldName.map(JSONValue.string) ?? .null
            item["change"] = .string(property.change.rawValue)
            item["differences"] = .array(property.differences.map(Self.differenceJSON))
            return .object(item)
        })
        return .object(object)
    }

    private static func differenceJSON(_ difference: Difference) -> JSONValue {
        .object(JSONObject([("what", .string(difference.what)), ("old", .string(difference.old)), ("new", .string(difference.new))]))
    }
}
