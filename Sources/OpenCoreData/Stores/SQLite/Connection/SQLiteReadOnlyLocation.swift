import Foundation

/// Where SQLite opens a store file read-only so that nothing beside it is created or changed.
///
/// SQLite's ordinary read-only mode still creates a `-shm` file for a WAL store and writes its
/// read marks into an existing one, which the next writer notices (docs/StoreFormat.md
/// "Read-only opens"). So a read-only open picks one of three ways, by the companions present:
/// - no `-wal` holding a frame (none, an empty one, or a lone 32-byte WAL header, which a writer
///   killed before its first frame leaves and which `readonly_shm` fails on with `SQLITE_PROTOCOL`
///   when the writer's `-shm` is left too) and no `-journal`: `immutable=1`, which never opens a
///   companion file;
/// - a `-wal` and a `-shm`: `readonly_shm=1`, which opens the `-shm` read-only. When no live writer
///   holds it SQLite rebuilds the WAL index privately in heap memory from the `-wal` file
///   (<https://www.sqlite.org/walformat.html>), so committed WAL content is read without a write;
/// - a `-wal` without a `-shm` (a copied or crashed store), or with a `-shm` whose index describes
///   another log (`WALIndexCheck`): SQLite cannot read it without creating or rebuilding a `-shm`,
///   so the file and its `-wal` are copied into a private temporary folder and read there.
package struct SQLiteReadOnlyLocation: Sendable {
    /// The path or `file:` URI to give SQLite.
    package let path: String
    /// The private folder holding a copy, removed by `remove()`.
    package var privateCopy: URL?
    /// Whether SQLite reads the main file alone (`immutable`): its header is then the database's.
    package var readsMainFileOnly = false

    /// The location to read `url` from without writing beside it.
    /// - Throws: `NSPersistentStoreOpenError` when a private copy cannot be made.
    package static func forReading(_ url: URL) throws -> SQLiteReadOnlyLocation {
        let path = url.path
        if hasContent(path + "-journal") {
            // A rollback journal: a plain read-only connection reads (or refuses a hot journal) and
            // creates nothing; `immutable` would ignore the journal.
            return SQLiteReadOnlyLocation(path: uri(path, "mode=ro"), privateCopy: nil)
        }
        // A WAL no longer than its 32-byte header holds no frame: the main file is the database.
        guard hasContent(path + "-wal", moreThan: walHeaderSize) else {
            return SQLiteReadOnlyLocation(path: uri(path, "mode=ro&immutable=1"), privateCopy: nil, readsMainFileOnly: true)
        }
        if FileManager.default.fileExists(atPath: path + "-shm"), WALIndexCheck.indexMatchesLog(path) {
            return SQLiteReadOnlyLocation(path: uri(path, "mode=ro&readonly_shm=1"), privateCopy: nil)
        }
        // No -shm, or one that describes another log than the -wal beside it (a stale index next
        // to a damaged or replaced log): `readonly_shm` would retry its read about a hundred
        // times (some 10 s) and then fail with SQLITE_PROTOCOL, so the log is read from a copy
        // without the index, where SQLite rebuilds it (or ignores a log whose header is invalid,
        // as a writer's recovery would).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("OpenCoreData-readonly-\(UUID().uuidString)", isDirectory: true)
        let copy = folder.appendingPathComponent(url.lastPathComponent.isEmpty ? "Store.sqlite" : url.lastPathComponent)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: copy.path)
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy.path + "-wal")
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw CoreDataError.make(NSPersistentStoreOpenError,
                                     "Cannot read \(path) read-only: it has a -wal file but no usable -shm file, and a private copy to read it from could not be made (\(error)).",
                                     userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: error as NSError])
        }
        return SQLiteReadOnlyLocation(path: uri(copy.path, "mode=ro"), privateCopy: folder)
    }

    /// The size of a WAL file's header (<https://www.sqlite.org/fileformat2.html#walformat>).
    static let walHeaderSize = 32

    /// Removes the private copy, if one was made.
    package func remove() {
        if let privateCopy { try? FileManager.default.removeItem(at: privateCopy) }
    }

    /// Whether a companion file exists and is longer than `size` bytes (an empty `-journal` or
    /// `-wal` holds nothing).
    private static func hasContent(_ path: String, moreThan size: Int = 0) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return false }
        return ((attributes[.size] as? NSNumber)?.intValue ?? Int.max) > size
    }

    private static func uri(_ path: String, _ query: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%&=")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return "file:\(encoded)?\(query)"
    }
}
