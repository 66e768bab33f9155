import Foundation

/// Property-list values (store metadata) as JSON: data as base64, dates as ISO 8601.
enum PropertyListJSON {
    static func json(_ value: Any?) -> JSONValue {
        guard let value else { return .null }
        if type(of: value) == Bool.self, let bool = value as? Bool { return .bool(bool) }
        switch value {
        case let string as String: return .string(string)
        case let int as Int: return .integer(int)
        case let int as Int64: return .integer(int)
        case let double as Double: return .double(double)
        case let number as NSNumber:
            let kind = String(cString: number.objCType)
            if kind == "c" || kind == "B" { return .bool(number.boolValue) }
            if kind == "f" || kind == "d" { return .double(number.doubleValue) }
            return .number(number.stringValue)
        case let data as Data: return .string(data.base64EncodedString())
        case let date as Date: return .string(ISO8601.format(date))
        case let uuid as UUID: return .string(uuid.uuidString)
        case let url as URL: return .string(url.absoluteString)
        case let array as [Any]: return .array(array.map { json($0) })
        case let set as Set<AnyHashable>: return .array(set.map { json($0.base) }.sorted { JSONWriter.render($0) < JSONWriter.render($1) })
        case let dictionary as [String: Any]:
            return .object(JSONObject(dictionary.keys.sorted().map { ($0, json(dictionary[$0])) }))
        case let dictionary as [AnyHashable: Any]:
            return .object(JSONObject(dictionary.map { ("\($0.key.base)", json($0.value)) }.sorted { $0.0 < $1.0 }))
        case is NSNull: return .null
        default: return .string(String(describing: value))
        }
    }

    /// A value on one line: strings as they are, anything else as compact JSON.
    static func text(_ value: Any?) -> String {
        switch json(value) {
        case .string(let text): text
        case let other: JSONWriter.render(other)
        }
    }
}
