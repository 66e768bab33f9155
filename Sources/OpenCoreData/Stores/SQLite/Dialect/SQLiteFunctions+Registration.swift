import Foundation
import GRDB
import GRDBSQLite

// MARK: - Function registration with byte-exact text

extension SQLiteFunctions {
    /// A scalar function: its SQL name, arity, determinism and body.
    struct FunctionSpec: Sendable {
        let name: String
        let argumentCount: Int32
        let isPure: Bool
        let body: @Sendable ([DatabaseValue]) throws -> DatabaseValueConvertible?
    }

    /// The body a registered function calls, owned by the connection (released when SQLite
    /// destroys the function, as the connection closes).
    private final class FunctionBox {
        let body: @Sendable ([DatabaseValue]) throws -> DatabaseValueConvertible?

        init(_ body: @escaping @Sendable ([DatabaseValue]) throws -> DatabaseValueConvertible?) {
            self.body = body
        }
    }

    /// Registers a function with `sqlite3_create_function_v2`. Text crosses with its byte count
    /// both ways: GRDB's `DatabaseFunction` reads text arguments as C strings and returns text
    /// results with a length of -1, which cut `"a\0b"` to `"a"` and made SQL disagree with memory.
    static func registerFunction(_ function: FunctionSpec, in db: Database) {
        let box = Unmanaged.passRetained(FunctionBox(function.body)).toOpaque()
        let flags = SQLITE_UTF8 | (function.isPure ? SQLITE_DETERMINISTIC : 0)
        let code = sqlite3_create_function_v2(db.sqliteConnection, function.name, function.argumentCount, flags, box,
                                              functionTrampoline, nil, nil, releaseBox)
        // On failure SQLite has already called `releaseBox`.
        if code != SQLITE_OK { Log.store.error("Could not register SQL function \(function.name): \(code)") }
    }

    private static let releaseBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<FunctionBox>.fromOpaque(pointer).release()
    }

    private static let functionTrampoline: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, count, arguments in
        guard let context, let userData = sqlite3_user_data(context) else { return }
        let box = Unmanaged<FunctionBox>.fromOpaque(userData).takeUnretainedValue()
        var values: [DatabaseValue] = []
        values.reserveCapacity(Int(count))
        for index in 0..<Int(count) { values.append(arguments?[index].map(argumentValue) ?? .null) }
        do {
            setResult(try box.body(values)?.databaseValue ?? .null, context)
        } catch {
            sqlite3_result_error(context, "\(error)", -1)
        }
    }

    /// An argument as a `DatabaseValue`, text read with its byte count (U+0000 kept).
    private static func argumentValue(_ value: OpaquePointer) -> DatabaseValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value).databaseValue
        case SQLITE_FLOAT: return sqlite3_value_double(value).databaseValue
        case SQLITE_TEXT: return SQLiteRowDecoder.text(value).databaseValue
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes = sqlite3_value_blob(value) else { return Data().databaseValue }
            return Data(bytes: bytes, count: count).databaseValue
        default: return .null
        }
    }

    /// SQLite's `SQLITE_TRANSIENT` (copy the bytes), which C macros cannot export to Swift.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    private static func setResult(_ value: DatabaseValue, _ context: OpaquePointer) {
        switch value.storage {
        case .null: sqlite3_result_null(context)
        case .int64(let int): sqlite3_result_int64(context, int)
        case .double(let double): sqlite3_result_double(context, double)
        case .string(var string):
            string.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    sqlite3_result_text(context, "", 0, transient)
                    return
                }
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_result_text64(context, $0, UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress, !bytes.isEmpty {
                    sqlite3_result_blob64(context, base, UInt64(bytes.count), transient)
                } else {
                    sqlite3_result_zeroblob(context, 0)
                }
            }
        }
    }
}
