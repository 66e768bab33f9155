import Foundation
import OpenCoreData

/// What `coredata store info` reports about a store file.
public struct StoreInfo {
    /// How an entity of the store compares with the model.
    public enum Compatibility: String, Sendable {
        /// Same version hash in the store's metadata and the model.
        case matches
        /// Both have the entity, with different hashes.
        case differs
        /// The store records the entity; the model has none of that name.
        case notInModel = "not in model"
        /// The model has the entity; the store does not record it.
        case notInStore = "not in store"
    }

    /// One entity: its number and table in the file, its own rows, and how it compares.
    public struct Entity: Sendable {
        /// The name in `Z_PRIMARYKEY` (or in the metadata, for an entity without rows there).
        public var name: String
        /// The model entity these rows belong to when its name differs (a renamed entity,
        /// matched through `renamingIdentifier`).
        public var modelName: String?
        /// `Z_ENT`, nil for an entity only the model has.
        public var number: Int?
        public var table: String?
        /// Rows whose `Z_ENT` is this entity's (subentities' rows not included); nil without a table.
        public var rows: Int?
        /// Nil when no model could be read, and for Core Data's own entities.
        public var compatibility: Compatibility?
        /// Core Data's own bookkeeping (persistent history: `TRANSACTION`, `CHANGE`, …), not a model entity.
        public var isInternal: Bool
    }

    public var path: String
    public var metadata: [String: Any]
    /// The database and its `-wal` and `-shm` companions, with their sizes (nil when absent).
    public var files: [(name: String, size: Int64?)]
    /// Where the model came from, or nil.
    public var modelSource: String?
    /// Why no model could be read, when none was.
    public var modelProblem: String?
    public var entities: [Entity]

    /// Metadata keys Core Data itself writes; the others are the app's.
    static let coreDataKeys: Set<String> = [
        NSStoreTypeKey, NSStoreUUIDKey, NSPersistenceFrameworkVersionKey, NSStoreModelVersionHashesKey,
        NSStoreModelVersionIdentifiersKey, NSStoreModelVersionHashesVersionKey, NSStoreModelVersionHashesDigestKey,
        NSStoreModelVersionChecksumKey, "_NSAutoVacuumLevel",
    ]

