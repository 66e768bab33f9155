import Foundation

/// The values Apple's store layout keeps for Core Data attribute values (formats.md §3.3): dates
/// as seconds since 2001 (REAL), UUIDs as their 16 raw bytes, booleans as 0/1, decimals as REAL
/// (Apple's behaviour, precision loss included), URIs as their absolute string, to-one
/// relationships as the destination's `Z_PK`.
///
/// The one encoder of the layout, shared by every SQL store: the lowering binds constants with
/// it, the stores bind row values with it (SQLite's per-row INSERT binds the same encodings
/// straight onto its statement, `SQLiteRawBinding`, through `uuidBytes` and `double(from:)`).
/// Reading a stored value back is the store's own business (`SQLiteValueCoding`), since it is
/// done per row on the driver's values.
package enum SQLValueCoding {
    /// The stored value of a store value.
    @inline(__always)
    package static func value(_ value: StoreValue) -> SQLValue {
        switch value {
        case .null, .unloaded, .objectIDs: return .null
        case .int(let int): return .integer(int)
        case .double(let double): return double.isNaN ? .null : .real(double)
        case .string(let string): return .text(string)
        case .date(let date): return .real(date.timeIntervalSinceReferenceDate)
        case .data(let data): return .blob(data)
        case .uuid(let uuid): return .blob(uuidBytes(uuid))
        case .decimal(let decimal): return .real(double(from: decimal))
        case .uri(let url): return .text(url.absoluteString)
        case .objectID(let id): return .integer(id.primaryKey)
        }
    }

    /// The 16 bytes a UUID is stored as.
    package static func uuidBytes(_ uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data($0) }
    }

    /// The REAL a decimal is stored as: parsed from its decimal spelling, which rounds correctly
    /// (swift-corelibs' `NSDecimalNumber.doubleValue` can be off in the last digits).
    package static func double(from decimal: Decimal) -> Double {
        Double(decimal.description) ?? NSDecimalNumber(decimal: decimal).doubleValue
    }

    /// The decimal a stored REAL stands for, through its shortest decimal spelling (10.11, not 10.1099…).
    package static func decimal(from double: Double) -> Decimal {
        guard double.isFinite else { return Decimal(double) }
        return Decimal(string: "\(double)") ?? Decimal(double)
    }
}
