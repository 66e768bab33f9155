import Foundation

// MARK: - Reading a store's metadata without adding it

extension NSPersistentStoreCoordinator {
    /// The metadata of the store at a URL, read without opening it for writing.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/metadataforpersistentstore(oftype:at:options:)>.
    /// For SQLite stores this is `Z_METADATA.Z_PLIST` plus `NSStoreUUID` (from `Z_UUID`) and
    /// `NSStoreType`; the file is opened read-only and never changed.
    /// - Throws: `NSFileReadNoSuchFileError` (260) when no file exists, `NSFileReadCorruptFileError`
    ///   (259) for a file that is not SQLite, `NSPersistentStoreInvalidTypeError` (134000) for an
    ///   SQLite file that is not a Core Data store or an unsupported store type.
    public class func metadataForPersistentStore(ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        guard storeType == NSSQLiteStoreType else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Reading metadata from a file is supported for '\(NSSQLiteStoreType)' stores, not '\(storeType)'.")
        }
        let timeout = (try? SQLiteStoreOptions(options))?.busyTimeout ?? SQLiteStoreOptions.defaultBusyTimeout
        guard let inspection = try SQLiteStoreFile.inspect(url, timeout: timeout) else {
            throw NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadNoSuchFile.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "No store file exists at \(url.path).", NSFilePathErrorKey: url.path,
            ])
        }
        if inspection.isEmpty {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The file at \(url.path) is an empty database, not a Core Data store.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        return inspection.metadata
    }

    /// The metadata of the store at a URL (iOS 15 spelling with `StoreType`).
    public class func metadataForPersistentStore(type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: type.rawValue, at: url, options: options)
    }

    /// Writes metadata into the store at a URL that is not added to a coordinator.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/setmetadata(_:forpersistentstoreoftype:at:options:)>.
    /// `NSStoreUUID` and `NSStoreType` keep the file's values.
    public class func setMetadata(_ metadata: [String: Any], forPersistentStoreOfType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws {
        let current = try metadataForPersistentStore(ofType: storeType, at: url, options: options)
        var metadata = metadata
        // The store's own bookkeeping (whose external-data format its BLOBs follow) stays.
        if metadata[SQLiteExternalData.bookkeepingKey] == nil { metadata[SQLiteExternalData.bookkeepingKey] = current[SQLiteExternalData.bookkeepingKey] }
        try SQLiteStore.writeMetadata(metadata, at: url, options: options)
    }
}
