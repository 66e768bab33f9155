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

    /// Removes a store's database, companions and support folder.
    ///
    /// Only a regular file that is a SQLite database (or empty) is removed, with companions that
    /// are regular files and a support folder that is a directory; everything is checked before
    /// anything is removed, so a refusal removes nothing.
    ///
    /// - Throws: `NSFileReadNoSuchFileError` (260) when no store exists at `url`, as Apple's
    ///   does; `NSPersistentStoreInvalidTypeError` (134000) when the path or a companion is not
    ///   a regular file (`/dev/null`, a FIFO, a socket, a directory, a symbolic link) or the file
    ///   is not a SQLite database (all left alone); a Cocoa file error when a file cannot be removed.
    package static func destroy(at url: URL) throws {
        try StoreFileKind(path: url.path).requireStore(at: url, toActOn: "destroy")
        // Only a SQLite database (or an empty file) is removed: a URL naming anything else is a
        // mistake that must not cost the user a file.
        _ = try inspectable(url)
        let removable = try companionsAndSupport(of: url, action: "destroy")
        let manager = FileManager.default
        for path in [url.path] + removable {
            try manager.removeItem(atPath: path)
        }
    }

    /// Removes what a failed or finished migration left at a temporary location of its own:
    /// the same checks as `destroy(at:)`, and nothing at `url` is fine.
    package static func removeTemporaryStore(at url: URL) {
        guard StoreFileKind(path: url.path) != .missing else { return }
        do {
            try destroy(at: url)
        } catch {
            Log.store.error("The temporary store \(url.path) was left in place: \(error)")
        }
    }

    /// The paths of a store's companions and support folder that exist, each checked to be what
    /// the store itself would have made there (regular files, a directory).
    ///
    /// - Throws: `NSPersistentStoreInvalidTypeError` naming the first one that is anything else.
    private static func companionsAndSupport(of url: URL, action: String) throws -> [String] {
        var paths: [String] = []
        for path in companionSuffixes.map({ url.path + $0 }) {
            let kind = StoreFileKind(path: path)
            if kind == .missing { continue }
            guard kind == .regular else {
                throw CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                         "Cannot \(action) the store at \(url.path): its companion \(path) is \(kind.phrase), not a file SQLite made; nothing was changed.",
                                         userInfo: [NSFilePathErrorKey: path])
            }
            paths.append(path)
        }
        let support = supportFolder(of: url).path
        switch StoreFileKind(path: support) {
        case .missing: break
        case .directory: paths.append(support)
        case let kind:
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                     "Cannot \(action) the store at \(url.path): its support folder \(support) is \(kind.phrase), not a directory; nothing was changed.",
                                     userInfo: [NSFilePathErrorKey: support])
        }
        return paths
    }

    /// Replaces the store at `destination` with a consistent copy of the store at `source` (its
    /// WAL content included), through SQLite's backup API, and copies its support folder.
    ///
    /// - Throws: 260 when `source` does not exist, 259/134000 when it is not a store; the
    ///   destination is then unchanged.
    package static func replace(_ destination: URL, with source: URL, timeout: TimeInterval) throws {
        // The source is only read, so a link to a store is followed; a device or FIFO is refused
        // before anything opens it (reading a FIFO would wait for a writer forever).
        try StoreFileKind(resolving: source.path).requireStore(at: source, toActOn: "copy")
        guard try inspectable(source) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The file at \(source.path) is an empty database, not a Core Data store.",
                                     userInfo: [NSFilePathErrorKey: source.path])
        }
        if destination.standardizedFileURL == source.standardizedFileURL { return }
        // The destination is replaced by a rename, so it must be a store file itself (or absent):
        // never a device, a FIFO, a directory or a link, whatever it leads to.
        let destinationKind = StoreFileKind(path: destination.path)
        if destinationKind != .missing {
            try destinationKind.requireStore(at: destination, toActOn: "replace")
            _ = try inspectable(destination)
        }
        _ = try companionsAndSupport(of: destination, action: "replace")
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
