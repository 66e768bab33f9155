import Foundation

/// A raw DEFLATE decoder (RFC 1951), as zlib's `inflate` with `windowBits = -15`.
///
/// Core Data keeps the store's model in `Z_MODELCACHE.Z_CONTENT` as a raw DEFLATE stream of a
/// keyed archive. Foundation on Linux has no decompression API, and the blobs are a few kilobytes,
/// so a small, bounds-checked decoder is simpler than a new dependency.
///
/// Every read is checked: a truncated stream, a bad block type, an over-subscribed Huffman code,
/// a back-reference before the start of the output or an output beyond `maximumOutputSize` throws
/// an ``InflateError``; nothing traps. See <https://www.rfc-editor.org/rfc/rfc1951>.
package enum Inflate {
    /// Decompresses a raw DEFLATE stream.
    ///
    /// - Parameters:
    ///   - data: The compressed bytes, without a zlib or gzip header.
    ///   - maximumOutputSize: The most bytes the output may have; larger output throws.
    /// - Returns: The decompressed bytes. Bytes after the final block are ignored.
    /// - Throws: ``InflateError`` naming the problem and the input offset.
    /// - Complexity: O(n + m) for n input and m output bytes.
    package static func decompress(_ data: Data, maximumOutputSize: Int = 256 << 20) throws(InflateError) -> Data {
        var decoder = Decoder(input: [UInt8](data), limit: maximumOutputSize)
        try decoder.run()
        return Data(decoder.output)
    }
}

/// Why a DEFLATE stream could not be decoded.
package struct InflateError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    package let reason: String
    /// The byte offset in the compressed input where it went wrong.
    package let offset: Int

    package var description: String { "\(reason) at byte \(offset) of the compressed data" }
}

// MARK: - Decoder

private struct Decoder {
    let input: [UInt8]
    let limit: Int
    var output: [UInt8] = []
    /// Position of the next unread byte.
    var position = 0
    /// Bits not yet consumed, least significant first.
    var bitBuffer: UInt32 = 0
    var bitCount = 0

    init(input: [UInt8], limit: Int) {
        self.input = input
        self.limit = limit
        output.reserveCapacity(min(limit, input.count * 4))
    }

    mutating func run() throws(InflateError) {
        var isFinal = false
        while !isFinal {
            isFinal = try bits(1) == 1
            switch try bits(2) {
            case 0: try storedBlock()
            case 1: try huffmanBlock(literals: HuffmanTable.fixedLiterals, distances: HuffmanTable.fixedDistances)
            case 2:
                let (literals, distances) = try dynamicTables()
                try huffmanBlock(literals: literals, distances: distances)
            default: throw failure("invalid block type 3")
            }
        }
    }

    func failure(_ reason: String) -> InflateError {
        InflateError(reason: reason, offset: position)
    }

    // MARK: Bits

    mutating func bits(_ count: Int) throws(InflateError) -> Int {
        while bitCount < count {
            guard position < input.count else { throw failure("unexpected end of data") }
            bitBuffer |= UInt32(input[position]) << UInt32(bitCount)
            position += 1
            bitCount += 8
        }
        let value = Int(bitBuffer & ((1 << UInt32(count)) - 1))
        bitBuffer >>= UInt32(count)
        bitCount -= count
        return value
    }

    mutating func append(_ byte: UInt8) throws(InflateError) {
        guard output.count < limit else { throw failure("output larger than \(limit) bytes") }
        output.append(byte)
    }

    // MARK: Blocks

