import Foundation

// MARK: - What XMLParser is given

/// swift-corelibs-foundation's `XMLParser` reads a processing instruction's data with `strlen`,
/// but libxml2 hands it a NULL pointer when the target is followed directly by `?>`
/// (`<?target?>`), so such a document crashes the process with SIGSEGV instead of parsing.
/// (Found by the XML fuzz target: a fresh clone without the fixtures mutates only the
/// built-in samples, whose mutation sequence reaches `<?…?>` input.)
///
/// The bytes are prepared so that libxml2 never takes that path: a space goes before the `?>`
/// of every `<?target?>`, which gives the same instruction with empty data (what Apple's parser
/// reports for it) and keeps every line number. The few inputs that could still spell one
/// without the bytes showing it are refused with an error: text in another encoding (NUL bytes,
/// or a declared encoding that is not ASCII-compatible) and a document type declaration whose
/// character references spell one inside an entity (`"&#60;?x?>"`).
extension ModelXMLDocument {
    /// The data to hand to `XMLParser`, or a corrupt-file error for input it could not read safely.
    ///
    /// Complexity: O(n) in the data's length.
    static func parserInput(_ data: Data, location: ModelFileLocation) throws -> Data {
        let bytes = [UInt8](data)
        if let offset = bytes.firstIndex(of: 0) {
            // NUL is not an XML character; in ASCII text it means UTF-16 or UTF-32, where a byte
            // scan cannot see the markup.
            throw ModelFileError.corrupt(location.line(lineNumber(of: offset, in: bytes)), "the XML is not UTF-8 (byte \(offset) is NUL)")
        }
        if let encoding = declaredEncoding(bytes), !isASCIICompatible(encoding) {
            throw ModelFileError.corrupt(location.line(1), "the XML declares the encoding '\(encoding)'; model files are UTF-8")
        }
        let insertions = emptyInstructionEnds(bytes)
        var prepared = bytes
        if !insertions.isEmpty {
            prepared = []
            prepared.reserveCapacity(bytes.count + insertions.count)
            var start = 0
            for insertion in insertions {
                prepared.append(contentsOf: bytes[start..<insertion])
                prepared.append(UInt8(ascii: " "))
                start = insertion
            }
            prepared.append(contentsOf: bytes[start...])
        }
        // Inside an entity's value libxml2 replaces character references before it parses the
        // value as markup, so `&#60;?x?>` there is `<?x?>`. (Outside a DTD they are only text.)
        if contains(prepared, "<!DOCTYPE"), contains(prepared, "&#"),
           let offset = emptyInstructionEnds(decodingCharacterReferences(prepared)).first {
            throw ModelFileError.corrupt(
                location,
                "a character reference in the document type declaration spells a processing instruction without data (near decoded byte \(offset)), which swift-corelibs-foundation's XMLParser cannot read")
        }
        return insertions.isEmpty ? data : Data(prepared)
    }

    /// The offsets of the `?` that closes each `<?target?>`: a target (no whitespace, `?`, `<` or
    /// `>`, none of which a name holds) followed directly by `?>`.
    ///
    /// A target's scan stops at the first byte a name cannot hold and the next scan starts there,
    /// so no byte is scanned twice and a `<?` right after a comment's `-->` is still seen.
    static func emptyInstructionEnds(_ bytes: [UInt8]) -> [Int] {
        var ends: [Int] = []
        var index = 0
        let count = bytes.count
        while index + 1 < count {
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else {
                index += 1
                continue
            }
            var end = index + 2
            while end < count, !endsTarget(bytes[end]) { end += 1 }
            if end > index + 2, end + 1 < count, bytes[end] == UInt8(ascii: "?"), bytes[end + 1] == UInt8(ascii: ">") {
                ends.append(end)
            }
            index = max(index + 2, end)
        }
        return ends
    }

    private static func endsTarget(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    // MARK: - Encodings

    /// The `encoding` of the XML declaration (`<?xml version="1.0" encoding="…"?>`), or nil.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }  // UTF-8 byte order mark
        let head = bytes[start...]
        guard head.starts(with: Array("<?xml".utf8)), head.count > 5, isSpace(head[start + 5]) else { return nil }
        guard let close = firstRange(of: Array("?>".utf8), in: bytes, from: start) else { return nil }
        let declaration = String(decoding: bytes[start..<close], as: UTF8.self)
        guard let key = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }

    /// Whether an encoding keeps ASCII bytes as ASCII characters, so a byte scan sees the markup.
    static func isASCIICompatible(_ encoding: String) -> Bool {
        let name = encoding.uppercased()
        return ["UTF-8", "UTF8", "US-ASCII", "ASCII", "LATIN1", "ISO-LATIN-1"].contains(name)
            || name.hasPrefix("ISO-8859-") || name.hasPrefix("ISO8859-") || name.hasPrefix("ISO_8859-")
            || name.hasPrefix("WINDOWS-125")
    }

    // MARK: - Character references

    /// The bytes with every numeric character reference (`&#60;`, `&#x3C;`) replaced by its
    /// character in UTF-8, as libxml2 replaces them inside an entity's value.
    static func decodingCharacterReferences(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "#"),
               let (scalar, next) = characterReference(bytes, at: index + 2) {
                result.append(contentsOf: Array(String(Character(scalar)).utf8))
                index = next
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// The character of the reference whose digits start at `start`, and the offset after its `;`.
    private static func characterReference(_ bytes: [UInt8], at start: Int) -> (Unicode.Scalar, Int)? {
        var index = start
        var radix: UInt32 = 10
        if index < bytes.count, bytes[index] == UInt8(ascii: "x") {
            radix = 16
            index += 1
        }
        var value: UInt32 = 0
        let digitsStart = index
        while index < bytes.count, let digit = hexDigit(bytes[index]), digit < radix {
            value = value &* radix &+ digit
            if value > 0x10FFFF { return nil }
            index += 1
        }
        guard index > digitsStart, index < bytes.count, bytes[index] == UInt8(ascii: ";"),
              let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, index + 1)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: - Byte search

    private static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        firstRange(of: Array(text.utf8), in: bytes, from: 0) != nil
    }

    /// The offset of the first occurrence of a short needle at or after `start`.
    private static func firstRange(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func lineNumber(of offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }
}
