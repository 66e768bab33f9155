import Foundation

/// Converts attribute values between their public form (what `value(forKey:)` returns and
/// `setValue(_:forKey:)` accepts) and their store form (`StoreValue`).
///
/// Public forms follow Apple: numbers and booleans are `NSNumber` (so `as? Int`, `as? Int64` and
/// `as? Bool` all work), decimals `NSDecimalNumber`, and strings, dates, data, UUIDs and URLs
/// their Swift value types, which bridge to the `NS` classes.
package enum AttributeConversion {
    /// Types whose values are kept as arbitrary objects rather than store values.
    @inline(__always)
    package static func isCustom(_ type: NSAttributeType) -> Bool {
        type == .transformableAttributeType || type == .undefinedAttributeType
            || type == .compositeAttributeType || type == .objectIDAttributeType
    }

    // MARK: - Store → public

    /// The public value of a store value for an attribute type.
    package static func publicValue(_ value: StoreValue, type: NSAttributeType) -> Any? {
        switch value {
        case .null, .unloaded: return nil
        case .int(let int):
            switch type {
            case .booleanAttributeType: return NSNumber(value: int != 0)
            case .integer16AttributeType: return NSNumber(value: Int16(truncatingIfNeeded: int))
            case .integer32AttributeType: return NSNumber(value: Int32(truncatingIfNeeded: int))
            case .doubleAttributeType: return NSNumber(value: Double(int))
            case .floatAttributeType: return NSNumber(value: Float(int))
            case .decimalAttributeType: return NSDecimalNumber(value: int)
            case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: Double(int))
            default: return NSNumber(value: int)
            }
        case .double(let double):
            switch type {
            case .floatAttributeType: return NSNumber(value: Float(double))
            case .decimalAttributeType: return NSDecimalNumber(decimal: Decimal(double))
            case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: double)
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
                return NSNumber(value: Int64(exactly: double.rounded(.towardZero)) ?? 0)
            case .booleanAttributeType: return NSNumber(value: double != 0)
            default: return NSNumber(value: double)
            }
        case .string(let string):
            if type == .URIAttributeType { return URL(string: string) }
            return string
        case .date(let date): return date
        case .data(let data):
            if type == .UUIDAttributeType, data.count == 16 { return uuid(from: data) }
            return data
        case .uuid(let uuid): return uuid
        case .decimal(let decimal): return NSDecimalNumber(decimal: decimal)
        case .uri(let url): return url
        case .objectID(let id): return id
        case .objectIDs(let ids): return ids
        }
    }

    package static func uuid(from data: Data) -> UUID? {
        guard data.count == 16 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in buffer.copyBytes(from: data) }
        return UUID(uuid: bytes)
    }

    // MARK: - Public → store

    /// The store value for a public value, or nil when the value's type is wrong for the attribute.
    package static func storeValue(_ value: Any?, type: NSAttributeType) -> StoreValue? {
        guard let value else { return .null }
        // NSNull is checked only when the value does not convert: a failed class cast from Any
        // looks up bridging conformances, which costs more than the conversion itself.
        if let converted = convertedValue(value, type: type) { return converted }
        return value is NSNull ? .null : nil
    }

    /// The store value of a non-nil public value, or nil when it does not convert (`NSNull`
    /// included: callers that accept it check it after, as `storeValue(_:type:)` does).
    package static func convertedValue(_ value: Any, type: NSAttributeType) -> StoreValue? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return integer(value).map(StoreValue.int)
        case .booleanAttributeType:
            if let bool = value as? Bool { return .int(bool ? 1 : 0) }
            return integer(value).map { .int($0 != 0 ? 1 : 0) }
        case .doubleAttributeType:
            return double(value).map(StoreValue.double)
        case .floatAttributeType:
            // A Float attribute holds what a Float can hold, in memory and in the store alike.
            return double(value).map { .double(Double(Float($0))) }
        case .decimalAttributeType:
            if let decimal = value as? Decimal { return .decimal(decimal) }
            if let number = value as? NSNumber { return .decimal(number.decimalValue) }
            return nil
        case .stringAttributeType:
            if let string = value as? String { return .string(string) }
            return nil
        case .dateAttributeType:
            if let date = value as? Date { return .date(date) }
            return nil
        case .binaryDataAttributeType:
            if let data = value as? Data { return .data(data) }
            if let bytes = value as? [UInt8] { return .data(Data(bytes)) }
            return nil
        case .UUIDAttributeType:
            if let uuid = value as? UUID { return .uuid(uuid) }
            return nil
        case .URIAttributeType:
            if let url = value as? URL { return .uri(url) }
            return nil
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType, .objectIDAttributeType:
            return nil
        }
    }

    /// The store value of an attribute's default value (`.null` when it has none).
    package static func storeValue(defaultOf attribute: NSAttributeDescription) -> StoreValue {
        guard let value = attribute.defaultValue else { return .null }
        return storeValue(value, type: attribute.attributeType) ?? .null
    }

    package static func integer(_ value: Any) -> Int64? {
        // NSNumber first, recognised by its metatype: on Linux a failed `as Int` on an NSNumber
        // goes through Foundation's bridging and costs ~10× the whole conversion.
        if Swift.type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return number.int64Value
        }
        switch value {
        case let int as Int: return Int64(int)
        case let int as Int64: return int
        case let int as Int32: return Int64(int)
        case let int as Int16: return Int64(int)
        case let int as Int8: return Int64(int)
        case let int as UInt: return Int64(truncatingIfNeeded: int)
        case let int as UInt64: return Int64(truncatingIfNeeded: int)
        case let int as UInt32: return Int64(int)
        case let int as UInt16: return Int64(int)
        case let int as UInt8: return Int64(int)
        case let bool as Bool: return bool ? 1 : 0
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).int64Value
        case let number as NSNumber: return number.int64Value
        case let double as Double where double.isFinite: return Int64(exactly: double.rounded(.towardZero))
        case let float as Float where float.isFinite: return Int64(exactly: Double(float).rounded(.towardZero))
        default: return nil
        }
    }

    package static func double(_ value: Any) -> Double? {
        if Swift.type(of: value) is NSNumber.Type, let number = value as? NSNumber { return number.doubleValue }
        switch value {
        case let double as Double: return double
        case let float as Float: return Double(float)
        case let int as Int: return Double(int)
        case let int as Int64: return Double(int)
        case let int as Int32: return Double(int)
        case let int as Int16: return Double(int)
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).doubleValue
        case let number as NSNumber: return number.doubleValue
        default: return nil
        }
    }

    /// A readable name of a value's type for error messages.
    package static func typeName(of value: Any?) -> String {
        guard let value else { return "nil" }
        return String(describing: Swift.type(of: value))
    }
}

