import Foundation
import Testing
@testable import OpenCoreData

/// The raw DEFLATE decoder against streams made by zlib (wbits -15), and against broken streams.
@Suite("Inflate")
struct InflateTests {
    /// Deterministic bytes (a 31-bit LCG), the same as the generator of the vectors.
    static func pseudoRandomBytes(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = (state &* 1103515245 &+ 12345) & 0x7fff_ffff
            return UInt8((state >> 16) & 0xff)
        }
    }

    static let text = Array(String(repeating: "Hello, Core Data! ", count: 40).utf8)

    static func decode(_ base64: String) throws -> [UInt8] {
        [UInt8](try Inflate.decompress(try #require(Data(base64Encoded: base64))))
    }

    @Test("An empty stream and a stored block")
    func storedBlocks() throws {
        #expect(try Self.decode("AwA=").isEmpty)
        #expect(try Self.decode("AREA7v9zdG9yZWQgYmxvY2sgdGVzdA==") == Array("stored block test".utf8))
    }

    @Test("Fixed Huffman codes with long back-references")
    func fixedHuffman() throws {
        let fixed = [
        "80jNycnXUXDOL0pVcEksSVRU8BgVGRUZsiIA",
    ].joined()
        #expect(try Self.decode(fixed) == Self.text)
    }

    @Test("Dynamic Huffman codes")
    func dynamicHuffman() throws {
        let dynamic = [
        "Y2BkYmZhZWPn4OTi5uHl4xcQFBIWERUTl5CUkpaRlZNXUFRSVlFVU9fQ1NLW0dXTNzA0MjYxNTO3sLSytrG1s3dwdHJ2cXVz9/D0",
        "8vbx9fMPCAwKDgkNC4+IjIqOiY2LT0hMSk5JTUvPyMzKzsnNyy8oLCouKS0rr6isqq6pratvaGxqbmlta+/o7Oru6e3rnzBx0uQp",
        "U6dNnzFz1uw5c+fNX7Bw0eIlS5ctX7Fy1eo1a9et37Bx0+YtW7dt37Fz1+49e/ftP3Dw0OEjR48dP3Hy1OkzZ8+dv3Dx0uUrV69d",
        "v3Hz1u07d+/df/Dw0eMnT589f/Hy1es3b9+9//Dx0+cvX799//Hz1+8/f//9Zxj1/6j/R/0/6v9R/4/6fwT63yM1JydfR8E5vyhV",
        "wSWxJFFRYVRkVGToigAA",
    ].joined()
        let expected = Array((0..<8).flatMap { _ in (0...255).map(UInt8.init) }) + Self.text
        #expect(try Self.decode(dynamic) == expected)
    }

    @Test("Incompressible data (stored blocks at level 9) and Huffman-only streams")
    func incompressibleAndHuffmanOnly() throws {
        let random = [
        "AVgCp/3GfoFrS/vi+1T2vd98HOGHAb8x3lZyD0dnZodZqog8WepWE3vShaHYPFRVLzeuZVvaAnmYzOMado5f2ZmPHz827kN4TQ36",
        "vqba5IaO3CltTv9W4XAg+4+xWAWQxQncU82qO0iZUtNSnQaf6rXCBhOYSbIBHqwyiDGcUkaVcTaPV/Y5HRb6iHT1mHwXXEG7bXGO",
        "D3BZxwEbLzM9kcAdpQ0NqzONfl6PPuZodKY6scOTEahkx9vK4GDh878JAGei4yWgITGH1WLFqE9+LglrlJ+wbameWgtGcIC2z0cM",
        "pqUq2Kz7oOu3eSRyI5JIgMWmp4W314yQ5KtjRFJm45wzJfleqrpzYF1LcX6+qYxXGXHDyl7lKjOsiFFmoXt1Z2Saae9vVkKgHVHF",
        "Ave7kkW+bw22OMwQ/btUURx7B5Qnk32Sw9TGpWFRATg4p7/xBA0Vm4Afg9WkaYh8n7YB2pMXRYsSsgIzXFDW4VakrUJKXN2GYekD",
        "EuEPm+omLGHcYkhrbRTgA4VKckbalsh9HNEFPuWScENfbAMFs+uzIDVNfmZQATbAM+EPyTgu6SkZT16x0UmLO1P9nz/uJSU1ew0R",
        "r0wRjDLU2n/YFlfhps59wa5ivxPkh0w6wbMMWZlHWFq9eHy6UAHtG+qKSYju1hSFq7As3jWTES0BHNcoQzDnsAjteZkTUdI6d609",
        "tPjHygMi0snGJw8Ezno/wGgsz3JqCcJCAHJeQTT4lmk/vTpYkYvhzKKxkt13oTX+80u8seM3EQ3HZb7xYeVeBv81x3aJXfRuSsy1",
        "VH7xFcg=",
    ].joined()
        #expect(try Self.decode(random) == Self.pseudoRandomBytes(600))
        let huffmanOnly = [
        "BcG7CoJQAADQrTloDYyEAqXbquAUTWLQY5KEcHGIW4NEjzVquRGFECTUII4SODQohNUYRDVUkDYJOZh/0NI5UElrTuGCT8UFStyZ",
        "Ntuo1DbUTT/wI7G8BOqgL6lwV/SjveOtxlf2NxOGpPyodzLrAGHEe54MXe/4LfU+NGgasZZdneTA2dw+4zDF5aOXle2eoJLWnMIF",
        "n4oLlLgzbbZRqW2om37gR2J5CdRBX1LhruhHe8dbja/sbyYMSflR72TWAcKI9zwZut7xW+p9aNA0Yi27OsmBs7l9xmGKy0cvK9s9",
        "QSWtOYULPhUXKHFn2myjUttQN/3Aj8TyEqiDvqTCXdGP9o63Gl/Z30wYkvKj3smsA4QR73kydL3jt9T70KBpxFp2dZIDZ3P7jMMU",
        "l49eVrZ7gkpacwoXfCouUOLOtNlGpbahbvqBH4nlJVAHfUmFu6If7R1vNb6yv5kwJOVHvZNZBwgj3vNk6HrHb6n3oUHTiLXs6iQH",
        "zub2GYcpLh+9rGz3BJW05hQu+FRcoMSdabONSm1D3fQDPxLLS6AO+pIKd0U/2jveanxlfzNhSMqPeiezDhBGvOfJ0PWO31LvQ4Om",
        "EWvZ1UkOnM3tMw5TXD56Wdnu6Q8=",
    ].joined()
        let sample = Self.pseudoRandomBytes(300, seed: 7)
        let thirds = stride(from: 0, to: 300, by: 3).map { sample[$0] }
        #expect(try Self.decode(huffmanOnly) == Array((0..<5).flatMap { _ in thirds }))
    }

    @Test("Broken streams throw instead of trapping")
    func brokenStreams() throws {
        #expect(throws: InflateError.self) { try Inflate.decompress(Data()) }
        #expect(throws: InflateError.self) { try Inflate.decompress(Data([0x07])) }  // block type 3
        #expect(throws: InflateError.self) { try Inflate.decompress(Data([0x01, 0x05, 0x00, 0x00, 0x00])) }  // LEN/NLEN mismatch
        #expect(throws: InflateError.self) { try Inflate.decompress(Data([0x01, 0x05, 0x00, 0xFA, 0xFF, 0x41])) }  // truncated stored data
        // A fixed-Huffman back-reference at distance 1 before any output.
        #expect(throws: InflateError.self) { try Inflate.decompress(Data([0x03, 0x02])) }
        let fixed = try #require(Data(base64Encoded: "80jNycnXUXDOL0pVcEksSVRU8BgVGRUZsiIA"))
        for length in 0..<fixed.count {
            #expect(throws: InflateError.self) { try Inflate.decompress(fixed.prefix(length)) }
        }
    }

    @Test("Output beyond the limit throws")
    func outputLimit() throws {
        let fixed = try #require(Data(base64Encoded: "80jNycnXUXDOL0pVcEksSVRU8BgVGRUZsiIA"))
        #expect(throws: InflateError.self) { try Inflate.decompress(fixed, maximumOutputSize: 100) }
        #expect(try Inflate.decompress(fixed, maximumOutputSize: 720).count == 720)
    }
}
