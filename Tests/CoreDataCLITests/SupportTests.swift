import Foundation
import Testing
@testable import CoreDataTool

@Suite("JSON, dates, tables and CSV")
struct SupportTests {
    // MARK: - JSON

    @Test("The parser keeps key order and number text, and the writer writes it back")
    func jsonRoundTrip() throws {
        let text = #"{"b": [1, -2.5e3, 9223372036854775807], "a": {"x": null, "y": true, "z": "é\n\"\u00e9\ud83d\ude00"}}"#
        let value = try JSONParser.parse(Data(text.utf8))
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["b", "a"])
        #expect(object["b"] == .array([.number("1"), .number("-2.5e3"), .number("9223372036854775807")]))
        #expect(object["a"]?.objectValue?["z"] == .string("é\n\"é😀"))
        let written = JSONWriter.render(value)
        #expect(try JSONParser.parse(Data(written.utf8)) == value)
        let pretty = JSONWriter.render(value, pretty: true)
        #expect(try JSONParser.parse(Data(pretty.utf8)) == value)
    }

    @Test("Syntax errors name the line and column", arguments: [
        ("{\n  \"a\": 1,\n  \"b\" 2\n}", 3, 7),
        ("[1, 2", 1, 6),
        ("{\"a\": tru}", 1, 7),
        ("[01]", 1, 3),
        ("\"\\ud800\"", 1, 8),
        ("[1] x", 1, 5),
        ("", 1, 1),
    ])
    func syntaxErrors(text: String, line: Int, column: Int) {
        do {
            _ = try JSONParser.parse(Data(text.utf8))
            Issue.record("\(text) parsed")
        } catch let error as JSONSyntaxError {
            #expect(error.line == line && error.column == column, "\(text): \(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("Deep nesting and invalid UTF-8 are errors, not crashes")
    func hostileInput() {
        let deep = Data(String(repeating: "[", count: 100_000).utf8)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Data([0x22, 0xFF, 0xFE, 0x22])) }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Data([0x22, 0x01, 0x22])) }
    }

    @Test("The streaming writer nests containers and separates members")
    func streamingWriter() throws {
        let sink = StringSink()
        let writer = JSONWriter(sink: sink)
        try writer.beginObject()
        try writer.member("n", .integer(1))
        try writer.key("list")
        try writer.beginArray()
        try writer.value(.string("a"))
        try writer.value(.object(JSONObject([("k", .bool(false))])), inline: true)
        try writer.endArray()
        try writer.key("empty")
        try writer.beginObject()
        try writer.endObject()
        try writer.endObject()
        try writer.finish()
        let parsed = try JSONParser.parse(Data(sink.text.utf8))
        #expect(parsed == .object(JSONObject([
            ("n", .number("1")), ("list", .array([.string("a"), .object(JSONObject([("k", .bool(false))]))])), ("empty", .object(JSONObject())),
        ])))
    }

    // MARK: - Dates

    @Test("ISO 8601 dates read back to the same Double")
    func datesRoundTrip() {
        var generator = SplitMix64(seed: 0x5EED_DA7E)
        var samples: [Double] = [0, -0.5, 1e-9, 1e-20, 0.1, -2_502_612.1460609436, 559_308_941.249889, -978_307_200, 4_000_000_000.123, 726_000_000, -1.25e10]
        for _ in 0..<500 { samples.append(Double.random(in: -1e7...1e7, using: &generator)) }
        for _ in 0..<2000 { samples.append(Double.random(in: -3e10...3e10, using: &generator)) }
        for seconds in samples {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            let text = ISO8601.format(date)
            #expect(ISO8601.parse(text)?.timeIntervalSinceReferenceDate == seconds, "\(seconds) → \(text)")
        }
    }

    @Test("ISO 8601 text in the usual shapes")
    func dateShapes() {
        #expect(ISO8601.format(Date(timeIntervalSinceReferenceDate: 0)) == "2001-01-01T00:00:00Z")
        #expect(ISO8601.format(Date(timeIntervalSinceReferenceDate: 559_308_941.25)) == "2018-09-22T11:35:41.25Z")
        #expect(ISO8601.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(ISO8601.parse("2001-01-01")?.timeIntervalSinceReferenceDate == 0)
        #expect(ISO8601.parse("2001-01-01T02:00:00+02:00")?.timeIntervalSinceReferenceDate == 0)
        #expect(ISO8601.parse("2000-12-31T19:00-0500")?.timeIntervalSinceReferenceDate == 0)
        #expect(ISO8601.parse("2024-02-29T12:00:00Z") != nil)
        for bad in ["2023-02-29", "2024-13-01", "2024-01-01T24:00:00Z", "yesterday", "2024-01-01T10:00:00Q", "2024-1-01", ""] {
            #expect(ISO8601.parse(bad) == nil, "\(bad)")
        }
    }

    // MARK: - Text

    @Test("CSV quotes commas, quotes and line breaks")
    func csv() {
        #expect(CSV.line(["a", nil, "b,c", "say \"hi\"", "two\nlines"]) == "a,,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\"\n")
    }

    @Test("Tables align columns and cut long cells")
    func table() {
        var table = TextTable(headers: ["id", "name"], maximumCellWidth: 5)
        table.append(["1", "abcdefgh"])
        table.append(["22", nil])
        #expect(table.render() == "id  name\n--  -----\n1   abcd…\n22\n")
    }

    @Test("A predicate error points at its position")
    func caret() {
        #expect(QueryRunner.caretLines(format: "age > ", offset: 6) == ["  age > ", "        ^"])
        #expect(QueryRunner.caretLines(format: "a == 1 AND\nb ==", offset: 15) == ["  b ==", "      ^"])
    }
}

/// A seeded generator, so the random samples are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