    /// Reads a store: metadata, files, entities with their row counts, and the comparison with the
    /// model (`modelPath`, else the store's `Z_MODELCACHE`; without either the comparison is left out).
    static func read(path: String, modelPath: String?) throws -> StoreInfo {
        let file = try StoreFile(path: path)
        defer { file.close() }
        var resolved: ResolvedModel?
        var problem: String?
        if let modelPath {
            resolved = try ModelResolver.load(path: modelPath)
        } else {
            do {
                resolved = try ModelResolver.fromCache(of: file)
            } catch {
                problem = ToolError.describe(error)
            }
        }
        let rows = try file.entityRows()
        let tables = try file.tableNames()
        let stored = (file.metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.compactMapValues { $0 as? Data } ?? [:]
        let mine = resolved?.model.entityVersionHashesByName
        var entities: [Entity] = []
        var covered = Set<String>()
        for row in rows {
            let table = StoreFile.tableName(forEntityNumber: row.number, in: rows, tables: tables)
            var count: Int?
            if let table, tables.contains(table) { count = try file.rowCount(table: table, entityNumber: row.number) }
            // The model entity of these rows: same name, else the one renamed from it.
            var modelName: String?
            if let model = resolved?.model {
                modelName = model.entitiesByName[row.name] != nil ? row.name
                    : model.entities.first { $0.renamingIdentifier == row.name && stored[row.name] == nil }?.name
            }
            let hashName = modelName ?? row.name
            covered.insert(row.name)
            covered.insert(hashName)
            var compatibility: Compatibility?
            if let mine, stored[hashName] != nil || mine[hashName] != nil {
                compatibility = compare(hashName, stored: stored, model: mine)
            }
            entities.append(Entity(name: row.name, modelName: modelName == row.name ? nil : modelName, number: row.number,
                                   table: table, rows: count, compatibility: compatibility,
                                   isInternal: stored[row.name] == nil && stored[hashName] == nil && mine?[hashName] == nil))
        }
        for name in Set(stored.keys).union(mine.map { Array($0.keys) } ?? []).subtracting(covered).sorted() {
            entities.append(Entity(name: name, modelName: nil, number: nil, table: nil, rows: nil,
                                   compatibility: mine.map { compare(name, stored: stored, model: $0) }, isInternal: false))
        }
        return StoreInfo(path: path, metadata: file.metadata, files: StoreFile.fileSizes(of: file.url),
                         modelSource: resolved?.originDescription, modelProblem: problem, entities: entities)
    }

    private static func compare(_ name: String, stored: [String: Data], model: [String: Data]) -> Compatibility {
        switch (stored[name], model[name]) {
        case let (store?, mine?): store == mine ? .matches : .differs
        case (_?, nil): .notInModel
        case (nil, _?): .notInStore
        case (nil, nil): .notInModel
        }
    }

    /// Whether every entity matches (nil without a model).
    public var isCompatible: Bool? {
        guard modelSource != nil else { return nil }
        return entities.allSatisfy { $0.isInternal || $0.compatibility == .matches }
    }

    // MARK: - Rendering

    func text() -> String {
        var lines: [(String, String)] = [("Store", path)]
        lines.append(("Type", PropertyListJSON.text(metadata[NSStoreTypeKey])))
        lines.append(("UUID", PropertyListJSON.text(metadata[NSStoreUUIDKey])))
        if let version = metadata[NSPersistenceFrameworkVersionKey] { lines.append(("Framework version", PropertyListJSON.text(version))) }
        lines.append(("Model version identifiers", PropertyListJSON.text(metadata[NSStoreModelVersionIdentifiersKey] ?? [Any]())))
        if let version = metadata[NSStoreModelVersionHashesVersionKey] { lines.append(("Hashes version", PropertyListJSON.text(version))) }
        if let digest = metadata[NSStoreModelVersionHashesDigestKey] { lines.append(("Hashes digest", PropertyListJSON.text(digest))) }
        if let checksum = metadata[NSStoreModelVersionChecksumKey] { lines.append(("Model checksum", PropertyListJSON.text(checksum))) }
        if let vacuum = metadata["_NSAutoVacuumLevel"] { lines.append(("Auto-vacuum level", PropertyListJSON.text(vacuum))) }
        let width = lines.map(\.0.count).max() ?? 0
        var text = lines.map { $0.0 + ":" + String(repeating: " ", count: width - $0.0.count + 1) + $0.1 }.joined(separator: "\n") + "\n"

        let appKeys = metadata.keys.filter { !Self.coreDataKeys.contains($0) }.sorted()
        text += "\nApp metadata keys:" + (appKeys.isEmpty ? " none\n" : "\n")
        for key in appKeys { text += "  \(key) = \(PropertyListJSON.text(metadata[key]))\n" }

        text += "\nFiles:\n"
        let nameWidth = files.map(\.name.count).max() ?? 0
        for file in files {
            text += "  \(file.name)" + String(repeating: " ", count: nameWidth - file.name.count + 2) + (file.size.map { "\($0) bytes" } ?? "absent") + "\n"
        }

        text += "\nModel: " + (modelSource ?? "none (\(modelProblem ?? "not given"))") + "\n"
        if let compatible = isCompatible {
            let differing = entities.filter { !$0.isInternal && $0.compatibility != .matches }.map { $0.modelName ?? $0.name }
            text += compatible ? "Compatible: yes, every entity's version hash matches\n"
                : "Compatible: no (\(differing.joined(separator: ", ")))\n"
        }

        text += "\nEntities:\n"
        var table = TextTable(headers: ["entity", "Z_ENT", "table", "rows", "model"])
        for entity in entities {
            let name = entity.modelName.map { "\(entity.name) (model: \($0))" } ?? entity.name
            let status = entity.isInternal ? "Core Data's own" : entity.compatibility?.rawValue ?? "—"
            table.append([name, entity.number.map(String.init), entity.table, entity.rows.map(String.init), status])
        }
        text += table.render().split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
        return text
    }

    func json() -> JSONValue {
        var root = JSONObject()
        root["path"] = .string(path)
        root["metadata"] = PropertyListJSON.json(metadata)
        root["appMetadataKeys"] = .array(metadata.keys.filter { !Self.coreDataKeys.contains($0) }.sorted().map(JSONValue.string))
        root["files"] = .array(files.map { .object(JSONObject([("name", .string($0.name)), ("size", $0.size.map { .integer($0) } ?? .null)])) })
        root["model"] = modelSource.map(JSONValue.string) ?? .null
        if let modelProblem { root["modelProblem"] = .string(modelProblem) }
        root["compatible"] = isCompatible.map(JSONValue.bool) ?? .null
        root["entities"] = .array(entities.map { entity in
            .object(JSONObject([
                ("name", .string(entity.name)),
                ("modelEntity", .string(entity.modelName ?? entity.name)),
                ("entityNumber", entity.number.map { .integer($0) } ?? .null),
                ("table", entity.table.map(JSONValue.string) ?? .null),
                ("rows", entity.rows.map { .integer($0) } ?? .null),
                ("model", entity.isInternal ? .string("internal") : entity.compatibility.map { .string($0.rawValue) } ?? .null),
            ]))
        })
        return .object(root)
    }
}
