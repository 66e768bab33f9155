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
    /// The names of the file's tables (which layout its relationships use: `SQLStoreSchema`).
    package var tableNames: Set<String> = []
    /// The file's first 100 bytes (SQLite's database header), empty for an empty file.
    package var header = Data()
    /// The columns of every table, when the inspection was asked for them (`SQLiteSchemaCheck`).
    var tables: SQLiteSchemaCheck.StoredTables?
}

/// Opening and inspecting store files; nothing here writes to a file.
package enum SQLiteStoreFile {
    private static let header = Array("SQLite format 3\0".utf8)

    /// Inspects the store at `url` read-only; nil when no file exists there. With `readingTables`,
    /// the columns of every table are read too, for the open's schema check.
    /// - Throws: `NSFileReadCorruptFileError` (259) for a file that is not SQLite or is damaged,
    ///   `NSPersistentStoreInvalidTypeError` (134000) for an SQLite file that is not a Core Data store,
    ///   `NSPersistentStoreOpenError` (134080) for a directory, a device, a FIFO, a socket or an
    ///   unreadable file.
    package static func inspect(_ url: URL, timeout: TimeInterval = 5, readingTables: Bool = false) throws -> SQLiteStoreInspection? {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue {
            throw CoreDataError.make(NSPersistentStoreOpenError, "The store URL \(path) is a directory, not an SQLite file.",
                                     userInfo: [NSFilePathErrorKey: path])
        }
        // A device, FIFO or socket is never a store; reading a FIFO would wait for a writer forever.
        let kind = StoreFileKind(resolving: path)
        guard kind == .regular else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "The store URL \(path) is \(kind.phrase), not an SQLite file.",
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

        try SQLiteStoreFileCheck.checkHeader(prefix, url: url)
        let location = try SQLiteReadOnlyLocation.forReading(url)
        defer { location.remove() }
        do {
            let queue = try DatabaseQueue(path: location.path, configuration: readOnlyConfiguration(label: "OpenCoreData.inspect", timeout: timeout))
            defer { try? queue.close() }
            return try queue.read { db in
                let inspection = try inspect(db, url: url)
                // The header is checked against the schema only when it is the file's own: a
                // non-empty -wal may hold a newer page 1.
                if location.readsMainFileOnly, !inspection.isEmpty {
                    try SQLiteStoreFileCheck.checkRootPage(prefix, db: db, url: url)
                }
                var result = inspection
                result.header = prefix
                if readingTables, !inspection.isEmpty { result.tables = try SQLiteSchemaCheck.storedTables(db) }
                return result
            }
        } catch {
            throw SQLiteStoreErrors.openError(error, url: url, action: "read")
        }
    }

    /// The configuration of a connection that only reads.
    package static func readOnlyConfiguration(label: String, timeout: TimeInterval = SQLiteStoreOptions.defaultBusyTimeout) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(timeout)
        configuration.label = label
        return configuration
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
        inspection.tableNames = tables
        // Raw values, checked here: GRDB's typed row subscripts stop the process on a value of
        // another type, and every value in the file may be anything.
        guard let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The Core Data store \(url.path) has an empty Z_METADATA table.",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        let uuid = try SQLiteStoreFileCheck.text(row[0] as DatabaseValue, column: "Z_METADATA.Z_UUID", url: url)
        let plist: Data?
        switch (row[1] as DatabaseValue).storage {
        case .null: plist = nil
        case .blob(let data): plist = data
        default: throw SQLiteStoreFileCheck.corrupt("Z_METADATA.Z_PLIST holds \(SQLiteStoreFileCheck.describe(row[1])), not a property list blob", url: url)
        }
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
        inspection.entityNumbers = try SQLiteStoreFileCheck.entityNumbers(db, url: url)
        return inspection
    }
}
