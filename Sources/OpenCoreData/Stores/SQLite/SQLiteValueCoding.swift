import Foundation
import GRDB

/// Converts between store values and SQLite values with Apple's encodings (formats.md §3.3),
/// which `SQLValueCoding` defines for every SQL store: writing is that encoder's value as a GRDB
/// value; reading decodes GRDB values per row.
///
/// Reading is tolerant of another SQLite type than Apple's when the value converts exactly
/// (TEXT decimals, text UUIDs, integer dates); a value that does not convert is reported, not
/// read as nil.
package enum SQLiteValueCoding {
    // MARK: - Writing

    /// The SQLite value of a store value: the layout's encoding (`SQLValueCoding`) as a GRDB value.
    @inline(__always)
    package static func databaseValue(_ value: StoreValue) -> DatabaseValue {
        SQLValueCoding.value(value).databaseValue
    }

    // MARK: - Reading

    /// The store value of an attribute column's SQLite value; nil when the value does not
    /// decode as the attribute's type (text that is no number in a numeric column, a BLOB in a
    /// numeric or date column, a double out of an integer's range, text that is no UUID or URL):
    /// the caller reports it as an error, never as a missing value (issue 37).
    @inline(__always)
    package static func storeValue(_ value: DatabaseValue, type: NSAttributeType) -> StoreValue? {
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
            case .UUIDAttributeType, .URIAttributeType: return nil
            default: return .int(int)
            }
        case .double(let double):
            switch type {
            case .doubleAttributeType, .floatAttributeType: return .double(double)
            case .dateAttributeType: return .date(Date(timeIntervalSinceReferenceDate: double))
            case .decimalAttributeType: return .decimal(SQLValueCoding.decimal(from: double))
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                return Int64(exactly: double.rounded(.towardZero)).map(StoreValue.int)
            case .stringAttributeType: return .string(String(double))
            case .UUIDAttributeType, .URIAttributeType: return nil
            default: return .double(double)
            }
        case .string(let string):
            switch type {
            case .URIAttributeType: return URL(string: string).map(StoreValue.uri)
            case .UUIDAttributeType: return UUID(uuidString: string).map(StoreValue.uuid)
            case .decimalAttributeType: return Decimal(string: string).map(StoreValue.decimal)
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                return Int64(string).map(StoreValue.int)
            case .doubleAttributeType, .floatAttributeType: return Double(string).map(StoreValue.double)
            case .dateAttributeType: return Double(string).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
            case .binaryDataAttributeType, .transformableAttributeType: return .data(Data(string.utf8))
            default: return .string(string)
            }
        case .blob(let data):
            switch type {
            case .UUIDAttributeType: return AttributeConversion.uuid(from: data).map(StoreValue.uuid)
            case .stringAttributeType: return .string(String(decoding: data, as: UTF8.self))
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
                 .doubleAttributeType, .floatAttributeType, .decimalAttributeType, .dateAttributeType, .URIAttributeType:
                return nil
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