    mutating func storedBlock() throws(InflateError) {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw failure("unexpected end of data in a stored block header") }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        position += 4
        guard length == (~complement & 0xFFFF) else { throw failure("stored block length does not match its complement") }
        guard position + length <= input.count else { throw failure("unexpected end of data in a stored block") }
        guard output.count + length <= limit else { throw failure("output larger than \(limit) bytes") }
        output.append(contentsOf: input[position..<(position + length)])
        position += length
    }

    mutating func huffmanBlock(literals: HuffmanTable, distances: HuffmanTable) throws(InflateError) {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                try append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let lengthIndex = symbol - 257
                guard lengthIndex < Self.lengthBase.count else { throw failure("invalid length symbol \(symbol)") }
                let lengthExtra = try bits(Self.lengthExtra[lengthIndex])
                let length = Self.lengthBase[lengthIndex] + lengthExtra
                let distanceSymbol = try decode(distances)
                guard distanceSymbol < Self.distanceBase.count else { throw failure("invalid distance symbol \(distanceSymbol)") }
                let distanceExtra = try bits(Self.distanceExtra[distanceSymbol])
                let distance = Self.distanceBase[distanceSymbol] + distanceExtra
                guard distance <= output.count else { throw failure("distance \(distance) reaches before the start of the output") }
                guard output.count + length <= limit else { throw failure("output larger than \(limit) bytes") }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    mutating func dynamicTables() throws(InflateError) -> (HuffmanTable, HuffmanTable) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw failure("too many length or distance codes") }
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount {
            codeLengthLengths[Self.codeLengthOrder[index]] = try bits(3)
        }
        guard let codeLengthTable = HuffmanTable(lengths: codeLengthLengths) else {
            throw failure("invalid code length code")
        }
        var lengths: [Int] = []
        lengths.reserveCapacity(literalCount + distanceCount)
        while lengths.count < literalCount + distanceCount {
            let symbol = try decode(codeLengthTable)
            switch symbol {
            case 0...15:
                lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw failure("repeat code with no previous length") }
                let count = try bits(2) + 3
                lengths.append(contentsOf: repeatElement(previous, count: count))
            case 17:
                let count = try bits(3) + 3
                lengths.append(contentsOf: repeatElement(0, count: count))
            default:
                let count = try bits(7) + 11
                lengths.append(contentsOf: repeatElement(0, count: count))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw failure("code lengths overflow the code count") }
        guard lengths[256] != 0 else { throw failure("no end-of-block code") }
        guard let literals = HuffmanTable(lengths: Array(lengths[0..<literalCount])),
              let distances = HuffmanTable(lengths: Array(lengths[literalCount...]))
        else { throw failure("invalid literal or distance code lengths") }
        return (literals, distances)
    }

    /// Decodes one symbol, reading the code bit by bit (canonical Huffman codes, RFC 1951 §3.2.2).
    mutating func decode(_ table: HuffmanTable) throws(InflateError) -> Int {
        var code = 0
        var first = 0
        var index = 0
        for length in 1...HuffmanTable.maximumBits {
            code |= try bits(1)
            let count = table.counts[length]
            if code - first < count { return table.symbols[index + code - first] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw failure("invalid Huffman code")
    }

    // MARK: Tables (RFC 1951 §3.2.5)

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
}

/// A canonical Huffman code given by its code lengths: how many codes each length has, and the
/// symbols ordered by (length, symbol).
private struct HuffmanTable {
    static let maximumBits = 15

    var counts: [Int]
    var symbols: [Int]

    /// Builds the table; nil when the lengths over-subscribe the code space.
    /// Incomplete codes are accepted (RFC 1951 allows a single distance code); an unused code
    /// then fails in `decode`.
    init?(lengths: [Int]) {
        counts = [Int](repeating: 0, count: Self.maximumBits + 1)
        for length in lengths {
            guard (0...Self.maximumBits).contains(length) else { return nil }
            counts[length] += 1
        }
        var left = 1
        for length in 1...Self.maximumBits {
            left <<= 1
            left -= counts[length]
            if left < 0 { return nil }
        }
        var offsets = [Int](repeating: 0, count: Self.maximumBits + 2)
        for length in 1...Self.maximumBits { offsets[length + 1] = offsets[length] + counts[length] }
        symbols = [Int](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
    }

    static let fixedLiterals: HuffmanTable = {
        var lengths = [Int](repeating: 8, count: 288)
        for index in 144..<256 { lengths[index] = 9 }
        for index in 256..<280 { lengths[index] = 7 }
        return HuffmanTable(lengths: lengths)!
    }()

    static let fixedDistances = HuffmanTable(lengths: [Int](repeating: 5, count: 30))!
}
