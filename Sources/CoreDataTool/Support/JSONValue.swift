import Foundation

/// A JSON value that keeps object keys in order and numbers as their exact text.
///
/// The tool reads and writes JSON itself: exports stream without building a document, imports
/// report errors by line and column and keep the file's record order, and 64-bit integers and
/// decimals are never rounded through `Double`.
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number as written (`42`, `-1.5e3`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A number from an integer.
    static func integer<T: BinaryInteger>(_ value: T) -> JSONValue { .number(String(value)) }

    /// A number from a double; non-finite values, which JSON cannot hold, become strings.
    static func double(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .string(value.isNaN ? "NaN" : (value > 0 ? "Infinity" : "-Infinity")) }
        return .number(shortestText(value))
    }

    /// A number from a float, written with the float's own shortest digits (`0.1`, not `0.100000001…`).
    static func float(_ value: Float) -> JSONValue {
        guard value.isFinite else { return .double(Double(value)) }
        return .number(shortestText(value))
    }

    private static func shortestText<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String {
        let text = value.description
        // Swift prints integral values as "5.0" and large ones as "1e+20": both are valid JSON.
        return text
    }

    /// What kind of value this is, for error messages.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let text): "the number \(text)"
        case .string(let text): "the string \"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }
}

/// A JSON object: members in their written order, with a lookup by key (the last duplicate wins).
struct JSONObject: Equatable, Sendable {
    private(set) var members: [(key: String, value: JSONValue)] = []
    private var index: [String: Int] = [:]

    init() {}

    init(_ members: [(String, JSONValue)]) {
        for (key, value) in members { self[key] = value }
    }

    subscript(key: String) -> JSONValue? {
        get { index[key].map { members[$0].value } }
        set {
            if let position = index[key] {
                if let newValue { members[position].value = newValue } else {
                    members.remove(at: position)
                    index = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1.key, $0) })
                }
            } else if let newValue {
                index[key] = members.count
                members.append((key, newValue))
            }
        }
    }

    var keys: [String] { members.map(\.key) }
    var count: Int { members.count }

    static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
