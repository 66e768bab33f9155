import Foundation
import GRDB
import GRDBSQLite

/// Binds values by position straight to a prepared statement's SQLite handle.
///
/// The save loops write tens of thousands of rows through a few cached statements; building a
/// GRDB `StatementArguments` per row (an array, a key-path map over it, existential boxes) cost
/// more than SQLite's own work, so they bind here and then run the statement with `execute()`.
package struct SQLiteBinding {
    private let statement: Statement
    private let handle: SQLiteStatement

    /// Prepares `statement` for manual binding: GRDB is told its arguments are set (none), so
    /// `execute()` only resets and steps, keeping the values bound here.
    package init(_ statement: Statement) {
        statement.setUncheckedArguments(StatementArguments())
        self.statement = statement
        self.handle = statement.sqliteStatement
    }

    /// Resets the statement so new values can be bound; call once per row, before binding.
    @inline(__always)
    package func reset() {
        sqlite3_reset(handle)
    }

    /// Binds one value (1-based index), with SQLite copying text and blobs.
    @inline(__always)
    package func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value.storage {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .int64(let int):
            code = sqlite3_bind_int64(handle, index, int)
        case .double(let double):
            code = sqlite3_bind_double(handle, index, double)
        case .string(let string):
            code = sqlite3_bind_text(handle, index, string, -1, Self.transient)
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                bytes.isEmpty
                    ? sqlite3_bind_zeroblob(handle, index, 0)
                    : sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
            }
        }
        if code != SQLITE_OK {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "binding parameter \(index) failed", sql: statement.sql)
        }
    }

    @inline(__always)
    package func bind(_ value: Int64, at index: Int32) throws {
        try bind(.init(value: value), at: index)
    }

    /// Runs the statement with the values bound since the last `reset()`.
    @inline(__always)
    package func execute() throws {
        try statement.execute()
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

extension DatabaseValue {
    fileprivate init(value: Int64) { self = value.databaseValue }
}
