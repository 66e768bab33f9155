import Foundation
import GRDB

/// Maps SQLite and file-system failures to Core Data's `NSCocoaErrorDomain` errors.
package enum SQLiteStoreErrors {
    /// An error opening or inspecting the store file at `url`.
    package static func openError(_ error: any Error, url: URL, action: String = "open") -> NSError {
        if isCocoaError(error) { return error as NSError }
        guard let databaseError = error as? DatabaseError else {
            return CoreDataError.make(NSPersistentStoreOpenError, "Could not \(action) the SQLite store at \(url.path): \(error)",
                                      userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error as NSError])
        }
        let code = databaseError.resultCode
        var info: [String: Any] = [NSFilePathErrorKey: url.path, NSSQLiteErrorDomain: Int(code.primaryResultCode.rawValue),
                                   NSUnderlyingErrorKey: sqliteNSError(databaseError)]
        switch code.primaryResultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            info[NSLocalizedDescriptionKey] = "The file \(url.path) is not a valid SQLite store (\(databaseError.message ?? "corrupt or not a database")); it was not changed."
            return NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadCorruptFile.rawValue, userInfo: info)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return CoreDataError.make(NSPersistentStoreTimeoutError,
                                      "The SQLite store at \(url.path) is locked by another connection; the busy timeout expired.", userInfo: info)
        default:
            return CoreDataError.make(NSPersistentStoreOpenError,
                                      "Could not \(action) the SQLite store at \(url.path): \(databaseError.message ?? "SQLite error \(code.rawValue)").", userInfo: info)
        }
    }

    /// An error from a save transaction.
    package static func saveError(_ error: any Error, url: URL?) -> any Error {
        if error is StoreSaveConflicts { return error }
        if isCocoaError(error) { return error as NSError }
        guard let databaseError = error as? DatabaseError else { return error }
        let path = url?.path ?? "(no URL)"
        let info: [String: Any] = [NSSQLiteErrorDomain: Int(databaseError.resultCode.primaryResultCode.rawValue),
                                   NSUnderlyingErrorKey: sqliteNSError(databaseError), NSFilePathErrorKey: path]
        switch databaseError.resultCode.primaryResultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return CoreDataError.make(NSPersistentStoreSaveError, "The save to \(path) failed: the store is locked by another writer; nothing was written.", userInfo: info)
        case .SQLITE_CONSTRAINT:
            return CoreDataError.make(NSManagedObjectConstraintMergeError, "The save to \(path) violates a constraint in the store: \(databaseError.message ?? ""); nothing was written.", userInfo: info)
        default:
            return CoreDataError.make(NSPersistentStoreSaveError, "The save to \(path) failed: \(databaseError.message ?? "SQLite error \(databaseError.resultCode.rawValue)"); nothing was written.", userInfo: info)
        }
    }

    /// An error reading from an open store.
    package static func readError(_ error: any Error, url: URL?) -> any Error {
        if isCocoaError(error) { return error as NSError }
        guard let databaseError = error as? DatabaseError else { return error }
        return CoreDataError.make(NSSQLiteError, "Reading the SQLite store at \(url?.path ?? "(no URL)") failed: \(databaseError.message ?? "SQLite error \(databaseError.resultCode.rawValue)").",
                                  userInfo: [NSSQLiteErrorDomain: Int(databaseError.resultCode.primaryResultCode.rawValue), NSUnderlyingErrorKey: sqliteNSError(databaseError)])
    }

    /// A row that was read but cannot be turned into values (a value that does not decode as
    /// its attribute's type, a `Z_ENT` that names no entity): `NSFileReadCorruptFileError` (259),
    /// as for other damage to the file's contents, never a row read as empty.
    package static func unreadableRow(_ reason: String, url: URL?) -> NSError {
        var info: [String: Any] = [:]
        if let url { info[NSFilePathErrorKey] = url.path }
        return NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadCorruptFile.rawValue, userInfo: info.merging([
            NSLocalizedDescriptionKey: "A row of the SQLite store\(url.map { " at \($0.path)" } ?? "") cannot be read: \(reason).",
        ]) { $1 })
    }

    private static func isCocoaError(_ error: any Error) -> Bool {
        !(error is DatabaseError) && (error as NSError).domain == NSCocoaErrorDomain
    }

    private static func sqliteNSError(_ error: DatabaseError) -> NSError {
        NSError(domain: NSSQLiteErrorDomain, code: Int(error.resultCode.rawValue),
                userInfo: [NSLocalizedDescriptionKey: error.message ?? "SQLite error \(error.resultCode.rawValue)"])
    }
}
