import Foundation

/// The option of `addPersistentStore` that migrates the store through an `NSStagedMigrationManager`.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorestagedmigrationmanageroptionkey>.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// Migrates a store through a series of model versions: lightweight stages and custom stages
/// whose handlers run app code before and after their step.
///
/// The stages' models form one sequence (each lightweight stage adds its versions, each custom
/// stage its current and next version). A store opened with the manager in its options
/// (`NSPersistentStoreStagedMigrationManagerOptionKey`) migrates from its own version, found in
/// the sequence, to the end of it, one version at a time: a custom stage's step runs its
/// handlers around a lightweight migration; any other step is a lightweight migration. Each
/// step is one transaction, so a crash leaves the store at one version or the next.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsstagedmigrationmanager>.
open class NSStagedMigrationManager: NSObject {
    /// The stages, in migration order.
    public let stages: [NSMigrationStage]
    /// During a custom stage's handler: a container with the store open in the stage's current
    /// model (`willMigrateHandler`) or next model (`didMigrateHandler`); nil otherwise.
    open private(set) var container: NSPersistentContainer?

    /// Creates a manager for these stages.
    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }

    // MARK: - Migrating

    /// One step of the sequence: from a version to the next, with the custom stage that owns it.
    private struct Step {
        var from: String
        var to: String
        var custom: NSCustomMigrationStage?
    }

    /// Migrates the SQLite store at `url` from the version its metadata names to the end of the
    /// stages' sequence. `model` is the model the store is being opened with: its bundle's
    /// versions resolve the lightweight stages' checksums.
    ///
    /// - Throws: `NSMigrationError` (134110) when the stages name a version twice, a checksum no
    ///   model has, or the store's version is in none of them; any error of a step or handler
    ///   (the store then stays at the last version a step completed).
    func migrateStore(at url: URL, metadata: [String: Any], to model: NSManagedObjectModel, options: [AnyHashable: Any]?) throws {
        let sequence = try versionSequence()
        let current = try storeChecksum(metadata, model: model, url: url)
        guard let start = sequence.firstIndex(of: current) else {
            throw Self.error("The store at \(url.path) has the model version \(current), which no migration stage names (stages: \(sequence.joined(separator: ", "))).", url: url)
        }
        let steps = try self.steps(sequence)
        var models: [String: NSManagedObjectModel] = [:]
        for step in steps[start...] {
            let from = try resolve(step.from, model: model, known: &models, custom: step.custom?.currentModel)
            let to = try resolve(step.to, model: model, known: &models, custom: step.custom?.nextModel)
            if let custom = step.custom, let handler = custom.willMigrateHandler {
                try withContainer(url: url, model: from, options: options) { try handler(self, custom) }
            }
            try SQLiteStore.migrateInPlace(url: url, from: from, to: to, options: options)
            Log.store.info("Staged migration of \(url.path): \(step.from) -> \(step.to)\(step.custom?.label.map { " (\($0))" } ?? "")")
            if let custom = step.custom, let handler = custom.didMigrateHandler {
                try withContainer(url: url, model: to, options: options) { try handler(self, custom) }
            }
        }
    }

    /// The stages' versions in order, each once.
    private func versionSequence() throws -> [String] {
        var sequence: [String] = []
        func add(_ checksum: String) throws {
            if sequence.last == checksum { return }
            if sequence.contains(checksum) {
                throw Self.error("The migration stages name the model version \(checksum) more than once; each version may appear in one place of the sequence.", url: nil)
            }
            sequence.append(checksum)
        }
        for stage in stages {
            if let lightweight = stage as? NSLightweightMigrationStage {
                for checksum in lightweight.versionChecksums { try add(checksum) }
            } else if let custom = stage as? NSCustomMigrationStage {
                guard sequence.last == nil || sequence.last == custom.currentModel.versionChecksum else {
                    throw Self.error("The custom migration stage \(custom.label ?? "") starts at \(custom.currentModel.versionChecksum), which is not where the stage before it ends (\(sequence.last ?? "")).", url: nil)
                }
                try add(custom.currentModel.versionChecksum)
                try add(custom.nextModel.versionChecksum)
            }
        }
        return sequence
    }

    /// The steps between consecutive versions, each with the custom stage that owns it.
    private func steps(_ sequence: [String]) throws -> [Step] {
        var custom: [String: NSCustomMigrationStage] = [:]
        for case let stage as NSCustomMigrationStage in stages {
            custom[stage.currentModel.versionChecksum] = stage
        }
        return zip(sequence, sequence.dropFirst()).map { from, to in
            Step(from: from, to: to, custom: custom[from].flatMap { $0.nextModel.versionChecksum == to ? $0 : nil })
        }
    }

    /// The store's version checksum: recorded in its metadata, or that of the model whose
    /// version hashes it has.
    private func storeChecksum(_ metadata: [String: Any], model: NSManagedObjectModel, url: URL) throws -> String {
        if let recorded = metadata[NSStoreModelVersionChecksumKey] as? String, !recorded.isEmpty { return recorded }
        return try MigrationSourceModel.find(forStoreMetadata: metadata, destination: model, modelCache: nil, url: url).versionChecksum
    }

    /// The model with a checksum: a custom stage's reference, else a version of `model`'s bundle, else `model`.
    private func resolve(_ checksum: String, model: NSManagedObjectModel, known: inout [String: NSManagedObjectModel],
                         custom reference: NSManagedObjectModelReference?) throws -> NSManagedObjectModel {
        if let found = known[checksum] { return found }
        var resolved: NSManagedObjectModel?
        if let reference {
            guard reference.resolvedModel.versionChecksum == checksum else {
                throw Self.error("The model reference for version \(checksum) does not resolve to that version: \(reference.resolutionError ?? "its model's checksum is \(reference.resolvedModel.versionChecksum)").", url: nil)
            }
            resolved = reference.resolvedModel
        } else if model.versionChecksum == checksum {
            resolved = model
        } else if let bundleURL = model.versionBundleURL, let bundle = try? ModelBundle(url: bundleURL) {
            for version in bundle.versions {
                if let candidate = try? NSManagedObjectModel.load(contentsOf: version.url), candidate.versionChecksum == checksum {
                    resolved = candidate
                    break
                }
            }
        }
        guard let resolved else {
            throw Self.error("No model version has the checksum \(checksum) named by a lightweight migration stage; the versions of the model's bundle were searched.", url: nil)
        }
        known[checksum] = resolved
        return resolved
    }

    /// Runs `body` with `container` open on the store in `model`, then closes it.
    private func withContainer(url: URL, model: NSManagedObjectModel, options: [AnyHashable: Any]?, _ body: () throws -> Void) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        for (key, value) in options ?? [:] {
            guard let key = key as? String, key != NSPersistentStoreStagedMigrationManagerOptionKey,
                  key != NSMigratePersistentStoresAutomaticallyOption, key != NSInferMappingModelAutomaticallyOption else { continue }
            description.setOption(value as? NSObject, forKey: key)
        }
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        self.container = container
        defer {
            self.container = nil
            for store in container.persistentStoreCoordinator.persistentStores { try? container.persistentStoreCoordinator.remove(store) }
        }
        try body()
    }

    private static func error(_ message: String, url: URL?) -> NSError {
        CoreDataError.make(NSMigrationError, message, userInfo: url.map { [NSFilePathErrorKey: $0.path] } ?? [:])
    }
}
