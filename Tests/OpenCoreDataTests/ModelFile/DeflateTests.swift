import Foundation
import Testing
@testable import OpenCoreData

/// The raw DEFLATE compressor: whatever it writes, RFC 1951 inflating (the project's `Inflate`)
/// gives back the exact input.
@Suite("Deflate")
struct DeflateTests {
    static func roundTrip(_ bytes: [UInt8]) throws -> [UInt8] {
        [UInt8](try Inflate.decompress(Deflate.compress(Data(bytes))))
    }

    @Test("Empty input is a valid stream that inflates to nothing")
    func empty() throws {
        #expect(try Self.roundTrip([]).isEmpty)
        #expect(!Deflate.compress(Data()).isEmpty)
    }

    @Test("Repetitive text shrinks through back-references and inflates unchanged")
    func repetitiveText() throws {
        let text = Array(String(repeating: "Hello, Core Data! ", count: 400).utf8)
        let compressed = Deflate.compress(Data(text))
        #expect(compressed.count < text.count / 10)
        #expect(try Self.roundTrip(text) == text)
    }

    @Test("Runs longer than the longest match (258) and distances up to the 32 KiB window")
    func longRunsAndFarDistances() throws {
        let run = [UInt8](repeating: 0x41, count: 70_000)
        #expect(try Self.roundTrip(run) == run)
        var generator = SeededGenerator(seed: 7)
        let block = (0..<1_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let filler = (0..<31_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let far = block + filler + block + filler + block
        #expect(try Self.roundTrip(far) == far)
    }

    @Test("Incompressible input falls back to stored blocks of at most 64 KiB, 5 bytes of overhead each")
    func incompressible() throws {
        var generator = SeededGenerator(seed: 11)
        let noise = (0..<150_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let compressed = Deflate.compress(Data(noise))
        #expect(compressed.count <= noise.count + 15)
        #expect(try Self.roundTrip(noise) == noise)
    }

    @Test("Random inputs of random sizes and alphabets round-trip (fixed seeds)", arguments: 0..<40)
    func randomRoundTrip(seed: Int) throws {
        var generator = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9)
        let count = Int.random(in: 0...20_000, using: &generator)
        // Small alphabets make many matches; 256 symbols make few.
        let alphabet = [2, 4, 16, 256][seed % 4]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            if !bytes.isEmpty, Bool.random(using: &generator) {
                // Copy an earlier stretch, as real data repeats itself.
                let start = Int.random(in: 0..<bytes.count, using: &generator)
                let length = min(Int.random(in: 1...300, using: &generator), bytes.count - start, count - bytes.count)
                bytes += bytes[start..<(start + length)]
            } else {
                bytes.append(UInt8(Int.random(in: 0..<alphabet, using: &generator)))
            }
        }
        #expect(try Self.roundTrip(bytes) == bytes)
    }

    @Test("Apple's model caches, inflated and compressed again, inflate to the same archive",
          .enabled(if: ModelFixtures.enabled, "shared/fixtures is missing"))
    func realArchives() throws {
        for store in ModelFixtures.allStores {
            let cache = try #require(try ModelFixtures.storeContents(try ModelFixtures.store(store)).modelCache, "\(store)")
            let archive = try Inflate.decompress(cache)
            let again = Deflate.compress(archive)
            #expect(try Inflate.decompress(again) == archive, "\(store)")
            // Fixed Huffman codes: a little larger than Apple's (zlib's dynamic codes), well under the archive.
            #expect(again.count < archive.count * 3 / 4, "\(store): \(again.count) of \(archive.count) bytes")
            #expect(again.count <= cache.count * 5 / 4, "\(store): \(again.count) bytes, Apple's \(cache.count)")
        }
    }
}
