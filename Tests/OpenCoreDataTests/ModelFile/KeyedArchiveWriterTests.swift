import Foundation
import Testing
@testable import OpenCoreData

/// The binary property list writer and the keyed-archive writer, read back by the project's
/// bounds-checked readers and by Foundation's `PropertyListSerialization`.
@Suite("Keyed archive writer")
struct KeyedArchiveWriterTests {
    @Test("Every binary property list type reads back equal, through our reader and Foundation's")
    func binaryPropertyList() throws {
        let long = String(repeating: "x", count: 300)
        let value = PropertyListValue.dictionary(keys: ["ascii", "unicode", "long", "small", "medium", "large", "negative", "real", "yes", "no", "data", "date", "array"],
                                                 values: [.string("plain"), .string("Zoë ✓ 日本"), .string(long), .integer(7), .integer(40_000),
                                                          .integer(5_000_000_000), .integer(-3), .real(2.5), .bool(true), .bool(false),
                                                          .data(Data([0, 1, 2, 255])), .date(Date(timeIntervalSinceReferenceDate: 12.25)),
                                                          .array([.integer(1), .string("two"), .array([])])])
        let data = BinaryPropertyListWriter.data(value)
        #expect(data.starts(with: Array("bplist00".utf8)))
        for decoded in [try PropertyListReader.propertyList(from: data),
                        try PropertyListSerialization.propertyList(from: data, options: [], format: nil)] {
            let plist = try #require(decoded as? [String: Any])
            #expect(plist["ascii"] as? String == "plain")
            #expect(plist["unicode"] as? String == "Zoë ✓ 日本")
            #expect(plist["long"] as? String == long)
            #expect((plist["small"] as? NSNumber)?.int64Value == 7)
            #expect((plist["medium"] as? NSNumber)?.int64Value == 40_000)
            #expect((plist["large"] as? NSNumber)?.int64Value == 5_000_000_000)
            #expect((plist["negative"] as? NSNumber)?.int64Value == -3)
            #expect((plist["real"] as? NSNumber)?.doubleValue == 2.5)
            #expect(plist["yes"] as? Bool == true && plist["no"] as? Bool == false)
            #expect(plist["data"] as? Data == Data([0, 1, 2, 255]))
            #expect((plist["date"] as? Date)?.timeIntervalSinceReferenceDate == 12.25)
            let array = try #require(plist["array"] as? [Any])
            #expect(array.count == 3 && array[1] as? String == "two")
        }
    }

    @Test("Containers of more than 255 objects use two-byte references and long counts")
    func manyObjects() throws {
        let items = (0..<1_000).map { PropertyListValue.string("item \($0)") }
        let decoded = try #require(try PropertyListReader.propertyList(from: BinaryPropertyListWriter.data(.array(items))) as? [String])
        #expect(decoded == (0..<1_000).map { "item \($0)" })
    }

    /// Two objects that refer to each other, as a property and its entity do.
    final class Node {
        var name: String
        weak var partner: Node?
        init(_ name: String) { self.name = name }
    }

    @Test("An archive of objects that refer to each other decodes with one UID per instance, $null at 0 and shared classes")
    func cyclicArchive() throws {
        let first = Node("first"), second = Node("second")
        first.partner = second
        second.partner = first
        let writer = KeyedArchiveWriter()
        func encode(_ node: Node) -> PropertyListValue {
            writer.object(for: node, classes: ["ExampleNode", "NSObject"]) { writer in
                [("name", writer.string(node.name)), ("partner", node.partner.map(encode) ?? KeyedArchiveWriter.null), ("flag", .integer(3))]
            }
        }
        let root = writer.array([encode(first), encode(second), encode(first)], classes: KeyedArchiveWriter.Classes.mutableArray)
        let data = writer.finish(root: root)

        let plist = try #require(try PropertyListReader.propertyList(from: data) as? [String: Any])
        #expect(plist["$archiver"] as? String == "NSKeyedArchiver")
        #expect((plist["$version"] as? NSNumber)?.intValue == 100_000)
        #expect((plist["$objects"] as? [Any])?.first as? String == "$null")

        let archive = try KeyedArchive(data: data, location: ModelFileLocation(url: nil))
        let array = try archive.root()
        #expect(array.className == "NSMutableArray" && array.classChain == ["NSMutableArray", "NSArray", "NSObject"])
        let elements = try array.collectionElements().map { value -> ArchivedObject in
            guard case .object(let object) = value else { throw KeyedArchiveWriterTestError.notAnObject }
            return object
        }
        #expect(elements.count == 3)
        #expect(elements[0].index == elements[2].index)
        #expect(try elements[0].string("name") == "first")
        #expect(try elements[0].integer("flag") == 3)
        let partner = try #require(try elements[0].object("partner"))
        #expect(partner.index == elements[1].index)
        #expect(try partner.object("partner")?.index == elements[0].index)
    }

    @Test("Foundation values archive in the classes the model reader decodes")
    func foundationValues() throws {
        let writer = KeyedArchiveWriter()
        let uuid = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        let decimal = Decimal(string: "-1234.5678")!
        let values: [Any] = ["text", 42, 2.5, true, date, Data([9, 8]), uuid, URL(string: "https://example.com/a")!, decimal,
                             ["key": "value"], ["a", "b"]]
        let references = values.map { writer.foundationValue($0) ?? KeyedArchiveWriter.null }
        let archive = try KeyedArchive(data: writer.finish(root: writer.array(references)), location: ModelFileLocation(url: nil))
        let decoded = try archive.root().collectionElements().map { try $0.foundationValue() }
        #expect(decoded[0] as? String == "text")
        #expect((decoded[1] as? NSNumber)?.intValue == 42)
        #expect((decoded[2] as? NSNumber)?.doubleValue == 2.5)
        #expect((decoded[3] as? NSNumber)?.boolValue == true)
        #expect(decoded[4] as? Date == date)
        #expect(decoded[5] as? Data == Data([9, 8]))
        #expect(decoded[6] as? UUID == uuid)
        #expect((decoded[7] as? URL)?.absoluteString == "https://example.com/a")
        #expect((decoded[8] as? NSDecimalNumber)?.decimalValue == decimal)
        #expect((decoded[9] as? [AnyHashable: Any])?["key"] as? String == "value")
        #expect(decoded[10] as? [String] == ["a", "b"])
    }

    enum KeyedArchiveWriterTestError: Error { case notAnObject }
}
