import Foundation

/// Converts composite attribute values between their public form (a dictionary keyed by
/// element name, nested for nested composites), the values of their elements (one store value
/// per non-composite element, in `NSCompositeAttributeDescription.leaves` order, one column
/// each in SQL) and the one store value a snapshot keeps for the whole composite.
///
/// The snapshot form is `.data` in a private, versioned encoding of the element values, so that
/// every path that carries custom attribute values (changes, undo, merges, history, the
/// in-memory and atomic stores) carries composites unchanged; only SQL stores take it apart
/// into columns. A nil composite is `.null`; so is an optional composite whose elements are all
/// nil, which is how a row of NULL columns reads back.
package enum CompositeCoding {
    // MARK: - Public ↔ element values

    /// The element values of a public value, or nil when it is not a dictionary or an element's
    /// value has the wrong type. Keys that name no element are ignored.
    package static func leafValues(ofPublic value: Any?, composite: NSCompositeAttributeDescription) -> [StoreValue]? {
        let leaves = composite.leaves
        guard let value, !(value is NSNull) else { return Array(repeating: .null, count: leaves.count) }
        guard let root = dictionary(value) else { return nil }
        var result: [StoreValue] = []
        result.reserveCapacity(leaves.count)
        for leaf in leaves {
            var current: Any? = root
            for name in leaf.path {
                guard let unwrapped = current, !(unwrapped is NSNull) else { current = nil; break }
                guard let level = dictionary(unwrapped) else { return nil }
                current = level[name]
            }
            guard let element = current, !(element is NSNull) else { result.append(.null); continue }
            let type = leaf.attribute.attributeType
            if type == .transformableAttributeType || type == .undefinedAttributeType {
                result.append(TransformableCoding.encode(element, attribute: leaf.attribute))
            } else if let converted = AttributeConversion.convertedValue(element, type: type) {
                result.append(converted)
            } else {
                return nil
            }
        }
        return result
    }

    /// The public value (a dictionary of the non-nil elements) of element values; nil when
    /// every element is nil and the composite is optional.
    package static func publicValue(leafValues values: [StoreValue], composite: NSCompositeAttributeDescription) -> Any? {
        if composite.isOptional && values.allSatisfy(\.isNull) { return nil }
        var root: [String: Any] = [:]
        for (leaf, value) in zip(composite.leaves, values) {
            let type = leaf.attribute.attributeType
            let element: Any?
            if type == .transformableAttributeType || type == .undefinedAttributeType {
                if case .data(let data) = value { element = TransformableCoding.decode(data, attribute: leaf.attribute) } else { element = nil }
            } else {
                element = AttributeConversion.publicValue(value, type: type)
            }
            guard let element else { continue }
            insert(element, at: leaf.path[...], into: &root)
        }
        return root
    }

    private static func insert(_ value: Any, at path: ArraySlice<String>, into dictionary: inout [String: Any]) {
        guard let first = path.first else { return }
        if path.count == 1 { dictionary[first] = value; return }
        var nested = dictionary[first] as? [String: Any] ?? [:]
        insert(value, at: path.dropFirst(), into: &nested)
        dictionary[first] = nested
    }

    /// A dictionary keyed by strings, from any of the dictionary types a caller may pass.
    package static func dictionary(_ value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let dictionary = value as? [AnyHashable: Any] {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let name = key.base as? String else { return nil }
                result[name] = element
            }
            return result
        }
        if let dictionary = value as? NSDictionary {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let name = key as? String else { return nil }
                result[name] = element
            }
            return result
        }
        return nil
    }

    // MARK: - Public ↔ snapshot

    /// The snapshot value of a public value; nil when the value does not fit the composite.
    package static func storeValue(ofPublic value: Any?, composite: NSCompositeAttributeDescription) -> StoreValue? {
        guard let value, !(value is NSNull) else { return .null }
        guard let leaves = leafValues(ofPublic: value, composite: composite) else { return nil }
        return storeValue(leafValues: leaves, composite: composite)
    }

    /// The public value of a snapshot value.
    package static func publicValue(_ value: StoreValue, composite: NSCompositeAttributeDescription) -> Any? {
        guard case .data(let data) = value else { return nil }
        return publicValue(leafValues: leafValues(data, count: composite.leaves.count), composite: composite)
    }

    // MARK: - Element values ↔ snapshot

    /// The snapshot value of element values.
    package static func storeValue(leafValues values: [StoreValue], composite: NSCompositeAttributeDescription) -> StoreValue {
        if composite.isOptional && values.allSatisfy(\.isNull) { return .null }
        return .data(encode(values))
    }

    /// The element values of a snapshot value (`count` of them; nil elements for `.null`).
    package static func leafValues(_ value: StoreValue, count: Int) -> [StoreValue] {
        guard case .data(let data) = value else { return Array(repeating: .null, count: count) }
        return leafValues(data, count: count)
    }

    // MARK: - Encoding

    /// Format tag of the encoding (version 1).
    private static let magic: UInt8 = 0xC1

    private enum Tag: UInt8 {
        case null = 0, int, double, string, date, data, uuid, decimal, uri
    }

    /// Encodes element values: the tag byte, then per value a type byte and its payload
    /// (8 bytes little-endian for numbers and dates, 16 for UUIDs, a 32-bit length and the
    /// bytes for text and data).
    static func encode(_ values: [StoreValue]) -> Data {
        var data = Data([magic])
        for value in values {
            switch value {
            case .int(let int): data.append(Tag.int.rawValue); append(UInt64(bitPattern: int), to: &data)
            case .double(let double): data.append(Tag.double.rawValue); append(double.bitPattern, to: &data)
            case .string(let string): data.append(Tag.string.rawValue); append(Data(string.utf8), to: &data)
            case .date(let date): data.append(Tag.date.rawValue); append(date.timeIntervalSinceReferenceDate.bitPattern, to: &data)
            case .data(let bytes): data.append(Tag.data.rawValue); append(bytes, to: &data)
            case .uuid(let uuid): data.append(Tag.uuid.rawValue); data.append(SQLValueCoding.uuidBytes(uuid))
            case .decimal(let decimal): data.append(Tag.decimal.rawValue); append(Data(decimal.description.utf8), to: &data)
            case .uri(let url): data.append(Tag.uri.rawValue); append(Data(url.absoluteString.utf8), to: &data)
            case .null, .unloaded, .objectID, .objectIDs: data.append(Tag.null.rawValue)
            }
        }
        return data
    }

    /// Decodes element values; what is missing, truncated or unknown reads as nil (bytes that
    /// are not this encoding, such as an older transformable archive, give all nils).
    static func leafValues(_ data: Data, count: Int) -> [StoreValue] {
        var result: [StoreValue] = []
        result.reserveCapacity(count)
        let bytes = [UInt8](data)
        guard bytes.first == magic else { return Array(repeating: .null, count: count) }
        var offset = 1
        while result.count < count, offset < bytes.count {
            guard let tag = Tag(rawValue: bytes[offset]) else { break }
            offset += 1
            switch tag {
            case .null: result.append(.null)
            case .int:
                guard let word = word(bytes, &offset) else { break }
                result.append(.int(Int64(bitPattern: word)))
            case .double:
                guard let word = word(bytes, &offset) else { break }
                result.append(.double(Double(bitPattern: word)))
            case .date:
                guard let word = word(bytes, &offset) else { break }
                result.append(.date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: word))))
            case .uuid:
                guard offset + 16 <= bytes.count, let uuid = AttributeConversion.uuid(from: Data(bytes[offset..<offset + 16])) else {
                    offset = bytes.count
                    break
                }
                offset += 16
                result.append(.uuid(uuid))
            case .string, .data, .decimal, .uri:
                guard let chunk = chunk(bytes, &offset) else { break }
                switch tag {
                case .string: result.append(.string(String(decoding: chunk, as: UTF8.self)))
                case .data: result.append(.data(Data(chunk)))
                case .decimal: result.append(Decimal(string: String(decoding: chunk, as: UTF8.self)).map(StoreValue.decimal) ?? .null)
                default: result.append(URL(string: String(decoding: chunk, as: UTF8.self)).map(StoreValue.uri) ?? .null)
                }
            }
        }
        while result.count < count { result.append(.null) }
        return result
    }

    private static func append(_ word: UInt64, to data: inout Data) {
        withUnsafeBytes(of: word.littleEndian) { data.append(contentsOf: $0) }
    }

    private static func append(_ bytes: Data, to data: inout Data) {
        let length = UInt32(truncatingIfNeeded: bytes.count)
        withUnsafeBytes(of: length.littleEndian) { data.append(contentsOf: $0) }
        data.append(bytes)
    }

    private static func word(_ bytes: [UInt8], _ offset: inout Int) -> UInt64? {
        guard offset + 8 <= bytes.count else { offset = bytes.count; return nil }
        var word: UInt64 = 0
        for index in 0..<8 { word |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += 8
        return word
    }

    private static func chunk(_ bytes: [UInt8], _ offset: inout Int) -> ArraySlice<UInt8>? {
        guard offset + 4 <= bytes.count else { offset = bytes.count; return nil }
        var length = 0
        for index in 0..<4 { length |= Int(bytes[offset + index]) << (8 * index) }
        offset += 4
        guard length <= bytes.count - offset else { offset = bytes.count; return nil }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }
}
