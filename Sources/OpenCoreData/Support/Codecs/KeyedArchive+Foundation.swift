import Foundation

extension ArchiveValue {
    /// The Foundation value of an archived value object, for default values and `userInfo`.
    ///
    /// Understands the plist primitives and the archived forms of `NSString`, `NSNumber`,
    /// `NSDecimalNumber`, `NSDate`, `NSData`, `NSUUID`, `NSURL`, `NSArray`, `NSSet` and
    /// `NSDictionary`. Anything else (an app's own `NSCoding` class, such as a transformable
    /// attribute's default value) is returned as nil: it can't be rebuilt without that class.
    ///
    /// - Parameter depth: How many more levels of nested collections may be decoded.
    func foundationValue(depth: Int = 16) throws -> Any? {
        switch self {
        case .null: return nil
        case .bool(let bool): return NSNumber(value: bool)
        case .number(let number): return number
        case .string(let string): return string
        case .data(let data): return data
        case .date(let date): return date
        case .array(let raw):
            guard depth > 0 else { return nil }
            return try raw.compactMap { try ArchiveValue.inline($0).foundationValue(depth: depth - 1) }
        case .object(let object):
            return try object.foundationValue(depth: depth)
        }
    }

    private static func inline(_ raw: Any) -> ArchiveValue {
        switch raw {
        case let bool as Bool: return .bool(bool)
        case let string as String: return .string(string)
        case let number as NSNumber: return .number(number)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        default: return .null
        }
    }
}

extension ArchivedObject {
    func foundationValue(depth: Int) throws -> Any? {
        guard depth > 0 else { return nil }
        switch className {
        case "NSString", "NSMutableString":
            return try string("NS.string")
        case "NSDate":
            guard case .number(let seconds) = try value("NS.time") else { return nil }
            return Date(timeIntervalSinceReferenceDate: seconds.doubleValue)
        case "NSData", "NSMutableData":
            if case .data(let data) = try value("NS.data") { return data }
            return nil
        case "NSUUID":
            guard case .data(let bytes) = try value("NS.uuidbytes"), bytes.count == 16 else { return nil }
            let b = [UInt8](bytes)
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        case "NSURL":
            guard let relative = try string("NS.relative") else { return nil }
            if let baseObject = try object("NS.base"), let base = try baseObject.foundationValue(depth: depth - 1) as? URL {
                return URL(string: relative, relativeTo: base)
            }
            return URL(string: relative)
        case "NSDecimalNumber":
            return try decimalNumber()
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            return try collectionElements().compactMap { try $0.foundationValue(depth: depth - 1) }
        case "NSDictionary", "NSMutableDictionary":
            var dictionary: [AnyHashable: Any] = [:]
            for entry in try dictionaryEntries() {
                guard let key = try entry.key.foundationValue(depth: depth - 1) as? AnyHashable,
                      let value = try entry.value.foundationValue(depth: depth - 1)
                else { continue }
                dictionary[key] = value
            }
            return dictionary
        default:
            return nil
        }
    }

    /// An archived `NSDecimalNumber`: a little-endian 128-bit mantissa, a power-of-ten exponent and a sign.
    private func decimalNumber() throws -> NSDecimalNumber? {
        guard case .data(let mantissaBytes) = try value("NS.mantissa"),
              let exponent = try integer("NS.exponent"), (-128...127).contains(exponent)
        else { return nil }
        let length = min(try integer("NS.length") ?? 8, 8)
        let bytes = [UInt8](mantissaBytes)
        var significand = Decimal(0)
        var scale = Decimal(1)
        for word in 0..<max(0, length) {
            let low = word * 2
            guard low + 1 < bytes.count else { break }
            significand += Decimal(Int(bytes[low]) | Int(bytes[low + 1]) << 8) * scale
            scale *= 65536
        }
        let negative = try bool("NS.negative") ?? false
        let value = Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: significand)
        return NSDecimalNumber(decimal: value)
    }
}
