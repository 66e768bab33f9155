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

    /// Whether the index at `path-shm` may be used to read the log at `path-wal`: the log's
    /// header is valid, the index header is initialized, its two copies agree, and it records no
    /// frame or the log's own salts. False for a file that cannot be read or is too short.
    static func indexMatchesLog(_ path: String) -> Bool {
        guard let index = prefix(of: path + "-shm", count: 2 * indexHeaderSize),
              let log = prefix(of: path + "-wal", count: logHeaderSize) else { return false }
        return indexMatches(index: index, log: log)
    }

    /// The decision on the files' first bytes (`index`: at least 96 bytes of `-shm`, `log`:
    /// at least 32 bytes of `-wal`).
    static func indexMatches(index: [UInt8], log: [UInt8]) -> Bool {
        guard index.count >= 2 * indexHeaderSize, log.count >= logHeaderSize else { return false }
        // A log whose header is damaged (its magic, version, page size or checksum): a writer's
        // recovery ignores such a log, but `readonly_shm` beside an index of frames retries.
        guard logHeaderIsValid(log) else { return false }
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

    /// Whether a log header (the first 32 bytes of a `-wal`) is one SQLite's recovery accepts:
    /// the magic number (its low bit selects the checksum's byte order), format version
    /// 3007000, a page size that is a power of two from 512 to 65536, and the checksum of the
    /// first 24 bytes in bytes 24–31 (<https://www.sqlite.org/fileformat2.html#walformat>).
    static func logHeaderIsValid(_ log: [UInt8]) -> Bool {
        guard log.count >= logHeaderSize else { return false }
        func bigEndian(_ offset: Int) -> UInt32 {
            log[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let magic = bigEndian(0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683, bigEndian(4) == 3_007_000 else { return false }
        let pageSize = bigEndian(8)
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return false }
        let checksumIsBigEndian = magic & 1 == 1
        func word(_ offset: Int) -> UInt32 {
            checksumIsBigEndian ? bigEndian(offset) : log[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        var (first, second): (UInt32, UInt32) = (0, 0)
        for offset in stride(from: 0, to: 24, by: 8) {
            first = first &+ word(offset) &+ second
            second = second &+ word(offset + 4) &+ first
        }
        return first == bigEndian(24) && second == bigEndian(28)
    }

    /// The first `count` bytes of a file; nil when it is shorter or cannot be read.
    private static func prefix(of path: String, count: Int) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: count), data.count == count else { return nil }
        return [UInt8](data)
    }
}
