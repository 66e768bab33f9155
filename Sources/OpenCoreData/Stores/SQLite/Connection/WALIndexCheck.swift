import Foundation

/// Whether a WAL store's `-shm` (its WAL index) describes the `-wal` beside it, read from the two
/// files' headers without SQLite (<https://www.sqlite.org/walformat.html>).
///
/// A read-only connection (`readonly_shm=1`) trusts a valid index header. When that header names
/// another log than the `-wal` holds — a writer died and the log was damaged or replaced, or the
/// files were copied at different moments — SQLite finds the log's salts changed, takes it for a
/// log a writer has just restarted and retries the read, sleeping longer each time, about a
/// hundred times (some 10 s) before it gives up with `SQLITE_PROTOCOL`. Checking first lets the
/// reader go straight to a private copy instead.
enum WALIndexCheck {
    /// The `-shm` header: two copies of a 48-byte `WalIndexHdr`, then the checkpoint info.
    static let indexHeaderSize = 48
    /// The `-wal` header's size; its salts are bytes 16–23.
    static let logHeaderSize = 32

    /// Whether the index at `path-shm` may be used to read the log at `path-wal`: its header is
    /// initialized, its two copies agree, and it records no frame or the log's own salts. False
    /// for a file that cannot be read or is too short.
    static func indexMatchesLog(_ path: String) -> Bool {
        guard let index = prefix(of: path + "-shm", count: 2 * indexHeaderSize),
              let log = prefix(of: path + "-wal", count: logHeaderSize) else { return false }
        return indexMatches(index: index, log: log)
    }

    /// The decision on the files' first bytes (`index`: at least 96 bytes of `-shm`, `log`:
    /// at least 32 bytes of `-wal`).
    static func indexMatches(index: [UInt8], log: [UInt8]) -> Bool {
        guard index.count >= 2 * indexHeaderSize, log.count >= logHeaderSize else { return false }
        let first = index[0..<indexHeaderSize], second = index[indexHeaderSize..<(2 * indexHeaderSize)]
        // Copies that disagree (a header torn by a crash) or an index never initialized while
        // the log holds frames are not trusted either: a private copy is rebuilt from the log.
        guard first.elementsEqual(second), index[12] != 0 else { return false }
        // mxFrame (bytes 16–19, native order): an index of no frame reads the database file alone.
        let frames = index[16..<20].reduce(0) { $0 | $1 }
        if frames == 0 { return true }
        // aSalt (bytes 32–39) is a byte copy of the log header's salts (bytes 16–23).
        return index[32..<40].elementsEqual(log[16..<24])
    }

    /// The first `count` bytes of a file; nil when it is shorter or cannot be read.
    private static func prefix(of path: String, count: Int) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: count), data.count == count else { return nil }
        return [UInt8](data)
    }
}
