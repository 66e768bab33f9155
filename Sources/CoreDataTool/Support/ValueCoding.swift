import Foundation
import OpenCoreData

/// Attribute values in the tool's JSON-safe form, and back.
///
/// | type | JSON |
/// |---|---|
/// | Integer 16/32/64 | number |
/// | Boolean | `true` / `false` |
/// | Double, Float | number; `"NaN"`, `"Infinity"`, `"-Infinity"` as strings |
/// | Decimal | string (`"10.11"`), so no digit is lost through a double |
/// | Date | string, ISO 8601 in UTC with up to nine fractional digits |
/// | String, URI | string |
/// | UUID | string (`"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"`) |
/// | Binary, Transformable | string, base64 of the stored bytes |
/// | Composite | object: one member per element, in element order, each in its type's form (`null` when nil) |
enum ValueCoding {
    /// Whether the tool reads and writes an attribute's values (not transient, not object-ID or undefined).
    static func isCarried(_ attribute: NSAttributeDescription) -> Bool {
        guard !attribute.isTransient else { return false }
        switch attribute.attributeType {
        case .objectIDAttributeType, .undefinedAttributeType: return false
        default: return true
        }
    }

    /// Whether an import may set the attribute (derived attributes are computed by the store).
    static func isImportable(_ attribute: NSAttributeDescription) -> Bool {
        isCarried(attribute) && !(attribute is NSDerivedAttributeDescription)
    }

    // MARK: - To JSON and text

