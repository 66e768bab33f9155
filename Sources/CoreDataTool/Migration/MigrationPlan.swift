import Foundation
import OpenCoreData

/// What `coredata store migrate` does to a store: the model the store was written with (found as
/// automatic migration finds it), the destination model, and the mapping between them, inferred
/// by lightweight migration's rules or read from a mapping model.
///
/// Built from a read-only look at the store: making a plan never changes a file.
struct MigrationPlan {
    /// Where the mapping comes from.
    enum MappingSource {
        /// `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`.
        case inferred
        /// A mapping model file given with `--mapping`.
        case file(String)
    }

    let storePath: String
    /// The model the store was written with; nil when the store already matches the destination.
    let sourceModel: NSManagedObjectModel?
    let sourceOrigin: MigrationSourceModel.Origin?
    let destination: ResolvedModel
    /// The destination's version name (`Model 2`), or its file name.
    let destinationName: String
    /// Nil when no migration is needed.
    let mapping: NSMappingModel?
    let mappingSource: MappingSource
    /// Rows of each source entity (its own, not its subentities'), by name.
    let sourceRows: [String: Int]
    /// Entity mappings made for other entity versions than the models' (a mapping model only).
    let warnings: [String]
    /// Versions of the bundle between the source and the destination, which one inferred step skips.
    let skippedVersions: [String]

    /// Whether the store's entity hashes differ from the destination model's.
    var isNeeded: Bool { mapping != nil }

    /// Whether the migration runs through a mapping model (heavyweight) rather than by inference.
    var usesMappingModel: Bool {
        if case .file = mappingSource { return true }
        return false
    }

    // MARK: - Making a plan

    /// Reads the store and the models and works out the migration.
    ///
    /// - Throws: `ToolError` for a missing or unreadable store, model or mapping model; the
    ///   library's `NSMigrationMissingSourceModelError` (134130) message when no source model is
    ///   found, and its `NSInferredMappingModelError` (134190) message, naming the entity and
    ///   property, when the change cannot be inferred.
    static func make(storePath: String, modelPath: String, mappingPath: String?) throws -> MigrationPlan {
        let destination = try ModelResolver.load(path: modelPath)
        let (bundleURL, destinationName) = versionBundle(of: modelPath, model: destination.model)
        // A version file inside a bundle (`Model.xcdatamodeld/Model 2.xcdatamodel`) still knows
        // the bundle's other versions, which are where the source model is looked for first.
        if destination.model.versionBundleURL == nil { destination.model.versionBundleURL = bundleURL }

        let file = try StoreFile(path: storePath)
        defer { file.close() }
        if let type = file.metadata[NSStoreTypeKey] as? String, type != NSSQLiteStoreType {
            throw ToolError("\(storePath) is a '\(type)' store; only SQLite stores are migrated")
        }
        let mappingSource: MappingSource = mappingPath.map { .file($0) } ?? .inferred
        // Core Data migrates only a store whose hashes differ, whatever mapping models exist.
        if destination.model.entitiesDiffering(fromStoreMetadata: file.metadata, configuration: nil).isEmpty {
            return MigrationPlan(storePath: storePath, sourceModel: nil, sourceOrigin: nil, destination: destination,
                                 destinationName: destinationName, mapping: nil, mappingSource: mappingSource, sourceRows: [:], warnings: [],
                                 skippedVersions: [])
        }
        let located: (model: NSManagedObjectModel, origin: MigrationSourceModel.Origin)
        do {
            located = try MigrationSourceModel.locate(forStoreMetadata: file.metadata, destination: destination.model,
                                                      modelCache: try file.modelCache(), url: file.url)
        } catch {
            throw ToolError("cannot migrate \(storePath): \(ToolError.describe(error))",
                            details: ["hint: pass the model bundle (.xcdatamodeld or .momd) holding the version the store was written with, or a version inside it"])
        }
        let mapping: NSMappingModel
        var warnings: [String] = []
        if let mappingPath {
            mapping = try loadMapping(mappingPath, source: located.model, destination: destination.model)
            warnings = mismatches(of: mapping, source: located.model, destination: destination.model)
        } else {
            do {
                mapping = try NSMappingModel.inferredMappingModel(forSourceModel: located.model, destinationModel: destination.model)
            } catch {
                let nsError = error as NSError
                var place: [String] = []
                if let entity = nsError.userInfo["entity"] as? String { place.append("entity \(entity)") }
                if let property = nsError.userInfo["property"] as? String { place.append("property \(property)") }
                throw ToolError("lightweight migration cannot migrate \(storePath) to \(destinationName)" + (place.isEmpty ? "" : " (\(place.joined(separator: ", ")))")
                                + ": \(ToolError.describe(error))",
                                details: ["hint: `coredata model diff` shows every change; a change that cannot be inferred needs a mapping model (--mapping)"])
            }
        }
        return MigrationPlan(storePath: storePath, sourceModel: located.model, sourceOrigin: located.origin, destination: destination,
                             destinationName: destinationName, mapping: mapping, mappingSource: mappingSource,
                             sourceRows: try rowCounts(file), warnings: warnings,
                             skippedVersions: versions(between: located.origin, and: destinationName, in: bundleURL))
    }

