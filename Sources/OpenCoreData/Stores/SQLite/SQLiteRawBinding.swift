import Foundation
import GRDB
import GRDBSQLite

/// Binds store values straight onto a prepared statement and steps it with the SQLite C API.
///
/// Used only for the per-row INSERTs of a save, the measured hot loop of W1-insert: going
/// through `StatementArguments` cost about a fifth of the store's save time (perf, release).
/// Runs inside the save transaction on the writer connection, so GRDB's own bookkeeping
/// (transaction observers, read-only checks) has nothing to see for these statements.
package enum SQLiteRawBinding {
    /// SQLite's `SQLITE_TRANSIENT` (copy the bytes), which C macros cannot export to Swift.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    /// Resets a statement so new values can be bound.
    @inline(__always)
    package static func reset(_ handle: SQLiteStatement) {
        sqlite3_reset(handle)
    }

    /// Binds an integer at a 1-based position.
    @inline(__always)
    package static func bind(_ value: Int64, to handle: SQLiteStatement, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds a store value at a 1-based position, with Apple's encodings (those of `SQLValueCoding`, bound without building values).
    @inline(__always)
    package static func bind(_ value: StoreValue, to handle: SQLiteStatement, at index: Int32) {
        switch value {
        case .null, .unloaded, .objectIDs:
            sqlite3_bind_null(handle, index)
        case .int(let int):
            sqlite3_bind_int64(handle, index, int)
        case .double(let double):
            if double.isNaN { sqlite3_bind_null(handle, index) } else { sqlite3_bind_double(handle, index, double) }
        case .string(let string):
            bindText(string, to: handle, at: index)
        case .date(let date):
            sqlite3_bind_double(handle, index, date.timeIntervalSinceReferenceDate)
        case .data(let data):
            bindBlob(data, to: handle, at: index)
        case .uuid(let uuid):
            // Its 16 bytes straight from the stack (those of `SQLValueCoding.uuidBytes`): going
            // through a `Data` allocated and freed a buffer per value (~2,000 instructions).
            withUnsafeBytes(of: uuid.uuid) { bytes in
                _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        case .decimal(let decimal):
            sqlite3_bind_double(handle, index, SQLValueCoding.double(from: decimal))
        case .uri(let url):
            bindText(url.absoluteString, to: handle, at: index)
        case .objectID(let id):
            sqlite3_bind_int64(handle, index, id.primaryKey)
        }
    }

    /// Binds text with its UTF-8 byte count, not as a C string: a string holding U+0000 is
    /// stored whole, as Apple's store saves it (a length of -1 would cut it at the first NUL).
    @inline(__always)
    private static func bindText(_ string: String, to handle: SQLiteStatement, at index: Int32) {
        var string = string
        string.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                // A non-nil pointer for "", which SQLite would otherwise bind as NULL.
                _ = sqlite3_bind_text(handle, index, "", 0, transient)
                return
            }
            _ = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text64(handle, index, $0, UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
            }
        }
    }

    private static func bindBlob(_ data: Data, to handle: SQLiteStatement, at index: Int32) {
        if data.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        data.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), transient)
        }
    }

    /// Steps a bound statement that returns no rows.
    /// - Throws: a `DatabaseError` with SQLite's code and message (a constraint, a lock, …).
    @inline(__always)
    package static func step(_ statement: Statement, db: Database) throws {
        let code = sqlite3_step(statement.sqliteStatement)
        guard code == SQLITE_DONE else {
            let message = db.lastErrorMessage
            sqlite3_reset(statement.sqliteStatement)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// Steps a bound statement that returns at most one row of two integers (an upsert's
    /// `RETURNING Z_PK, Z_ENT`) and finishes it; nil when it returned no row.
    /// - Throws: a `DatabaseError` with SQLite's code and message.
    package static func stepReturningPair(_ statement: Statement, db: Database) throws -> (Int64, Int64)? {
        let handle = statement.sqliteStatement
        var code = sqlite3_step(handle)
        var pair: (Int64, Int64)?
        if code == SQLITE_ROW {
            pair = (sqlite3_column_int64(handle, 0), sqlite3_column_int64(handle, 1))
            code = sqlite3_step(handle)
        }
        guard code == SQLITE_DONE else {
            let message = db.lastErrorMessage
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        return pair
    }
}
