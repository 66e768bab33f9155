import Foundation

/// Metadata key: SHA-512 digest of the model's version hashes (written by Apple since fw 1044).
public let NSStoreModelVersionHashesDigestKey = "NSStoreModelVersionHashesDigest"

/// The store metadata kept in `Z_METADATA.Z_PLIST` as a binary property list (formats.md §3.1).
package enum SQLiteMetadata {
    /// The `NSPersistenceFrameworkVersion` OpenCoreData writes: the newest Apple version seen in the fixtures.
    package static let frameworkVersion = 1344
    /// Apple's `NSStoreModelVersionHashesVersion`.
    package static let hashesVersion = 3
    /// Keys that are not stored in the plist (the UUID lives in `Z_UUID`).
    package static let columnKeys: Set<String> = [NSStoreUUIDKey]

    /// The metadata a new store records for a model.
    package static func initial(for model: NSManagedObjectModel) -> [String: Any] {
        let hashes = model.entityVersionHashesByName
        let identifiers = model.versionIdentifiers.compactMap { $0 as? String }.sorted()
        return [
            NSStoreTypeKey: NSSQLiteStoreType,
            NSStoreModelVersionHashesKey: hashes,
            NSStoreModelVersionHashesVersionKey: hashesVersion,
            NSStoreModelVersionIdentifiersKey: identifiers,
            NSPersistenceFrameworkVersionKey: frameworkVersion,
            NSStoreModelVersionHashesDigestKey: VersionHasher.digest(of: hashes),
            NSStoreModelVersionChecksumKey: VersionHasher.checksum(of: hashes),
            "_NSAutoVacuumLevel": "2",
        ]
    }

    /// Encodes metadata as a binary plist, leaving out the keys kept in columns and values a
    /// property list cannot hold (logged).
    package static func encode(_ metadata: [String: Any]) throws -> Data {
        var plist: [String: Any] = [:]
        for (key, value) in metadata where !columnKeys.contains(key) {
            guard let converted = plistValue(value) else {
                Log.store.warning("Store metadata key '\(key)' holds a value a property list cannot store (\(type(of: value))); it is not written.")
                continue
            }
            plist[key] = converted
        }
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    /// Decodes `Z_PLIST`; throws when it is not a dictionary plist.
    package static func decode(_ data: Data) throws -> [String: Any] {
        // Read with the bounds-checked reader: Foundation's parser can trap on a damaged binary plist.
        let object = try PropertyListReader.propertyList(from: data)
        guard let dictionary = object as? [String: Any] else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The store's Z_METADATA.Z_PLIST is not a dictionary property list.")
        }
        return dictionary
    }

    private static func plistValue(_ value: Any) -> Any? {
        switch value {
        case is String, is Data, is Date, is Bool, is NSNumber, is Int, is Int64, is Int32, is Double, is Float:
            return value
        case let url as URL:
            return url.absoluteString
        case let uuid as UUID:
            return uuid.uuidString
        case let array as [Any]:
            let converted = array.compactMap(plistValue)
            return converted.count == array.count ? converted : nil
        case let set as Set<AnyHashable>:
            let converted = set.compactMap { plistValue($0.base) }
            return converted.count == set.count ? converted : nil
        case let dictionary as [String: Any]:
            var converted: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let element = plistValue(element) else { return nil }
                converted[key] = element
            }
            return converted
        default:
            return nil
        }
    }
}
