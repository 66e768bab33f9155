import Foundation

// MARK: - PredicateValue

/// Reads the values that predicates compare: strings, dates, collections, optionals.
package enum PredicateValue {
    /// Removes `Optional` layers, `NSNull` and `AnyHashable` boxes hidden inside an `Any`.
    package static func unwrap(_ value: Any?) -> Any? {
        guard var current = value else { return nil }
        while true {
            if let optional = current as? any AnyOptional {
                guard let wrapped = optional.wrappedAny else { return nil }
                current = wrapped
            } else if type(of: current) == AnyHashable.self, let hashable = current as? AnyHashable {
                current = hashable.base
            } else if current is NSNull {
                return nil
            } else {
                return current
            }
        }
    }

    /// The value as a Swift string, for `String`, `NSString`, `Substring` and `Character`.
    package static func string(_ value: Any?) -> String? {
        switch value {
        case let string as String: string
        case let substring as Substring: String(substring)
        case let character as Character: String(character)
        case let string as NSString: string as String
        default: nil
        }
    }

    /// The value as a `Date`, for `Date` and `NSDate`.
    package static func date(_ value: Any?) -> Date? {
        switch value {
        case let date as Date: date
        case let date as NSDate: date as Date
        default: nil
        }
    }

    // MARK: - Collections

    /// A collection's elements, unwrapped, and whether the collection is unordered (a set).
    package struct Elements {
        package var values: [Any]
        package var isUnordered: Bool
    }

    /// The elements of an array, set, `NSArray`, `NSSet`, `NSOrderedSet` or other sequence.
    ///
    /// Strings, `Data` and dictionaries are not collections here, as in Apple's predicates.
    package static func elements(_ value: Any?) -> Elements? {
        guard let value else { return nil }
        if value is String || value is Substring || value is Data { return nil }
        let type = type(of: value)
        if type is NSString.Type || type is NSData.Type || type is NSDictionary.Type { return nil }
        if type is NSOrderedSet.Type, let ordered = value as? NSOrderedSet {
            return Elements(values: ordered.array, isUnordered: false)
        }
        if type is NSSet.Type, let set = value as? NSSet {
            return Elements(values: set.allObjects, isUnordered: true)
        }
        if type is NSArray.Type, let array = value as? NSArray {
            return Elements(values: array.map { $0 }, isUnordered: false)
        }
        if let array = value as? [Any] {
            return Elements(values: array, isUnordered: false)
        }
        if let set = value as? Set<AnyHashable> {
            return Elements(values: set.map(\.base), isUnordered: true)
        }
        if let sequence = value as? any Sequence, !isDictionary(value) {
            return Elements(values: Array(anySequence: sequence), isUnordered: false)
        }
        return nil
    }

    private static func isDictionary(_ value: Any) -> Bool {
        value is [AnyHashable: Any] || String(describing: type(of: value)).hasPrefix("Dictionary<")
    }

    /// The elements of a constant collection, ordered canonically (sets by their printed form).
    package static func constantCollectionElements(_ value: Any?) -> [Any?]? {
        guard let collection = elements(value) else { return nil }
        let values = collection.values.map { unwrap($0) }
        guard collection.isUnordered else { return values }
        return values.sorted { PredicateFormatter.formatConstant($0) < PredicateFormatter.formatConstant($1) }
    }

    /// Values of a dictionary-like value (`[K: V]`, `NSDictionary`), for `IN`.
    package static func dictionaryValues(_ value: Any?) -> [Any]? {
        switch value {
        case let dictionary as NSDictionary: dictionary.allValues
        case let dictionary as [AnyHashable: Any]: Array(dictionary.values)
        default: nil
        }
    }

    // MARK: - CAST

    /// Errors from folding `CAST(constant, 'Type')`.
    package struct CastError: Error {}

    /// Folds `CAST(constant, "NSDate")` and friends into a constant, as printed by `predicateFormat`.
    ///
    /// Returns `nil` when the cast is left for evaluation time.
    package static func foldCast(_ value: Any?, to typeName: String) throws(CastError) -> Any? {
        switch typeName {
        case "NSDate":
            guard let number = PredicateNumber(value) else { return nil }
            return Date(timeIntervalSinceReferenceDate: number.doubleValue)
        case "NSUUID":
            guard let text = string(value) else { return nil }
            guard let uuid = UUID(uuidString: text) else { throw CastError() }
            return uuid
        case "NSURL":
            guard let text = string(value) else { return nil }
            guard let url = URL(string: text) else { throw CastError() }
            return url
        case "NSData":
            guard let text = string(value) else { return nil }
            guard let data = Data(base64Encoded: text) else { throw CastError() }
            return data
        case "NSDecimalNumber":
            guard let text = string(value) else { return nil }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw CastError() }
            return decimal
        default:
            return nil
        }
    }

    /// Evaluates `CAST(value, type)` at run time.
    package static func cast(_ value: Any?, to typeName: String) -> Any? {
        if let folded = try? foldCast(value, to: typeName) { return folded }
        switch typeName {
        case "NSString":
            guard let value else { return nil }
            if let text = string(value) { return text }
            if let number = PredicateNumber(value) { return PredicateFormatter.formatConstant(number.value) }
            return String(describing: value)
        case "NSNumber":
            if let number = PredicateNumber(value) { return number.value }
            if let date = date(value) { return date.timeIntervalSinceReferenceDate }
            if let text = string(value) {
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if let int = Int(trimmed) { return int }
                return Double(trimmed)
            }
            return nil
        case "NSDate":
            if let date = date(value) { return date }
            if let text = string(value) { return ISO8601DateFormatter().date(from: text) }
            return nil
        default:
            return value
        }
    }
}

// MARK: - AnyOptional

/// Lets `unwrap` see through `Optional` values stored in `Any`.
package protocol AnyOptional {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptional {
    package var wrappedAny: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
}

// MARK: - Array(anySequence:)

extension Array where Element == Any {
    /// The elements of an existential sequence.
    init(anySequence sequence: any Sequence) {
        func collect<S: Sequence>(_ sequence: S) -> [Any] { sequence.map { $0 as Any } }
        self = collect(sequence)
    }
}
