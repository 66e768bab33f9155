import Foundation
import GRDBSQLite

/// The "raw" comparator: the SQLite C API called from Swift, statements prepared once,
/// arguments bound by position and columns read by index. Nothing here allocates per row.
final class RawDatabase {
    let handle: OpaquePointer

    /// Opens (creating if needed) a database with the suite's settings: WAL, `synchronous=NORMAL`.
    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            if let handle { sqlite3_close_v2(handle) }
            throw BenchError("sqlite3_open_v2(\(path)) failed with code \(code)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
        // Read the schema and make sure a non-empty WAL file exists now, as GRDB and the
        // OpenCoreData store do when they open a database, so that the first timed write does
        // not pay for creating the WAL (~5 ms here).
        try execute("SELECT count(*) FROM sqlite_master")
        let wal = path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        if walSize == 0 {
            try execute("BEGIN; CREATE TABLE ocd_bench_wal (id INTEGER PRIMARY KEY); DROP TABLE ocd_bench_wal; COMMIT")
        }
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw BenchError("SQLite: \(text) in \(sql)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError("SQLite: \(String(cString: sqlite3_errmsg(handle))) in \(sql)")
        }
        return RawStatement(statement, database: self)
    }

    /// Runs `body` inside `BEGIN … COMMIT`.
    func transaction(_ body: () throws -> Void) throws {
        try execute("BEGIN")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    func scalarInt(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { throw BenchError("no row for \(sql)") }
        return statement.int64(0)
    }
}

/// A prepared statement of `RawDatabase`.
final class RawStatement {
    let handle: OpaquePointer
    private let database: RawDatabase

    init(_ handle: OpaquePointer, database: RawDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    @inline(__always) func reset() {
        sqlite3_reset(handle)
    }

    @inline(__always) func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    @inline(__always) func bind(_ value: Double, at index: Int32) {
        sqlite3_bind_double(handle, index, value)
    }

    @inline(__always) func bind(_ value: String, at index: Int32) {
        sqlite3_bind_text(handle, index, value, -1, rawTransient)
    }

    @inline(__always) func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) {
        sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), rawTransient)
    }

    @inline(__always) func bindNull(at index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    /// Steps once: true for a row, false when done.
    @inline(__always) func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw BenchError("sqlite3_step failed (\(code)): \(String(cString: sqlite3_errmsg(database.handle)))")
        }
    }

    /// Steps a statement that returns no row, then resets it.
    @inline(__always) func run() throws {
        defer { sqlite3_reset(handle) }
        if sqlite3_step(handle) != SQLITE_DONE {
            throw BenchError("sqlite3_step failed: \(String(cString: sqlite3_errmsg(database.handle)))")
        }
    }

    @inline(__always) func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    @inline(__always) func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    @inline(__always) func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: text)
    }

    /// The length of a text column, read without making a Swift string.
    @inline(__always) func textLength(_ column: Int32) -> Int {
        _ = sqlite3_column_text(handle, column)
        return Int(sqlite3_column_bytes(handle, column))
    }
}

/// The rowid of the last row the connection inserted.
func sqlite3LastInsertRowID(_ db: RawDatabase) -> Int64 {
    sqlite3_last_insert_rowid(db.handle)
}

/// SQLITE_TRANSIENT: SQLite copies the bound bytes.
let rawTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
