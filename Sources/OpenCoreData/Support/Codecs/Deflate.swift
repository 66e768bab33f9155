import Foundation

/// A raw DEFLATE compressor (RFC 1951), the inverse of ``Inflate``: what zlib's `deflate` with
/// `windowBits = -15` produces, though not byte for byte.
///
/// Core Data keeps a store's model in `Z_MODELCACHE.Z_CONTENT` as raw DEFLATE. The archives are
/// a few kilobytes and written once per store, so this favours simplicity over ratio: LZ77 with
/// hash chains over a 32 KiB window, greedy matching, and one block with the fixed Huffman codes
/// (no code tables to build or transmit). Input that does not shrink that way (random bytes) is
/// written as stored blocks instead, so the output never exceeds the input by more than 5 bytes
/// per 64 KiB. Any conforming inflater, zlib's included, reads either.
package enum Deflate {
    /// Compresses `data` into a raw DEFLATE stream (no zlib or gzip header).
    ///
    /// - Complexity: O(n × chainLimit) for n input bytes.
    package static func compress(_ data: Data) -> Data {
        let input = [UInt8](data)
        var encoder = FixedHuffmanEncoder(input: input)
        let compressed = encoder.run()
        let storedSize = input.count + 5 * max(1, (input.count + 65_534) / 65_535)
        return Data(compressed.count <= storedSize ? compressed : stored(input))
    }

    /// The input as stored (uncompressed) blocks of at most 65 535 bytes.
    static func stored(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count + 5 * (input.count / 65_535 + 1))
        var start = 0
        repeat {
            let count = min(65_535, input.count - start)
            let isFinal = start + count == input.count
            // BFINAL, BTYPE 00, then padding to the byte boundary: a whole byte here.
            output.append(isFinal ? 1 : 0)
            output += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            output += input[start..<(start + count)]
            start += count
        } while start < input.count
        return output
    }
}

// MARK: - Fixed-Huffman encoder

private struct FixedHuffmanEncoder {
    static let windowSize = 32_768
    static let minimumMatch = 3
    static let maximumMatch = 258
    /// How many earlier positions with the same 3-byte hash are tried per match.
    static let chainLimit = 128
    static let hashBits = 15

    static let lengthBases: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtraBits: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBases: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
                                       4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtraBits: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    let input: [UInt8]
    var bits = BitWriter()
    /// The most recent position of each 3-byte hash, or -1.
    var head: [Int32]
    /// For each position in the window, the previous position with the same hash, or -1.
    var previous: [Int32]

    init(input: [UInt8]) {
        self.input = input
        head = Array(repeating: -1, count: 1 << Self.hashBits)
        previous = Array(repeating: -1, count: Self.windowSize)
        bits.output.reserveCapacity(input.count / 2 + 16)
    }

    mutating func run() -> [UInt8] {
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        var position = 0
        while position < input.count {
            let (length, distance) = longestMatch(at: position)
            if length >= Self.minimumMatch {
                writeLength(length)
                writeDistance(distance)
                for offset in 0..<length { insert(position + offset) }
                position += length
            } else {
                writeLiteral(Int(input[position]))
                insert(position)
                position += 1
            }
        }
        writeLiteral(256)  // end of block
        bits.flush()
        return bits.output
    }

    // MARK: Matching

    private func hash(at position: Int) -> Int {
        let value = Int(input[position]) << 16 | Int(input[position + 1]) << 8 | Int(input[position + 2])
        return ((value &* 2_654_435_761) >> 13) & ((1 << Self.hashBits) - 1)
    }

    private mutating func insert(_ position: Int) {
        guard position + Self.minimumMatch <= input.count else { return }
        let key = hash(at: position)
        previous[position & (Self.windowSize - 1)] = head[key]
        head[key] = Int32(position)
    }

    private func longestMatch(at position: Int) -> (length: Int, distance: Int) {
        guard position + Self.minimumMatch <= input.count else { return (0, 0) }
        let limit = min(Self.maximumMatch, input.count - position)
        var candidate = Int(head[hash(at: position)])
        var best = (length: 0, distance: 0)
        var steps = 0
        while candidate >= 0, position - candidate <= Self.windowSize, steps < Self.chainLimit {
            steps += 1
            WorkCounter.count()
            if input[candidate + best.length] == input[position + best.length] || best.length == 0 {
                var length = 0
                while length < limit, input[candidate + length] == input[position + length] { length += 1 }
                WorkCounter.count(length)
                if length > best.length {
                    best = (length, position - candidate)
                    if length == limit { break }
                }
            }
            let next = Int(previous[candidate & (Self.windowSize - 1)])
            // A chain entry at or after the candidate was overwritten by a newer position: stop.
            guard next < candidate else { break }
            candidate = next
        }
        return best.length >= Self.minimumMatch ? best : (0, 0)
    }

    // MARK: Codes

    /// Literal/length symbols 0–287 in the fixed code (RFC 1951 §3.2.6), written most significant bit first.
    private mutating func writeLiteral(_ symbol: Int) {
        switch symbol {
        case 0...143: bits.writeHuffman(0x30 + symbol, count: 8)
        case 144...255: bits.writeHuffman(0x190 + symbol - 144, count: 9)
        case 256...279: bits.writeHuffman(symbol - 256, count: 7)
        default: bits.writeHuffman(0xC0 + symbol - 280, count: 8)
        }
    }

    private mutating func writeLength(_ length: Int) {
        var code = Self.lengthBases.count - 1
        while Self.lengthBases[code] > length { code -= 1 }
        writeLiteral(257 + code)
        bits.write(UInt64(length - Self.lengthBases[code]), count: Self.lengthExtraBits[code])
    }

    private mutating func writeDistance(_ distance: Int) {
        var code = Self.distanceBases.count - 1
        while Self.distanceBases[code] > distance { code -= 1 }
        bits.writeHuffman(code, count: 5)
        bits.write(UInt64(distance - Self.distanceBases[code]), count: Self.distanceExtraBits[code])
    }
}

// MARK: - Bit writer

/// Packs bits least significant first, as DEFLATE reads them.
private struct BitWriter {
    var output: [UInt8] = []
    private var buffer: UInt64 = 0
    private var count = 0

    /// Writes the low `count` bits of `value`, least significant first (extra bits, headers).
    mutating func write(_ value: UInt64, count bitCount: Int) {
        guard bitCount > 0 else { return }
        buffer |= (value & ((1 << UInt64(bitCount)) - 1)) << UInt64(count)
        count += bitCount
        while count >= 8 {
            output.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            count -= 8
        }
    }

    /// Writes a Huffman code, whose bits DEFLATE packs most significant first.
    mutating func writeHuffman(_ code: Int, count bitCount: Int) {
        var reversed = 0
        for bit in 0..<bitCount where code & (1 << bit) != 0 { reversed |= 1 << (bitCount - 1 - bit) }
        write(UInt64(reversed), count: bitCount)
    }

    /// Writes the last partial byte, zero-padded.
    mutating func flush() {
        if count > 0 { output.append(UInt8(truncatingIfNeeded: buffer)) }
        buffer = 0
        count = 0
    }
}