    /// The bundle's versions after the source's and before the destination's, in version order.
    private static func versions(between origin: MigrationSourceModel.Origin, and destination: String, in bundleURL: URL?) -> [String] {
        guard case .bundleVersion(let source, _) = origin, let bundleURL, let bundle = try? ModelBundle(url: bundleURL) else { return [] }
        let names = bundle.versions.map(\.name)
        guard let from = names.firstIndex(of: source), let to = names.firstIndex(of: destination), from + 1 < to else { return [] }
        return Array(names[(from + 1)..<to])
    }

    /// The bundle a model path belongs to and the destination's version name: a bundle's current
    /// version, a version file's own name, or the file name.
    private static func versionBundle(of path: String, model: NSManagedObjectModel) -> (URL?, String) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if let bundleURL = model.versionBundleURL, let bundle = try? ModelBundle(url: bundleURL) {
            return (bundleURL, bundle.currentVersionName)
        }
        let name = url.deletingPathExtension().lastPathComponent
        let parent = url.deletingLastPathComponent()
        if ["xcdatamodeld", "momd"].contains(parent.pathExtension), (try? ModelBundle(url: parent)) != nil {
            return (parent, name)
        }
        return (nil, name)
    }

    private static func loadMapping(_ path: String, source: NSManagedObjectModel, destination: NSManagedObjectModel) throws -> NSMappingModel {
        guard FileManager.default.fileExists(atPath: path) else { throw ToolError("no mapping model at \(path)") }
        do {
            // Xcode's source form names its models by project paths; the plan's models replace them.
            return try NSMappingModel.load(from: URL(fileURLWithPath: path), sourceModel: source, destinationModel: destination)
        } catch {
            throw ToolError("cannot load the mapping model \(path): \(ToolError.describe(error))")
        }
    }

    /// Entity mappings whose recorded entity versions are not the models': the mapping model was
    /// made for other versions (Core Data would not pick it for these models).
    private static func mismatches(of mapping: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel) -> [String] {
        var warnings: [String] = []
        for entityMapping in mapping.entityMappings ?? [] {
            let name = entityMapping.name ?? "?"
            for (role, entityName, hash, model) in [("source", entityMapping.sourceEntityName, entityMapping.sourceEntityVersionHash, source),
                                                    ("destination", entityMapping.destinationEntityName, entityMapping.destinationEntityVersionHash, destination)] {
                guard let entityName else { continue }
                guard let entity = model.entitiesByName[entityName] else {
                    warnings.append("entity mapping \(name): the \(role) model has no entity \(entityName)")
                    continue
                }
                if let hash, hash != entity.versionHash {
                    warnings.append("entity mapping \(name) was made for another version of the \(role) entity \(entityName)")
                }
            }
        }
        return warnings
    }

    /// Each source entity's own rows, by its `Z_PRIMARYKEY` name.
    private static func rowCounts(_ file: StoreFile) throws -> [String: Int] {
        let rows = try file.entityRows()
        let tables = try file.tableNames()
        var counts: [String: Int] = [:]
        for row in rows {
            guard let table = StoreFile.tableName(forEntityNumber: row.number, in: rows, tables: tables), tables.contains(table) else { continue }
            counts[row.name] = try file.rowCount(table: table, entityNumber: row.number)
        }
        return counts
    }

    // MARK: - Descriptions

    /// `version 'Model 2' of Model.xcdatamodeld`, or the store's model cache.
    var sourceDescription: String {
        switch sourceOrigin {
        case .bundleVersion(let name, let url)?: "version '\(name)' of \(url.deletingLastPathComponent().path)"
        case .modelCache?: "the store's own model (Z_MODELCACHE)"
        case nil: "none (the store already matches the model)"
        }
    }

    /// The source's short name for the steps: its version name, or `Z_MODELCACHE`.
    var sourceName: String {
        switch sourceOrigin {
        case .bundleVersion(let name, _)?: name
        case .modelCache?: "Z_MODELCACHE"
        case nil: "-"
        }
    }

    var mappingDescription: String {
        switch mappingSource {
        case .inferred: "inferred (lightweight migration)"
        case .file(let path): "mapping model \(path)"
        }
    }
}
