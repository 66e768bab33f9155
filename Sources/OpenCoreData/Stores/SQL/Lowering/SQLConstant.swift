import Foundation

// MARK: - SQLConstant

/// Classifies and binds translation-time constants exactly as the store encodes values (`SQLValueCoding`).
package enum SQLConstant {
    /// What a constant is, in the in-memory evaluator's terms.
    package enum Classification {
        case null
        case value(SQLValueKind, SQLValue)
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
        if type == String.self, let string = value as? String { return .value(.string, .text(string)) }
        if type == UUID.self, let uuid = value as? UUID { return .value(.uuid, SQLValueCoding.value(.uuid(uuid))) }
        if type == Int.self, let int = value as? Int { return .value(.number(isInteger: true), .integer(Int64(int))) }
        if type == Int64.self, let int = value as? Int64 { return .value(.number(isInteger: true), .integer(int)) }
        if let number = PredicateNumber(value) {
            switch number {
            case .int(let int): return .value(.number(isInteger: true), .integer(int))
            case .uint(let uint): return .value(.number(isInteger: false), .real(Double(uint)))
            // A NaN is NULL, as SQLite binds it and as memory compares it (`unwrapNumber`).
            case .double(let double): return double.isNaN ? .null : .value(.number(isInteger: false), .real(double))
            case .decimal(let decimal): return decimal.isNaN ? .null : .value(.number(isInteger: false), SQLValueCoding.value(.decimal(decimal)))
            }
        }
        if let string = PredicateValue.string(value) { return .value(.string, .text(string)) }
        if let date = PredicateValue.date(value) {
            return .value(.date, SQLValueCoding.value(.date(date)))
        }
        switch value {
        case let data as Data: return .value(.data, .blob(data))
        case let data as NSData: return .value(.data, .blob(data as Data))
        case let uuid as UUID: return .value(.uuid, SQLValueCoding.value(.uuid(uuid)))
        case let uuid as NSUUID: return .value(.uuid, SQLValueCoding.value(.uuid(uuid as UUID)))
        case let url as URL: return .value(.url, SQLValueCoding.value(.uri(url)))
        case let url as NSURL: return .value(.url, SQLValueCoding.value(.uri(url as URL)))
        case let object as any StoredObjectReference: return .objectID(object.objectID)
        case let id as NSManagedObjectID: return .objectID(id)
        default: break
        }
        if let elements = PredicateValue.elements(value) { return .collection(elements.values.map { PredicateValue.unwrap($0) }) }
        return .opaque
    }
}
