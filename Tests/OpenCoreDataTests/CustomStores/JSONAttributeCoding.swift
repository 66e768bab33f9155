import Foundation
import OpenCoreData

/// Attribute values as JSON, for the example custom stores (public API only): numbers and
/// dates as strings, so no precision is lost; data as base64.
enum JSONAttributeCoding {
    /// JSON for an attribute value; numbers and dates as strings, so no precision is lost.
    static func encode(_ value: Any?, _ attribute: NSAttributeDescription) throws -> Any {
        guard let value, !(value is NSNull) else { return NSNull() }
        let encoded: Any?
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            encoded = Self.number(value).map { "\($0.int64Value)" }
        case .doubleAttributeType, .floatAttributeType:
            encoded = Self.number(value).map { "\($0.doubleValue)" }
        case .booleanAttributeType:
            encoded = Self.number(value).map(\.boolValue)
        case .decimalAttributeType:
            encoded = ((value as? Decimal) ?? Self.number(value)?.decimalValue).map { "\($0)" }
        case .stringAttributeType:
            encoded = value as? String
        case .dateAttributeType:
            encoded = (value as? Date).map { "\($0.timeIntervalSinceReferenceDate)" }
        case .binaryDataAttributeType:
            encoded = (value as? Data)?.base64EncodedString()
        case .UUIDAttributeType:
            encoded = (value as? UUID)?.uuidString
        case .URIAttributeType:
            encoded = (value as? URL)?.absoluteString
        default:
            encoded = JSONSerialization.isValidJSONObject([value]) ? value : nil
        }
        guard let encoded else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError,
                          userInfo: [NSLocalizedDescriptionKey: "The value of '\(attribute.name)' cannot be written as JSON."])
        }
        return encoded
    }

    static func number(_ value: Any) -> NSNumber? {
        if let number = value as? NSNumber { return number }
        if let bool = value as? Bool { return NSNumber(value: bool) }
        if let int = value as? Int { return NSNumber(value: int) }
        if let int = value as? Int64 { return NSNumber(value: int) }
        if let int = value as? Int32 { return NSNumber(value: int) }
        if let int = value as? Int16 { return NSNumber(value: int) }
        if let double = value as? Double { return NSNumber(value: double) }
        if let float = value as? Float { return NSNumber(value: float) }
        return nil
    }

    static func decode(_ json: Any, _ attribute: NSAttributeDescription) throws -> Any? {
        if json is NSNull { return nil }
        let text = json as? String
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return text.flatMap(Int64.init).map { NSNumber(value: $0) }
        case .doubleAttributeType, .floatAttributeType:
            return text.flatMap(Double.init).map { NSNumber(value: $0) }
        case .booleanAttributeType:
            return (json as? NSNumber).map { NSNumber(value: $0.boolValue) }
        case .decimalAttributeType:
            return text.flatMap { Decimal(string: $0) }
        case .stringAttributeType:
            return text
        case .dateAttributeType:
            return text.flatMap(Double.init).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .binaryDataAttributeType:
            return text.flatMap { Data(base64Encoded: $0) }
        case .UUIDAttributeType:
            return text.flatMap(UUID.init(uuidString:))
        case .URIAttributeType:
            return text.flatMap(URL.init(string:))
        default:
            return json
        }
    }
}
