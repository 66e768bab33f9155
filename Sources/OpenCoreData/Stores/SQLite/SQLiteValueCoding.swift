import Foundation
import GRDB

/// Converts between store values and SQLite values with Apple's encodings (formats.md §3.3),
/// which `SQLValueCoding` defines for every SQL store: writing is that encoder's value as a GRDB
/// value; reading decodes GRDB values per row.
///
/// Reading is tolerant: a value stored with another SQLite type than Apple's (TEXT decimals,
/// text UUIDs, integer dates) is converted rather than rejected.
package enum SQLiteValueCoding {
    // MARK: - Writing

    /// The SQLite value of a store value: the layout's encoding (`SQLValueCoding`) as a GRDB value.
    @inline(__always)
    package static func databaseValue(_ value: StoreValue) -> DatabaseValue {
        SQLValueCoding.value(value).databaseValue
    }

    // MARK: - Reading

    /// The store value of an attribute column's SQLite value.
    @inline(__always)
    package static func storeValue(_ value: DatabaseValue, type: NSAttributeType) -> StoreValue {
        switch value.storage {
        case .null:
            return .null
        case .int64(let int):
            switch type {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: return .int(int)
            case .booleanAttributeType: return .int(int != 0 ? 1 : 0)
            case .doubleAttributeType, .floatAttributeType: return .double(Double(int))
            case .decimalAttributeType: return .decimal(Decimal(int))
            case .dateAttributeType: return .date(Date(timeIntervalSinceReferenceDate: Double(int)))
            case .stringAttributeType: return .string(String(int))
            default: return .int(int)
            }
        case .double(let double):
            switch type {
            case .doubleAttributeType, .floatAttributeType: return .double(double)
            case .dateAttributeType: return .date(Date(timeIntervalSinceReferenceDate: double))
            case .decimalAttributeType: return .decimal(SQLValueCoding.decimal(from: double))
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                return .int(Int64(exactly: double.rounded(.towardZero)) ?? 0)
            case .stringAttributeType: return .string(String(double))
            default: return .double(double)
            }
        case .string(let string):
            switch type {
            case .URIAttributeType: return URL(string: string).map(StoreValue.uri) ?? .string(string)
            case .UUIDAttributeType: return UUID(uuidString: string).map(StoreValue.uuid) ?? .string(string)
            case .decimalAttributeType: return Decimal(string: string).map(StoreValue.decimal) ?? .null
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                return Int64(string).map(StoreValue.int) ?? .null
            case .doubleAttributeType, .floatAttributeType: return Double(string).map(StoreValue.double) ?? .null
            case .dateAttributeType: return Double(string).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
            case .binaryDataAttributeType, .transformableAttributeType: return .data(Data(string.utf8))
            default: return .string(string)
            }
        case .blob(let data):
            switch type {
            case .UUIDAttributeType: return AttributeConversion.uuid(from: data).map(StoreValue.uuid) ?? .data(data)
            case .stringAttributeType: return .string(String(decoding: data, as: UTF8.self))
            default: return .data(data)
            }
        }
    }

    /// An integer column value (primary keys, foreign keys, `Z_ENT`), or nil for NULL.
    @inline(__always)
    package static func integer(_ value: DatabaseValue) -> Int64? {
        switch value.storage {
        case .int64(let int): return int
        case .double(let double): return Int64(exactly: double.rounded(.towardZero))
        case .string(let string): return Int64(string)
        case .null, .blob: return nil
        }
    }
}
