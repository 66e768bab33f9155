import Foundation

/// Writes JSON to a sink as it goes, so a document of any size needs memory for one value only.
///
/// Containers are opened and closed explicitly; a value is written whole, either indented or on
/// one line (`inline`), which is how exports put one record per line.
final class JSONWriter {
    private let sink: any TextSink
    private let pretty: Bool
    /// Open containers: whether each is an object, and how many members it has so far.
    private var stack: [(isObject: Bool, count: Int)] = []
    private var awaitingValueAfterKey = false

    init(sink: any TextSink, pretty: Bool = true) {
        self.sink = sink
        self.pretty = pretty
    }

    // MARK: - Containers

    func beginObject() throws {
        try prepareForValue()
        try sink.write("{")
        stack.append((true, 0))
    }

    func endObject() throws {
        try close(isObject: true, bracket: "}")
    }

    func beginArray() throws {
        try prepareForValue()
        try sink.write("[")
        stack.append((false, 0))
    }

    func endArray() throws {
        try close(isObject: false, bracket: "]")
    }

    /// Writes the key of the next member of the open object.
    func key(_ key: String) throws {
        precondition(stack.last?.isObject == true && !awaitingValueAfterKey, "JSONWriter: a key outside an object")
        try separate()
        try sink.write(Self.quoted(key))
        try sink.write(pretty ? ": " : ":")
        awaitingValueAfterKey = true
    }

    /// Writes a whole value: as an array element, after a key, or as the document.
    func value(_ value: JSONValue, inline: Bool = false) throws {
        try prepareForValue()
        var text = ""
        Self.render(value, into: &text, pretty: pretty && !inline, indent: stack.count)
        try sink.write(text)
    }

    /// Writes a key and its value.
    func member(_ key: String, _ value: JSONValue, inline: Bool = false) throws {
        try self.key(key)
        try self.value(value, inline: inline)
    }

    /// Ends the document with a newline.
    func finish() throws {
        precondition(stack.isEmpty, "JSONWriter: unclosed containers")
        try sink.write("\n")
    }

    private func prepareForValue() throws {
        if awaitingValueAfterKey {
            awaitingValueAfterKey = false
            return
        }
        precondition(stack.last?.isObject != true, "JSONWriter: a value without a key inside an object")
        if !stack.isEmpty { try separate() }
    }

    private func separate() throws {
        let count = stack[stack.count - 1].count
        stack[stack.count - 1].count += 1
        if count > 0 { try sink.write(",") }
        if pretty { try sink.write("\n" + String(repeating: "  ", count: stack.count)) }
    }

    private func close(isObject: Bool, bracket: String) throws {
        guard let top = stack.popLast(), top.isObject == isObject else {
            preconditionFailure("JSONWriter: mismatched \(bracket)")
        }
        if pretty && top.count > 0 { try sink.write("\n" + String(repeating: "  ", count: stack.count)) }
        try sink.write(bracket)
    }

    // MARK: - Rendering

    /// A value as JSON text.
    static func render(_ value: JSONValue, pretty: Bool = false) -> String {
        var text = ""
        render(value, into: &text, pretty: pretty, indent: 0)
        return text
    }

    private static func render(_ value: JSONValue, into text: inout String, pretty: Bool, indent: Int) {
        switch value {
        case .null: text += "null"
        case .bool(let bool): text += bool ? "true" : "false"
        case .number(let number): text += number
        case .string(let string): text += quoted(string)
        case .array(let array):
            if array.isEmpty { text += "[]"; return }
            text += "["
            for (offset, element) in array.enumerated() {
                if offset > 0 { text += pretty ? "," : ", " }
                if pretty { text += "\n" + String(repeating: "  ", count: indent + 1) }
                render(element, into: &text, pretty: pretty, indent: indent + 1)
            }
            if pretty { text += "\n" + String(repeating: "  ", count: indent) }
            text += "]"
        case .object(let object):
            if object.count == 0 { text += "{}"; return }
            text += "{"
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { text += pretty ? "," : ", " }
                if pretty { text += "\n" + String(repeating: "  ", count: indent + 1) }
                text += quoted(member.key)
                text += ": "
                render(member.value, into: &text, pretty: pretty, indent: indent + 1)
            }
            if pretty { text += "\n" + String(repeating: "  ", count: indent) }
            text += "}"
        }
    }

    /// A string in double quotes with JSON's escapes.
    static func quoted(_ string: String) -> String {
        var result = "\""
        result.unicodeScalars.reserveCapacity(string.unicodeScalars.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\u{2028}": result += "\\u2028"
            case "\u{2029}": result += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        result += "\""
        return result
    }
}
