import Foundation

/// A value bound to a statement parameter, in the five storage classes every SQL database binds:
/// the SQL layer's own type, so fragments carry no driver's value type. A store converts it to
/// its driver's value once, when it binds a statement (`SQLiteStore.run` for SQLite).
package enum SQLValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit integer (keys, entity numbers, booleans, integer attributes).
    case integer(Int64)
    /// A double (floating-point attributes, dates, decimals as Apple stores them).
    case real(Double)
    /// Text, every byte kept (U+0000 included).
    case text(String)
    /// Bytes (data, UUIDs); an empty blob is not NULL.
    case blob(Data)
}
