import Foundation
import GRDB

// MARK: - SQLConstant

/// Classifies and binds translation-time constants exactly as the store encodes values.
package enum SQLConstant {
    /// What a constant is, in the in-memory evaluator's terms.
    package enum Classification {
        case null
        case value(SQLValueKind, DatabaseValue)
        /// A managed object or object ID.
        case objectID(NSManagedObjectID)
        /// An array, set, ordered set or (for `IN`) dictionary's values.
        case collection([Any?])
        /// Anything else: never equal to a stored value.
        case opaque
    }

    /// The classification of a constant, in the order `ValueComparison` tests types.
    package static func classify(_ raw: Any?) -> Classification {
        guard let value = PredicateValue.unwrap(raw) else { return .null }
        // The usual constants of a lookup, by exact type: a metatype comparison is cheap, while
        // each failed `as?` below is a full dynamic cast (a single-row fetch paid a dozen).
        let type = type(of: value)
        if type == String.self, let string = value as? String { return .value(.string, string.databaseValue) }
        if type == UUID.self, let uuid = value as? UUID { return .value(.uuid, SQLiteValueCoding.databaseValue(.uuid(uuid))) }
        if type == Int.self, let int = value as? Int { return .value(.number(isInteger: true), Int64(int).databaseValue) }
        if type == Int64.self, let int = value as? Int64 { return .value(.number(isInteger: true), int.databaseValue) }
        if let number = PredicateNumber(value) {
            switch number {
            case .int(let int): return .value(.number(isInteger: true), int.databaseValue)
            case .uint(let uint): return .value(.number(isInteger: false), Double(uint).databaseValue)
            case .double(let double): return double.isNaN ? .opaque : .value(.number(isInteger: false), double.databaseValue)
            case .decimal(let decimal): return .value(.number(isInteger: false), SQLiteValueCoding.double(from: decimal).databaseValue)
            }
        }
        if let string = PredicateValue.string(value) { return .value(.string, string.databaseValue) }
        if let date = PredicateValue.date(value) {
            return .value(.date, SQLiteValueCoding.databaseValue(.date(date)))
        }
        switch value {
        case let data as Data: return .value(.data, data.databaseValue)
        case let data as NSData: return .value(.data, (data as Data).databaseValue)
        case let uuid as UUID: return .value(.uuid, SQLiteValueCoding.databaseValue(.uuid(uuid)))
        case let uuid as NSUUID: return .value(.uuid, SQLiteValueCoding.databaseValue(.uuid(uuid as UUID)))
        case let url as URL: return .value(.url, SQLiteValueCoding.databaseValue(.uri(url)))
        case let url as NSURL: return .value(.url, SQLiteValueCoding.databaseValue(.uri(url as URL)))
        case let object as any StoredObjectReference: return .objectID(object.objectID)
        case let id as NSManagedObjectID: return .objectID(id)
        default: break
        }
        if let elements = PredicateValue.elements(value) { return .collection(elements.values.map { PredicateValue.unwrap($0) }) }
        return .opaque
    }
}
