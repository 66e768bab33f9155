import Foundation
import Testing
@testable import OpenCoreData

/// Transformable values without a value transformer: keyed archives of known classes decode,
/// others stay the stored bytes, without Foundation's unarchiver seeing them.
@Suite("Transformable values read from a store")
struct TransformableCodingTests {
    private static func archive(_ object: Any) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    }

    /// The archive with every class name replaced, as an app's own NSCoding type would appear.
    private static func renamingClasses(in data: Data, to name: String) throws -> Data {
        var plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        var objects = try #require(plist["$objects"] as? [Any])
        for (index, object) in objects.enumerated() {
            if var description = object as? [String: Any], description["$classname"] != nil {
                description["$classname"] = name
                description["$classes"] = [name, "NSObject"]
                objects[index] = description
            }
        }
        plist["$objects"] = objects
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    @Test("Archives of Foundation classes decode")
    func knownClasses() throws {
        let value: NSDictionary = ["colour": "red", "sizes": [1, 2, 3]]
        let decoded = TransformableCoding.decode(try Self.archive(value), attribute: nil)
        #expect((decoded as? NSDictionary) == value)
    }

    @Test("Archives of classes this process lacks stay Data")
    func unknownClasses() throws {
        let data = try Self.renamingClasses(in: try Self.archive(["colour": "red"] as NSDictionary), to: "SomeApp.Cover")
        #expect(TransformableCoding.decode(data, attribute: nil) as? Data == data)
    }

    @Test("Truncated and corrupt archives stay Data", arguments: [8, 40, 100])
    func corrupt(length: Int) throws {
        let data = try Self.archive(["colour": "red", "n": 42] as NSDictionary)
        let damaged = Data(data.prefix(length))
        #expect(TransformableCoding.decode(damaged, attribute: nil) as? Data == damaged)
        var flipped = data
        flipped[flipped.count - 5] ^= 0xFF
        #expect(TransformableCoding.decode(flipped, attribute: nil) != nil)
    }
}
