import Foundation

// MARK: - Compatibility with a store's metadata

extension NSManagedObjectModel {
    /// Whether the entities of a configuration have the version hashes a store's metadata records.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/1506781-isconfiguration>:
    /// only `NSStoreModelVersionHashes` is compared (not the digest or checksum keys). For the
    /// default configuration (nil) the store must record exactly the model's entities; for a
    /// named configuration, each of its entities must match.
    /// - Complexity: O(n) in the number of entities, plus hashing each once.
    public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        entitiesDiffering(fromStoreMetadata: metadata, configuration: configuration).isEmpty
    }

    /// The names of the entities whose version hashes differ from a store's metadata (also those
    /// missing on either side), sorted.
    package func entitiesDiffering(fromStoreMetadata metadata: [String: Any], configuration: String?) -> [String] {
        let stored = Self.versionHashes(inStoreMetadata: metadata)
        let mine = entityVersionHashesByName
        var differing = Set<String>()
        let checked: [String]
        if let configuration, !Self.isDefaultConfiguration(configuration) {
            checked = (entities(forConfigurationName: configuration) ?? []).compactMap(\.name)
        } else {
            checked = Array(mine.keys)
            for name in stored.keys where mine[name] == nil { differing.insert(name) }
        }
        for name in checked where stored[name] != mine[name] { differing.insert(name) }
        return differing.sorted()
    }

    /// The entity version hashes a store's metadata records (`NSStoreModelVersionHashes`), by
    /// entity name; values that are not data are left out.
    package static func versionHashes(inStoreMetadata metadata: [String: Any]) -> [String: Data] {
        guard let raw = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return [:] }
        var hashes: [String: Data] = [:]
        for (name, value) in raw {
            if let data = value as? Data { hashes[name] = data } else if let data = value as? NSData { hashes[name] = Data(referencing: data) }
        }
        return hashes
    }
}
