import Foundation
import GRDB

// MARK: - Copying and removing a store's files

/// The files of a SQLite store as a whole: the database, its `-wal` and `-shm` companions and its
/// external-data folder (`.<Name>_SUPPORT`), copied and removed together.
package enum SQLiteStoreFiles {
    /// The companion files a SQLite store may have beside its database.
    package static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// The store's support folder (`.<Name>_SUPPORT`, holding `_EXTERNAL_DATA`).
    package static func supportFolder(of url: URL) -> URL {
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
    }

    /// Removes a store's database, companions and support folder. Nothing at `url` is fine.
    ///
    /// - Throws: `NSPersistentStoreInvalidTypeError` when the file is not a SQLite database (it is
    ///   left alone), or a Cocoa file error when a file cannot be removed.
    package static func destroy(at url: URL) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: url.path) {
            // Only a SQLite database (or an empty file) is removed: a URL naming anything else is a
            // mistake that must not cost the user a file.
            _ = try inspectable(url)
        }
        for path in [url.path] + companionSuffixes.map({ url.path + $0 }) + [supportFolder(of: url).path]
        where manager.fileExists(atPath: path) {
            try manager.removeItem(atPath: path)
        }
    }

    /// Replaces the store at `destination` with a consistent copy of the store at `source` (its
    /// WAL content included), through SQLite's backup API, and copies its support folder.
    ///
    /// - Throws: 260 when `source` does not exist, 259/134000 when it is not a store; the
    ///   destination is then unchanged.
    package static func replace(_ destination: URL, with source: URL, timeout: TimeInterval) throws {
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadNoSuchFile.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "No store exists at \(source.path) to copy.", NSFilePathErrorKey: source.path,
            ])
        }
        guard try inspectable(source) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The file at \(source.path) is an empty database, not a Core Data store.",
                                     userInfo: [NSFilePathErrorKey: source.path])
        }
        if destination.standardizedFileURL == source.standardizedFileURL { return }
        if FileManager.default.fileExists(atPath: destination.path) { _ = try inspectable(destination) }
        // Copy into a temporary file beside the destination, then move it into place, so a
        // failure leaves the destination as it was.
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).sqlite")
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(timeout)
            let reader = try DatabaseQueue(path: source.path, configuration: configuration)
            defer { try? reader.close() }
            let writer = try DatabaseQueue(path: temporary.path)
            try reader.backup(to: writer)
            try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try writer.close()
        } catch {
            for path in [temporary.path] + companionSuffixes.map({ temporary.path + $0 }) { try? FileManager.default.removeItem(atPath: path) }
            throw SQLiteStoreErrors.openError(error, url: source, action: "copy")
        }
        let manager = FileManager.default
        for path in companionSuffixes.map({ destination.path + $0 }) where manager.fileExists(atPath: path) {
            try manager.removeItem(atPath: path)
        }
        for path in companionSuffixes.map({ temporary.path + $0 }) where manager.fileExists(atPath: path) {
            try manager.removeItem(atPath: path)
        }
        // rename(2) replaces the destination atomically: a reader sees the old or the new file.
        guard rename(temporary.path, destination.path) == 0 else {
            let code = errno
            try? manager.removeItem(at: temporary)
            throw NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileWriteUnknown.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "Cannot move the copied store into place at \(destination.path): \(String(cString: strerror(code))).",
                NSFilePathErrorKey: destination.path, NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code)),
            ])
        }
        let support = supportFolder(of: source), target = supportFolder(of: destination)
        if manager.fileExists(atPath: target.path) { try manager.removeItem(at: target) }
        if manager.fileExists(atPath: support.path) { try manager.copyItem(at: support, to: target) }
    }

    /// Whether the file is a non-empty Core Data store; throws when it is not SQLite at all.
    private static func inspectable(_ url: URL) throws -> Bool {
        guard let inspection = try SQLiteStoreFile.inspect(url) else { return false }
        return !inspection.isEmpty
    }
}