    /// The JSON form of an attribute value.
    static func json(_ value: Any?, attribute: NSAttributeDescription) -> JSONValue {
        guard let value, !(value is NSNull) else { return .null }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if let number = value as? NSNumber { return .integer(number.int64Value) }
        case .booleanAttributeType:
            if let number = value as? NSNumber { return .bool(number.boolValue) }
            if let bool = value as? Bool { return .bool(bool) }
        case .doubleAttributeType:
            if let number = value as? NSNumber { return .double(number.doubleValue) }
        case .floatAttributeType:
            if let number = value as? NSNumber { return .float(number.floatValue) }
        case .decimalAttributeType:
            if let number = value as? NSDecimalNumber { return .string(number.stringValue) }
            if let decimal = value as? Decimal { return .string(NSDecimalNumber(decimal: decimal).stringValue) }
            if let number = value as? NSNumber { return .string(number.stringValue) }
        case .dateAttributeType:
            if let date = value as? Date { return .string(ISO8601.format(date)) }
        case .stringAttributeType:
            if let string = value as? String { return .string(string) }
        case .URIAttributeType:
            if let url = value as? URL { return .string(url.absoluteString) }
        case .UUIDAttributeType:
            if let uuid = value as? UUID { return .string(uuid.uuidString) }
        case .binaryDataAttributeType:
            if let data = value as? Data { return .string(data.base64EncodedString()) }
        case .transformableAttributeType:
            if let data = transformableBytes(value, attribute: attribute) { return .string(data.base64EncodedString()) }
            return .null
        case .compositeAttributeType:
            guard let composite = attribute as? NSCompositeAttributeDescription, let dictionary = CompositeCoding.dictionary(value) else { break }
            var object = JSONObject()
            for element in composite.elements { object[element.name] = json(dictionary[element.name], attribute: element) }
            return .object(object)
        default:
            break
        }
        return .string(String(describing: value))
    }

    /// The bytes a transformable value is stored as (what the store holds), or nil.
    static func transformableBytes(_ value: Any, attribute: NSAttributeDescription) -> Data? {
        if let data = value as? Data { return data }
        if case .data(let data) = TransformableCoding.encode(value, attribute: attribute) { return data }
        return nil
    }

    /// An attribute value as one line of text, for tables and CSV (nil prints as empty).
    static func text(_ value: Any?, attribute: NSAttributeDescription) -> String? {
        switch json(value, attribute: attribute) {
        case .null: return nil
        case .bool(let bool): return bool ? "true" : "false"
        case .number(let text), .string(let text): return text
        case let other: return JSONWriter.render(other)
        }
    }

    /// A value as the store will give it back: decimals go through a REAL column (as in Apple's
    /// stores), so `12.345678901234567890` reads back as `12.345678901234567`. Used to tell
    /// whether an import changes anything.
    static func asStored(_ value: Any?, attribute: NSAttributeDescription) -> Any? {
        guard attribute.attributeType == .decimalAttributeType, let number = value as? NSDecimalNumber else { return value }
        return NSDecimalNumber(decimal: SQLValueCoding.decimal(from: SQLValueCoding.double(from: number.decimalValue)))
    }

    // MARK: - From JSON

    /// The value to set for an attribute from its JSON form.
    /// - Throws: a message saying what was expected, for the caller to put in context.
    static func value(from json: JSONValue, attribute: NSAttributeDescription) throws(ValueCodingError) -> Any? {
        if json == .null { return nil }
        let type = attribute.attributeType
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            guard case .number(let text) = json, let int = Int64(text) else {
                throw ValueCodingError("expected an integer, got \(json.kindDescription)")
            }
            let bounds: ClosedRange<Int64> = type == .integer16AttributeType ? Int64(Int16.min)...Int64(Int16.max)
                : type == .integer32AttributeType ? Int64(Int32.min)...Int64(Int32.max) : Int64.min...Int64.max
            guard bounds.contains(int) else { throw ValueCodingError("\(int) does not fit in \(typeName(type))") }
            return NSNumber(value: int)
        case .booleanAttributeType:
            if case .bool(let bool) = json { return NSNumber(value: bool) }
            if case .number(let text) = json, text == "0" || text == "1" { return NSNumber(value: text == "1") }
            throw ValueCodingError("expected true or false, got \(json.kindDescription)")
        case .doubleAttributeType, .floatAttributeType:
            let double: Double?
            switch json {
            case .number(let text): double = Double(text)
            case .string("NaN"): double = .nan
            case .string("Infinity"): double = .infinity
            case .string("-Infinity"): double = -.infinity
            default: double = nil
            }
            guard let double else { throw ValueCodingError("expected a number, got \(json.kindDescription)") }
            return type == .floatAttributeType ? NSNumber(value: Float(double)) : NSNumber(value: double)
        case .decimalAttributeType:
            let text: String
            switch json {
            case .string(let string): text = string
            case .number(let number): text = number
            default: throw ValueCodingError("expected a decimal as a string (\"10.11\"), got \(json.kindDescription)")
            }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN,
                  text.allSatisfy({ "0123456789+-.eE".contains($0) }) else {
                throw ValueCodingError("\"\(text)\" is not a decimal number")
            }
            return NSDecimalNumber(decimal: decimal)
        case .dateAttributeType:
            guard case .string(let text) = json else { throw ValueCodingError("expected an ISO 8601 date string, got \(json.kindDescription)") }
            guard let date = ISO8601.parse(text) else {
                throw ValueCodingError("\"\(text)\" is not an ISO 8601 date (like 2024-03-01T12:30:05Z)")
            }
            return date
        case .stringAttributeType:
            guard case .string(let text) = json else { throw ValueCodingError("expected a string, got \(json.kindDescription)") }
            return text
        case .URIAttributeType:
            guard case .string(let text) = json, let url = URL(string: text) else {
                throw ValueCodingError("expected a URI string, got \(json.kindDescription)")
            }
            return url
        case .UUIDAttributeType:
            guard case .string(let text) = json, let uuid = UUID(uuidString: text) else {
                throw ValueCodingError("expected a UUID string, got \(json.kindDescription)")
            }
            return uuid
        case .binaryDataAttributeType, .transformableAttributeType:
            guard case .string(let text) = json, let data = Data(base64Encoded: text) else {
                throw ValueCodingError("expected base64 data, got \(json.kindDescription)")
            }
            return data
        case .compositeAttributeType:
            guard let composite = attribute as? NSCompositeAttributeDescription, case .object(let object) = json else {
                throw ValueCodingError("expected an object of the composite's elements, got \(json.kindDescription)")
            }
            var dictionary: [String: Any] = [:]
            for key in object.keys {
                guard let element = composite.elements.first(where: { $0.name == key }) else {
                    throw ValueCodingError("'\(key)' is not an element of the composite '\(composite.name)'")
                }
                do throws(ValueCodingError) {
                    if let value = try self.value(from: object[key] ?? .null, attribute: element) { dictionary[key] = value }
                } catch {
                    throw ValueCodingError("\(composite.name).\(key): \(error.description)")
                }
            }
            return dictionary
        default:
            throw ValueCodingError("\(typeName(type)) attributes cannot be imported")
        }
    }

    /// The model editor's name of an attribute type (`Integer 64`, `String`).
    static func typeName(_ type: NSAttributeType) -> String {
        switch type {
        case .undefinedAttributeType: "Undefined"
        case .integer16AttributeType: "Integer 16"
        case .integer32AttributeType: "Integer 32"
        case .integer64AttributeType: "Integer 64"
        case .decimalAttributeType: "Decimal"
        case .doubleAttributeType: "Double"
        case .floatAttributeType: "Float"
        case .stringAttributeType: "String"
        case .booleanAttributeType: "Boolean"
        case .dateAttributeType: "Date"
        case .binaryDataAttributeType: "Binary"
        case .UUIDAttributeType: "UUID"
        case .URIAttributeType: "URI"
        case .transformableAttributeType: "Transformable"
        case .objectIDAttributeType: "ObjectID"
        case .compositeAttributeType: "Composite"
        }
    }
}

/// A JSON value that does not fit an attribute.
struct ValueCodingError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Object URIs as text, without building a `URL` for each (the tool writes one or more per object).
enum URIText {
    /// `x-coredata://<store UUID>/<Entity>/p<key>`, as `uriRepresentation().absoluteString`.
    static func of(_ id: NSManagedObjectID) -> String {
        if id.isTemporaryID { return id.uriRepresentation().absoluteString }
        return "x-coredata://\(id.storeIdentifier)/\(id.entity.name ?? "?")/p\(id.primaryKey)"
    }
}
