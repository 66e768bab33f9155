import Foundation

/// Row counts of every workload: performance.md's sizes, or small ones for `--quick`.
struct Sizes {
    var w1Insert = 50_000
    var w1Fetch = 200_000
    var w2Insert = 100_000
    var w2SaveEvery = 10_000
    var w2Rows = 1_000_000
    var w3Parents = 1_000
    var w3Children = 100
    var w4Rows = 200_000
    var w5Rows = 100_000
    var w5Queries = 1_000
    var w5Words = 5_000
    var w5Searches = 1_000
    var w6Rows = 100_000
    var w7Children = 100_000
    var w8Existing = 10_000
    var w8Inserts = 100_000
    var w8Updates = 5_000
    var w8Deletes = 5_000
    var w9Rows = 1_000_000
    var w10Rows = 100_000
    var w10Lookups = 10_000
    var w11Parents = 100_000
    var w11Children = 10
    var w12Rows = 1_000_000
    var w13Saves = 1_000
    var w14Objects = 100_000
    var w14Edits = 1_000
    var w15Users = 10_000

    static let full = Sizes()

    static let quick = Sizes(
        w1Insert: 2_000, w1Fetch: 5_000,
        w2Insert: 2_000, w2SaveEvery: 500, w2Rows: 5_000,
        w3Parents: 20, w3Children: 20,
        w4Rows: 5_000,
        w5Rows: 5_000, w5Queries: 20, w5Words: 1_000, w5Searches: 20,
        w6Rows: 5_000,
        w7Children: 2_000,
        w8Existing: 1_000, w8Inserts: 2_000, w8Updates: 200, w8Deletes: 200,
        w9Rows: 20_000,
        w10Rows: 5_000, w10Lookups: 20,
        w11Parents: 500, w11Children: 10,
        w12Rows: 5_000,
        w13Saves: 50,
        w14Objects: 2_000, w14Edits: 100,
        w15Users: 1_000)
}

/// What every workload gets: options, sizes and the fixture folder.
final class Bench {
    let options: Options
    let sizes: Sizes
    let directory: URL

    init(options: Options) throws {
        self.options = options
        self.sizes = options.quick ? .quick : .full
        self.directory = options.dataDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A file in the fixture folder.
    func url(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// A store generated once per fixture folder: `generate` runs unless an earlier run (or the
    /// parent of a child process) completed it; a marker file records completion.
    func fixture(_ name: String, _ generate: (URL) throws -> Void) throws -> URL {
        let url = url(name)
        let marker = url.appendingPathExtension("ready")
        if FileManager.default.fileExists(atPath: marker.path) { return url }
        Bench.removeStore(url)
        Progress.note("  generating \(name)")
        try generate(url)
        _ = FileManager.default.createFile(atPath: marker.path, contents: Data())
        return url
    }

    /// Replaces `destination` (and its -wal/-shm) by a copy of the store at `source`.
    func copyStore(_ source: URL, to destination: URL) throws {
        Bench.removeStore(destination)
        for suffix in ["", "-wal", "-shm"] {
            let from = URL(fileURLWithPath: source.path + suffix)
            if FileManager.default.fileExists(atPath: from.path) {
                try FileManager.default.copyItem(at: from, to: URL(fileURLWithPath: destination.path + suffix))
            }
        }
    }

    /// Deletes a store file and its -wal and -shm files.
    static func removeStore(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    func removeDirectory() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Counts and sums read back with plain SQL, to check what a comparator wrote.
func rowStats(_ url: URL, table: String, column: String) throws -> (count: Int64, sum: Int64) {
    let db = try RawDatabase(path: url.path)
    let statement = try db.prepare("SELECT COUNT(*), TOTAL(\(column)) FROM \(table)")
    guard try statement.step() else { throw BenchError("no row") }
    return (statement.int64(0), Int64(statement.double(1)))
}
