import Foundation

/// A model version named for a staged migration: a model, a model file, a model in a bundle,
/// or the bundle's version with given entity hashes, with the version checksum it must have.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodelreference>.
open class NSManagedObjectModelReference: NSObject {
    /// The checksum the model must have (`NSManagedObjectModel.versionChecksum`).
    public let versionChecksum: String
    private let resolved: NSManagedObjectModel?
    /// Why the reference did not resolve, for the migration's error.
    let resolutionError: String?

    /// The model; an empty model when the reference did not resolve, which a staged migration
    /// reports as an error.
    open var resolvedModel: NSManagedObjectModel { resolved ?? NSManagedObjectModel() }

    /// A reference to a model in hand.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        resolved = model
        resolutionError = nil
        super.init()
    }

    /// A reference to the model file (`.mom`, `.momd`, `.xcdatamodel`, `.xcdatamodeld`) at a URL;
    /// in a versioned bundle, the version with the checksum.
    public init(fileURL: URL, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        (resolved, resolutionError) = Self.version(in: fileURL, checksum: versionChecksum, hashes: nil)
        super.init()
    }

    /// A reference to the model named `modelName` in a bundle (the main bundle when nil); in a
    /// versioned model, the version with the checksum.
    public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        let folders = ModelLocator.searchFolders(bundles: bundle.map { [$0] })
        if let url = ModelLocator.find(named: modelName, in: folders).url {
            (resolved, resolutionError) = Self.version(in: url, checksum: versionChecksum, hashes: nil)
        } else {
            (resolved, resolutionError) = (nil, "no model named '\(modelName)' was found in \(folders.map(\.path))")
        }
        super.init()
    }

    /// A reference to the model version, among the models in a bundle, whose entity version
    /// hashes are these.
    public init(entityVersionHashes: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        var hashes: [String: Data] = [:]
        for (key, value) in entityVersionHashes {
            if let name = key.base as? String, let hash = value as? Data { hashes[name] = hash }
        }
        var found: (NSManagedObjectModel?, String?) = (nil, "no model in the bundle has these entity version hashes")
        for folder in ModelLocator.searchFolders(bundles: bundle.map { [$0] }) {
            for url in ModelLocator.modelFiles(in: folder) {
                let candidate = Self.version(in: url, checksum: versionChecksum, hashes: hashes)
                if candidate.0 != nil { found = candidate; break }
            }
            if found.0 != nil { break }
        }
        (resolved, resolutionError) = found
        super.init()
    }

    /// The model at `url` (a version of it, for a bundle) with the checksum, or with the hashes.
    private static func version(in url: URL, checksum: String, hashes: [String: Data]?) -> (NSManagedObjectModel?, String?) {
        var candidates: [URL] = [url]
        if let bundle = try? ModelBundle(url: url) { candidates = bundle.versions.map(\.url) }
        for candidate in candidates {
            guard let model = try? NSManagedObjectModel.load(contentsOf: candidate) else { continue }
            if let hashes {
                if model.entityVersionHashesByName == hashes { return (model, nil) }
            } else if model.versionChecksum == checksum {
                return (model, nil)
            }
        }
        return (nil, "no model at \(url.path) has the version checksum \(checksum)")
    }
}
