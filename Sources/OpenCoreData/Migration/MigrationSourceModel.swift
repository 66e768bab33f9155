import Foundation

// MARK: - MigrationSourceModel

/// Finds the model a store was written with, for automatic migration: the version of the
/// destination model's bundle whose entity hashes equal the store's metadata, else the model
/// the store keeps in `Z_MODELCACHE`.
package enum MigrationSourceModel {
    /// The source model of a store.
    ///
    /// - Parameters:
    ///   - metadata: the store's metadata (its `NSStoreModelVersionHashes`).
    ///   - destination: the model the store is opened with; its `versionBundleURL`'s versions
    ///     are tried first.
    ///   - modelCache: the store's `Z_MODELCACHE.Z_CONTENT`, if it has one.
    /// - Throws: `NSMigrationMissingSourceModelError` (134130) listing the versions tried and,
    ///   for each, the entities whose hashes differ.
    package static func find(forStoreMetadata metadata: [String: Any], destination: NSManagedObjectModel,
                             modelCache: Data?, url: URL) throws -> NSManagedObjectModel {
        try locate(forStoreMetadata: metadata, destination: destination, modelCache: modelCache, url: url).model
    }

    /// Where a source model was found.
    package enum Origin: Equatable, Sendable {
        /// A version of the destination model's bundle: its name and file.
        case bundleVersion(name: String, url: URL)
        /// The store's `Z_MODELCACHE`.
        case modelCache
    }

    /// The source model of a store and where it was found (`coredata store migrate` prints it).
    ///
    /// - Throws: `NSMigrationMissingSourceModelError` (134130), as ``find(forStoreMetadata:destination:modelCache:url:)``.
    package static func locate(forStoreMetadata metadata: [String: Any], destination: NSManagedObjectModel,
                               modelCache: Data?, url: URL) throws -> (model: NSManagedObjectModel, origin: Origin) {
        var tried: [String] = []
        if let bundleURL = destination.versionBundleURL, let bundle = try? ModelBundle(url: bundleURL) {
            for version in bundle.versions {
                do {
                    let candidate = try NSManagedObjectModel.load(contentsOf: version.url)
                    let differing = candidate.entitiesDiffering(fromStoreMetadata: metadata, configuration: nil)
                    if differing.isEmpty { return (candidate, .bundleVersion(name: version.name, url: version.url)) }
                    tried.append("version '\(version.name)' (\(differing.joined(separator: ", ")) differ)")
                } catch {
                    tried.append("version '\(version.name)' (\((error as NSError).localizedDescription))")
                }
            }
        }
        if let modelCache {
            do {
                let cached = try NSManagedObjectModel.fromModelCache(modelCache)
                let differing = cached.entitiesDiffering(fromStoreMetadata: metadata, configuration: nil)
                // The store's own model describes its tables even where our version hashes of
                // it are known to differ from Apple's (docs/ModelFiles.md): same entities suffice.
                let stored = Set(NSManagedObjectModel.versionHashes(inStoreMetadata: metadata).keys)
                if differing.isEmpty || Set(cached.entitiesByName.keys) == stored { return (cached, .modelCache) }
                tried.append("the store's Z_MODELCACHE (\(differing.joined(separator: ", ")) differ)")
            } catch {
                tried.append("the store's Z_MODELCACHE (\((error as NSError).localizedDescription))")
            }
        }
        let versions = tried.isEmpty ? "no model versions were found (load the model from its .momd or .xcdatamodeld bundle so its versions can be tried)"
            : "tried " + tried.joined(separator: "; ")
        throw CoreDataError.make(NSMigrationMissingSourceModelError,
                                 "Cannot find the model the store at \(url.path) was written with: \(versions). The store was not changed.",
                                 userInfo: [NSFilePathErrorKey: url.path, "tried": tried])
    }
}
