import Foundation

/// A malformed JSON document, with the line and column of the problem.
struct JSONSyntaxError: Error, CustomStringConvertible {
    var message: String
    var line: Int
    var column: Int

    var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict JSON parser (RFC 8259) over UTF-8 bytes that never traps: nesting is limited,
/// invalid UTF-8 and lone surrogates are errors, and every error names its line and column.
struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    /// The deepest nesting accepted, so hostile input cannot exhaust the stack.
    static let maximumDepth = 512

    /// Parses a whole document.
    static func parse(_ data: Data) throws -> JSONValue {
        var parser = JSONParser(bytes: [UInt8](data))
        return try parser.parseDocument()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func parseDocument() throws -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count { throw error("unexpected text after the end of the document") }
        return value
    }

    // MARK: - Values

    private mutating func parseValue() throws -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of the document, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character \(describeByte(bytes[position])), expected a value")
        }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if peek(UInt8(ascii: "}")) { position += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a string key in double quotes") }
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after the key \"\(key)\"") }
            position += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { position += 1; continue }
            if peek(UInt8(ascii: "}")) { position += 1; return .object(object) }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) { position += 1; return .array(array) }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { position += 1; continue }
            if peek(UInt8(ascii: "]")) { position += 1; return .array(array) }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.maximumDepth { throw error("nested more than \(Self.maximumDepth) levels deep") }
    }

    private mutating func expectWord(_ word: String) throws {
        let expected = Array(word.utf8)
        guard position + expected.count <= bytes.count, Array(bytes[position..<position + expected.count]) == expected else {
            throw error("unexpected text, expected \(word)")
        }
        position += expected.count
    }

    private mutating func parseNumber() throws -> String {
        let start = position
        if peek(UInt8(ascii: "-")) { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit in a number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw error("a number cannot have a leading zero") }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit after the decimal point") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            position += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit in the exponent") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func parseString() throws -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flushRun(_ parser: JSONParser, upTo end: Int) throws {
            guard runStart < end else { return }
            guard let text = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                throw parser.error("invalid UTF-8 in a string")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                try flushRun(self, upTo: position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character \(describeByte(byte)) in a string (escape it)") }
            if byte == UInt8(ascii: "\\") {
                try flushRun(self, upTo: position)
                position += 1
                scalars.append(try parseEscape())
                runStart = position
                continue
            }
            position += 1
        }
    }

    private mutating func parseEscape() throws -> Unicode.Scalar {
        guard position < bytes.count else { throw error("unterminated escape") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800..<0xDC00).contains(first) {
                guard peek(UInt8(ascii: "\\")), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("a high surrogate \\u\(String(first, radix: 16)) must be followed by a low one")
                }
                position += 2
                let second = try parseHex4()
                guard (0xDC00..<0xE000).contains(second) else { throw error("invalid low surrogate \\u\(String(second, radix: 16))") }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Unicode.Scalar(value)!
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("lone low surrogate \\u\(String(first, radix: 16))") }
            return scalar
        default:
            throw error("invalid escape \\\(describeByte(byte))")
        }
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("expected four hexadecimal digits after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("expected a hexadecimal digit after \\u")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    // MARK: - Helpers

    private func peek(_ byte: UInt8) -> Bool { position < bytes.count && bytes[position] == byte }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "0x" + String(byte, radix: 16, uppercase: true)
    }

    private func error(_ message: String) -> JSONSyntaxError {
        var line = 1
        var lineStart = 0
        let end = min(position, bytes.count)
        for index in 0..<end where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
        return JSONSyntaxError(message: message, line: line, column: column)
    }
}
