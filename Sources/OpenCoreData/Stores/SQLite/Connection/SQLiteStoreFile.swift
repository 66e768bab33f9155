import Foundation
import GRDB

/// What a store file holds, read without writing to it.
package struct SQLiteStoreInspection {
    /// The file has no tables (zero bytes, or an empty database): a new store is created in it.
    package var isEmpty: Bool
    /// `Z_PLIST` merged with `NSStoreUUID` (from `Z_UUID`) and `NSStoreType`.
    package var metadata: [String: Any] = [:]
    /// `Z_UUID`.
    package var uuid: String?
    /// `Z_NAME → Z_ENT` from `Z_PRIMARYKEY`.
    package var entityNumbers: [String: Int] = [:]
}

/// Opening and inspecting store files; nothing here writes to a file.
package enum SQLiteStoreFile {
    private static let header = Array("SQLite format 3\0".utf8)

    /// Inspects the store at `url` read-only; nil when no file exists there.
    /// - Throws: `NSFileReadCorruptFileError` (259) for a file that is not SQLite or is damaged,
    ///   `NSPersistentStoreInvalidTypeError` (134000) for an SQLite file that is not a Core Data store,
    ///   `NSPersistentStoreOpenError` (134080) for a directory or an unreadable file.
    package static func inspect(_ url: URL, timeout: TimeInterval = 5) throws -> SQLiteStoreInspection? {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue {
            throw CoreDataError.make(NSPersistentStoreOpenError, "The store URL \(path) is a directory, not an SQLite file.",
                                     userInfo: [NSFilePathErrorKey: path])
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "The store file \(path) cannot be read (permission denied?).",
                                     userInfo: [NSFilePathErrorKey: path])
        }
        let prefix = (try? handle.read(upToCount: 100)) ?? Data()
        try? handle.close()
        if prefix.isEmpty { return SQLiteStoreInspection(isEmpty: true) }
        guard prefix.count == 100, Array(prefix.prefix(16)) == header else {
            throw NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadCorruptFile.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "The file \(path) is not an SQLite store (it lacks the SQLite header); it was not changed.",
                NSFilePathErrorKey: path, NSSQLiteErrorDomain: 26,
            ])
        }

        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(timeout)
        configuration.label = "OpenCoreData.inspect"
        do {
            let queue = try DatabaseQueue(path: readOnlyPath(for: url), configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in try inspect(db, url: url) }
        } catch {
            throw SQLiteStoreErrors.openError(error, url: url, action: "read")
        }
    }

    /// Reads the metadata and entity numbers of an open database.
    package static func inspect(_ db: Database, url: URL) throws -> SQLiteStoreInspection {
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        if tables.isEmpty { return SQLiteStoreInspection(isEmpty: true) }
        guard tables.contains("Z_METADATA"), tables.contains("Z_PRIMARYKEY") else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                     "The SQLite file \(url.path) is not a Core Data store (it has no Z_METADATA/Z_PRIMARYKEY tables); it was not changed.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        var inspection = SQLiteStoreInspection(isEmpty: false)
        guard let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The Core Data store \(url.path) has an empty Z_METADATA table.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        let uuid: String? = row[0]
        let plist: Data? = row[1]
        do {
            inspection.metadata = try plist.map(SQLiteMetadata.decode) ?? [:]
        } catch {
            throw NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadCorruptFile.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "The metadata of the store \(url.path) (Z_METADATA.Z_PLIST) is not a readable property list.",
                NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error as NSError,
            ])
        }
        inspection.uuid = uuid
        if let uuid { inspection.metadata[NSStoreUUIDKey] = uuid }
        if inspection.metadata[NSStoreTypeKey] == nil { inspection.metadata[NSStoreTypeKey] = NSSQLiteStoreType }
        for entityRow in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            if let number: Int = entityRow[0], let name: String = entityRow[1] { inspection.entityNumbers[name] = number }
        }
        return inspection
    }

    /// The path to open a file read-only with: an `immutable=1` URI when no `-wal` or `-journal`
    /// file exists (so nothing, not even a `-shm` file, is created next to it), else the plain path.
    package static func readOnlyPath(for url: URL) -> String {
        let path = url.path
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: path + "-wal") || fileManager.fileExists(atPath: path + "-journal") {
            return path
        }
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        return "file:\(encoded)?mode=ro&immutable=1"
    }
}
