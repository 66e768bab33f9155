import Foundation

extension NSManagedObjectModel {
    // MARK: - Loading

    /// Loads the model at a URL, or returns nil when it can't be loaded.
    ///
    /// Accepts a compiled model (`.momd` folder or `.mom` file), as Apple's does, and on every
    /// platform also the Xcode source (`.xcdatamodeld` folder, `.xcdatamodel` folder, or its
    /// `contents` XML). The reason for a failure is logged; use ``load(contentsOf:)`` to get it.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/init(contentsof:)>.
    public convenience init?(contentsOf url: URL) {
        self.init()
        do {
            try ModelFileLoader.load(url, into: self)
        } catch {
            Log.modelFile.error("\(error.localizedDescription)")
            return nil
        }
    }

    /// Loads the model at a URL, throwing an error that says what is wrong and where.
    ///
    /// ```swift
    /// let model = try NSManagedObjectModel.load(contentsOf: bundle.url(forResource: "Todo", withExtension: "momd")!)
    /// ```
    ///
    /// - Parameter url: A `.xcdatamodeld`, `.xcdatamodel`, `.momd` or `.mom`.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain` whose description names the file, the
    ///   entity and the property: `NSFileReadNoSuchFileError` (260) for a missing file or model
    ///   version, `NSFileReadCorruptFileError` (259) for malformed XML, an unknown attribute type,
    ///   a truncated archive or the unsupported pre-Xcode 4 format, and `NSCoreDataError`
    ///   (134060) for a relationship whose destination or inverse doesn't exist.
    public static func load(contentsOf url: URL) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(url, into: model)
        return model
    }

    /// Decodes the model a SQLite store keeps in `Z_MODELCACHE.Z_CONTENT` (a raw DEFLATE stream
    /// of a keyed archive), so a store opens even when its model file is missing.
    ///
    /// - Throws: `NSFileReadCorruptFileError` when the data is not a valid stream or archive.
    package static func fromModelCache(_ data: Data) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try ModelFileLoader.loadModelCache(data, into: model)
        return model
    }

    // MARK: - Merging from bundles

    /// A model made by merging every model in the bundles (the main bundle when nil), or nil when
    /// there is none or two of them define the same entity.
    ///
    /// Each bundle's resources are searched for `.momd`, `.mom`, `.xcdatamodeld` and
    /// `.xcdatamodel`; a source bundle is skipped when a compiled model of the same name exists.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/mergedmodel(from:)>.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        var models: [NSManagedObjectModel] = []
        for url in ModelLocator.modelURLs(in: bundles ?? [Bundle.main]) {
            do {
                models.append(try load(contentsOf: url))
            } catch {
                Log.modelFile.error("\(error.localizedDescription)")
                return nil
            }
        }
        guard !models.isEmpty else { return nil }
        return NSManagedObjectModel(byMerging: models)
    }

    /// A model made from the versions in the bundles whose entity hashes match a store's metadata,
    /// or nil when no combination matches.
    ///
    /// Every version of every versioned model is considered, so this finds the model a store was
    /// created with among a model's older versions.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/mergedmodel(from:forstoremetadata:)>.
    public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        guard let storeHashes = NSManagedObjectModel.storeHashes(in: metadata) else { return nil }
        var chosen: [NSManagedObjectModel] = []
        for url in ModelLocator.modelURLs(in: bundles ?? [Bundle.main]) {
            for versionURL in ModelLocator.versionURLs(of: url) {
                guard let model = try? load(contentsOf: versionURL) else { continue }
                let hashes = model.entityVersionHashesByName
                if !hashes.isEmpty, hashes.allSatisfy({ storeHashes[$0.key] == $0.value }) {
                    chosen.append(model)
                    break
                }
            }
        }
        guard let merged = NSManagedObjectModel(byMerging: chosen), merged.entityVersionHashesByName == storeHashes else {
            return nil
        }
        return merged
    }

    /// A model merging `models`, or nil when the result's entity hashes don't match the store metadata.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/init(bymerging:forstoremetadata:)>.
    public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        guard let storeHashes = NSManagedObjectModel.storeHashes(in: metadata) else { return nil }
        self.init(byMerging: models)
        guard entityVersionHashesByName == storeHashes else { return nil }
    }

    // MARK: - Versions

    /// The model's version checksum: base64 of SHA-256 over the entity hashes in name order,
    /// as a store's `NSStoreModelVersionChecksumKey` and `VersionInfo.plist`.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/versionchecksum>.
    public var versionChecksum: String {
        VersionHasher.checksum(of: entityVersionHashesByName)
    }

    /// The checksum of each version of a compiled model (`.momd`), by version name, from its
    /// `VersionInfo.plist`; versions Xcode recorded no checksum for get theirs computed.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/checksumsforversionedmodel(at:)>.
    /// - Throws: An error naming the file when the folder or its `VersionInfo.plist` can't be read.
    public class func checksumsForVersionedModel(at url: URL) throws -> [String: String] {
        let bundle = try ModelBundle(url: url)
        var checksums: [String: String] = [:]
        let info = url.pathExtension == "momd" ? try? VersionInfo(url: url.appendingPathComponent("VersionInfo.plist")) : nil
        for version in bundle.versions {
            if let recorded = info?.versionChecksums[version.name] {
                checksums[version.name] = recorded
            } else if let hashes = info?.versionHashes[version.name] {
                checksums[version.name] = VersionHasher.checksum(of: hashes)
            } else {
                checksums[version.name] = try load(contentsOf: version.url).versionChecksum
            }
        }
        return checksums
    }

    // MARK: - Fetch request templates

    /// A copy of the named fetch request template with its `$VARIABLE`s replaced, or nil when
    /// there is no such template.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/fetchrequestfromtemplate(withname:substitutionvariables:)>.
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any]) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = fetchRequestTemplate(forName: name),
              let request = template.copy() as? NSFetchRequest<NSFetchRequestResult>
        else { return nil }
        request.predicate = template.predicate?.withSubstitutionVariables(variables)
        return request
    }
}

extension NSManagedObjectModel {
    /// The entity hashes in store metadata (`NSStoreModelVersionHashes`), or nil.
    static func storeHashes(in metadata: [String: Any]) -> [String: Data]? {
        guard let raw = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        return raw.compactMapValues { $0 as? Data }
    }
}
