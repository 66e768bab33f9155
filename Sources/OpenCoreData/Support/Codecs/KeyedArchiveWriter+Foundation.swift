import Foundation

extension KeyedArchiveWriter {
    /// The archived classes of Foundation's collections, as Apple records them in `$classes`.
    package enum Classes {
        static let array = ["NSArray", "NSObject"]
        static let mutableArray = ["NSMutableArray", "NSArray", "NSObject"]
        static let set = ["NSSet", "NSObject"]
        static let mutableSet = ["NSMutableSet", "NSSet", "NSObject"]
        static let dictionary = ["NSDictionary", "NSObject"]
        static let mutableDictionary = ["NSMutableDictionary", "NSDictionary", "NSObject"]
    }

    /// A reference to the archived form of a Foundation value (a default value, a `userInfo`
    /// entry, a predicate constant), or nil when the value has no archived form here.
    ///
    /// Writes what ``ArchiveValue/foundationValue(depth:)`` reads back: strings, numbers and
    /// data as primitives, `NSDate`, `NSUUID`, `NSURL`, `NSDecimalNumber`, and arrays, sets and
    /// dictionaries of those. `NSNull` archives as `$null`.
    ///
    /// - Parameter depth: How many more levels of nested collections may be encoded.
    package func foundationValue(_ value: Any?, depth: Int = 16) -> PropertyListValue? {
        guard let value, depth > 0 else { return value == nil ? Self.null : nil }
        switch value {
        case is NSNull:
            return Self.null
        case let string as String:
            return primitive(.string(string))
        case let bool as Bool where type(of: value) == Bool.self:
            return primitive(.bool(bool))
        case let decimal as Decimal:
            return decimalNumber(decimal)
        case let number as NSDecimalNumber:
            return decimalNumber(number.decimalValue)
        case let date as Date:
            return object(classes: ["NSDate", "NSObject"], fields: [("NS.time", .real(date.timeIntervalSinceReferenceDate))])
        case let data as Data:
            return primitive(.data(data))
        case let uuid as UUID:
            return object(classes: ["NSUUID", "NSObject"], fields: [("NS.uuidbytes", .data(withUnsafeBytes(of: uuid.uuid) { Data($0) }))])
        case let url as URL:
            return object(classes: ["NSURL", "NSObject"], fields: [("NS.base", Self.null), ("NS.relative", primitive(.string(url.absoluteString)))])
        case let dictionary as [AnyHashable: Any]:
            var keys: [PropertyListValue] = []
            var values: [PropertyListValue] = []
            for (key, element) in dictionary.sorted(by: { "\($0.key)" < "\($1.key)" }) {
                guard let archivedKey = foundationValue(key.base, depth: depth - 1),
                      let archivedValue = foundationValue(element, depth: depth - 1) else { continue }
                keys.append(archivedKey)
                values.append(archivedValue)
            }
            return self.dictionary(keys: keys, values: values, classes: Classes.dictionary)
        case let set as Set<AnyHashable>:
            return array(set.compactMap { foundationValue($0.base, depth: depth - 1) }, classes: Classes.set)
        case let elements as [Any]:
            return array(elements.compactMap { foundationValue($0, depth: depth - 1) }, classes: Classes.array)
        default:
            return number(value).map(primitive)
        }
    }

    /// A number as a property-list integer, real or boolean; nil when `value` is not a number.
    ///
    /// `NSNumber` converts to `Double` on Linux whatever it holds, so its kind comes from `objCType`.
    package func number(_ value: Any) -> PropertyListValue? {
        if let number = value as? NSNumber, type(of: value as AnyObject) is NSNumber.Type {
            switch String(cString: number.objCType) {
            case "d", "f": return .real(number.doubleValue)
            case "Q": return .integer(Int64(bitPattern: number.uint64Value))
            default: return .integer(number.int64Value)
            }
        }
        switch value {
        case let integer as any BinaryInteger: return Int64(exactly: integer).map(PropertyListValue.integer)
        case let double as Double: return .real(double)
        case let float as Float: return .real(Double(float))
        default: return nil
        }
    }

    /// An archived `NSDecimalNumber`: the 128-bit mantissa little-endian, the exponent, the
    /// mantissa's length in 16-bit words and the sign.
    ///
    /// Foundation on Linux keeps `Decimal`'s fields internal, so the mantissa is rebuilt from the
    /// significand's digits (at most 38, which fit in 128 bits).
    private func decimalNumber(_ decimal: Decimal) -> PropertyListValue? {
        guard decimal.isFinite else { return nil }
        var low: UInt64 = 0
        var high: UInt64 = 0
        for character in "\(decimal.significand.magnitude)" {
            guard let digit = character.wholeNumberValue else { return nil }
            let lowProduct = low.multipliedFullWidth(by: 10)
            let (highTimesTen, highOverflow) = high.multipliedReportingOverflow(by: 10)
            let (newHigh, carryOverflow) = highTimesTen.addingReportingOverflow(lowProduct.high)
            let (newLow, lowCarry) = lowProduct.low.addingReportingOverflow(UInt64(digit))
            let (finalHigh, finalOverflow) = newHigh.addingReportingOverflow(lowCarry ? 1 : 0)
            guard !highOverflow, !carryOverflow, !finalOverflow else { return nil }
            (low, high) = (newLow, finalHigh)
        }
        var bytes: [UInt8] = []
        for word in [low, high] { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) } }
        var length = 8
        while length > 0, bytes[2 * length - 1] == 0, bytes[2 * length - 2] == 0 { length -= 1 }
        return object(classes: ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"], fields: [
            ("NS.mantissa", .data(Data(bytes))),
            ("NS.mantissa.bo", .integer(1)),
            ("NS.exponent", .integer(Int64(decimal.exponent))),
            ("NS.length", .integer(Int64(length))),
            ("NS.negative", .bool(decimal.sign == .minus && length > 0)),
            ("NS.compact", .bool(true)),
        ])
    }
}
