import Foundation

// MARK: - PredicateToken

/// One token of a predicate format string, with its offset in Unicode scalars.
package struct PredicateToken: Equatable {
    package enum Kind: Equatable {
        /// A name; `escaped` when written `#name`, which is never a keyword.
        case identifier(String, escaped: Bool)
        /// `$name`.
        case variable(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// A numeric literal.
        case number(NumberLiteral)
        /// `%@`, `%K`, `%d`, …, with the index of the argument it consumes.
        case specifier(FormatSpecifier, argument: Int)
        /// Punctuation and operators, normalized (`=` is `==`, `<>` is `!=`, `=>` is `>=`).
        case symbol(String)
        /// The end of the format string.
        case end
    }

    package var kind: Kind
    package var offset: Int
}

/// A numeric literal as written.
package enum NumberLiteral: Equatable {
    case int(Int64)
    case uint(UInt64)
    case double(Double)

    /// The literal as a Foundation-friendly value.
    package var value: Any {
        switch self {
        case .int(let value): Int(value)
        case .uint(let value): value
        case .double(let value): value
        }
    }
}

/// The printf-style specifiers the parser understands.
package enum FormatSpecifier: Equatable {
    case object, keyPath, signedInteger, unsignedInteger, floatingPoint, cString, character

    /// The specifier as written, for messages.
    package var spelling: String {
        switch self {
        case .object: "%@"
        case .keyPath: "%K"
        case .signedInteger: "%d"
        case .unsignedInteger: "%u"
        case .floatingPoint: "%f"
        case .cString: "%s"
        case .character: "%c"
        }
    }
}

// MARK: - PredicateLexer

/// Splits a format string into tokens. Never traps: every index is bounds-checked.
package struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var argumentCount = 0
    private let fail: (Int, String) -> PredicateFormatError

    package init(scalars: [Unicode.Scalar], fail: @escaping (Int, String) -> PredicateFormatError) {
        self.scalars = scalars
        self.fail = fail
    }

    /// Tokenizes the whole string, ending with `.end`.
    package mutating func tokenize() throws(PredicateFormatError) -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            skipWhitespace()
            let start = position
            guard let scalar = peek() else {
                tokens.append(PredicateToken(kind: .end, offset: start))
                return tokens
            }
            tokens.append(PredicateToken(kind: try lexToken(startingWith: scalar), offset: start))
        }
    }

    // MARK: - Scanning helpers

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        WorkCounter.count()
        let index = position + ahead
        return index >= 0 && index < scalars.count ? scalars[index] : nil
    }

    private mutating func skipWhitespace() {
        while let scalar = peek(), scalar.properties.isWhitespace { position += 1 }
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || (scalar.properties.isAlphabetic && !isDigit(scalar))
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || isDigit(scalar)
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 48 && scalar.value <= 57
    }

    private mutating func readIdentifier() -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek(), Self.isIdentifierPart(scalar) {
            text.append(scalar)
            position += 1
        }
        return String(text)
    }

    // MARK: - Tokens

    private mutating func lexToken(startingWith scalar: Unicode.Scalar) throws(PredicateFormatError) -> PredicateToken.Kind {
        let start = position
        if Self.isIdentifierStart(scalar) {
            return .identifier(readIdentifier(), escaped: false)
        }
        if Self.isDigit(scalar) {
            return .number(try lexNumber())
        }
        switch scalar {
        case "'", "\"":
            return .string(try lexString(quote: scalar))
        case "%":
            return try lexSpecifier()
        case "$", "#", "@":
            position += 1
            // `#"any key"`: a key that is not an identifier (spaces, quotes, `$`, digits first),
            // which the formatter prints this way so that it parses back (docs/Predicates.md).
            if scalar == "#", let next = peek(), next == "\"" || next == "'" {
                return .identifier(try lexString(quote: next), escaped: true)
            }
            guard let next = peek(), Self.isIdentifierStart(next) else {
                throw fail(start, "expected a name after '\(scalar)'")
            }
            let name = readIdentifier()
            switch scalar {
            case "$": return .variable(name)
            case "#": return .identifier(name, escaped: true)
            default: return .identifier("@" + name, escaped: true)
            }
        default:
            return .symbol(try lexSymbol(scalar))
        }
    }

    private mutating func lexSymbol(_ scalar: Unicode.Scalar) throws(PredicateFormatError) -> String {
        let start = position
        position += 1
        let next = peek()
        func take(_ symbol: String) -> String {
            position += 1
            return symbol
        }
        switch scalar {
        case "(", ")", "{", "}", "[", "]", ",", ".", ":", "+", "-", "/":
            return String(scalar)
        case "*":
            return next == "*" ? take("**") : "*"
        case "=":
            switch next {
            case "=": return take("==")
            case ">": return take(">=")
            case "<": return take("<=")
            default: return "=="
            }
        case "!":
            return next == "=" ? take("!=") : "!"
        case "<":
            switch next {
            case "=": return take("<=")
            case ">": return take("!=")
            default: return "<"
            }
        case ">":
            return next == "=" ? take(">=") : ">"
        case "&":
            guard next == "&" else { throw fail(start, "expected '&&'") }
            return take("&&")
        case "|":
            guard next == "|" else { throw fail(start, "expected '||'") }
            return take("||")
        default:
            throw fail(start, "unexpected character '\(scalar.escaped(asASCII: true))'")
        }
    }

    // MARK: - Numbers

    private mutating func lexNumber() throws(PredicateFormatError) -> NumberLiteral {
        let start = position
        if peek() == "0", let marker = peek(1), let radix = Self.radix(for: marker) {
            position += 2
            var digits = ""
            while let scalar = peek(), scalar == "_" || Self.isIdentifierPart(scalar) {
                if scalar != "_" { digits.unicodeScalars.append(scalar) }
                position += 1
            }
            guard !digits.isEmpty, let value = UInt64(digits, radix: radix) else {
                throw fail(start, "invalid base-\(radix) number")
            }
            return value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
        }
        var text = ""
        var isFloat = false
        func readDigits() {
            while let scalar = peek(), Self.isDigit(scalar) {
                text.unicodeScalars.append(scalar)
                position += 1
            }
        }
        readDigits()
        if peek() == ".", let next = peek(1), Self.isDigit(next) {
            isFloat = true
            text.append(".")
            position += 1
            readDigits()
        }
        if let marker = peek(), marker == "e" || marker == "E" {
            var ahead = 1
            if let sign = peek(1), sign == "+" || sign == "-" { ahead = 2 }
            if let digit = peek(ahead), Self.isDigit(digit) {
                isFloat = true
                text.append("e")
                if ahead == 2, let sign = peek(1) { text.unicodeScalars.append(sign) }
                position += ahead
                readDigits()
            }
        }
        if let scalar = peek(), Self.isIdentifierPart(scalar) {
            throw fail(start, "invalid number: unexpected '\(scalar.escaped(asASCII: true))' after digits")
        }
        if !isFloat, let value = Int64(text) { return .int(value) }
        if !isFloat, let value = UInt64(text) { return .uint(value) }
        guard let value = Double(text), value.isFinite else { throw fail(start, "number out of range") }
        return .double(value)
    }

    private static func radix(for marker: Unicode.Scalar) -> Int? {
        switch marker {
        case "x", "X": 16
        case "o", "O": 8
        case "b", "B": 2
        default: nil
        }
    }

    // MARK: - Strings

    private mutating func lexString(quote: Unicode.Scalar) throws(PredicateFormatError) -> String {
        let start = position
        position += 1
        var text = String.UnicodeScalarView()
        while let scalar = peek() {
            position += 1
            if scalar == quote { return String(text) }
            guard scalar == "\\" else {
                text.append(scalar)
                continue
            }
            guard let escaped = peek() else { break }
            position += 1
            switch escaped {
            case "n": text.append("\n")
            case "r": text.append("\r")
            case "t": text.append("\t")
            case "0": text.append("\0")
            case "\\", "'", "\"": text.append(escaped)
            case "u":
                guard let decoded = readHexScalar(digits: 4) else {
                    throw fail(position - 2, "invalid \\u escape: expected four hexadecimal digits")
                }
                text.append(decoded)
            default:
                // Unknown escapes are kept, so regular expressions such as '\d+' survive.
                text.append("\\")
                text.append(escaped)
            }
        }
        throw fail(start, "unterminated string")
    }

    private mutating func readHexScalar(digits: Int) -> Unicode.Scalar? {
        var hex = ""
        for ahead in 0..<digits {
            guard let scalar = peek(ahead), scalar.properties.isASCIIHexDigit else { return nil }
            hex.unicodeScalars.append(scalar)
        }
        guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { return nil }
        position += digits
        return scalar
    }

    // MARK: - Format specifiers

    private mutating func lexSpecifier() throws(PredicateFormatError) -> PredicateToken.Kind {
        let start = position
        position += 1
        var modifier = ""
        while let scalar = peek(), "hlqLzjt".unicodeScalars.contains(scalar), modifier.count < 2 {
            modifier.unicodeScalars.append(scalar)
            position += 1
        }
        guard let conversion = peek() else { throw fail(start, "incomplete format specifier") }
        position += 1
        let specifier: FormatSpecifier
        switch conversion {
        case "@" where modifier.isEmpty: specifier = .object
        case "K" where modifier.isEmpty: specifier = .keyPath
        case "d", "i", "D": specifier = .signedInteger
        case "u", "o", "x", "X", "U", "O": specifier = .unsignedInteger
        case "f", "F", "e", "E", "g", "G", "a", "A": specifier = .floatingPoint
        case "s", "S": specifier = .cString
        case "c", "C": specifier = .character
        case "%" where modifier.isEmpty:
            throw fail(start, "'%%' is a literal percent sign, which is only valid inside a quoted string")
        default:
            throw fail(start, "unknown format specifier '%\(modifier)\(conversion.escaped(asASCII: true))'")
        }
        defer { argumentCount += 1 }
        return .specifier(specifier, argument: argumentCount)
    }
}
