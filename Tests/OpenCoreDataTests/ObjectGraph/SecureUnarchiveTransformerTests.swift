import Foundation
import Testing
@testable import OpenCoreData

/// An app's own secure-coding type, as stored in transformable attributes.
final class SwatchColor: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    let red: Double

    init(name: String, red: Double) {
        self.name = name
        self.red = red
        super.init()
    }

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(red, forKey: "red")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
        red = coder.decodeDouble(forKey: "red")
        super.init()
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? SwatchColor else { return false }
        return name == other.name && red == other.red
    }

    override var hash: Int { name.hashValue }
}

/// The transformer apps register for their type, overriding the allowed classes.
final class SwatchColorTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {
    static let name = NSValueTransformerName(rawValue: "SwatchColorTransformer")
    override class var allowedTopLevelClasses: [AnyClass] { [SwatchColor.self] }
}

@Suite("NSSecureUnarchiveFromDataTransformer")
struct SecureUnarchiveTransformerTests {
    @Test("transformedValue takes Data and returns the object; reverseTransformedValue archives the object into Data")
    func directions() throws {
        let transformer = NSSecureUnarchiveFromDataTransformer()
        let value: NSArray = ["a", 1, 2.5]
        let data = try #require(transformer.reverseTransformedValue(value) as? Data)
        #expect(transformer.transformedValue(data) as? NSArray == value)
        #expect(transformer.transformedValue(value) == nil)
        #expect(transformer.transformedValue(Data("not an archive".utf8)) == nil)
        #expect(transformer.reverseTransformedValue(nil) == nil)
        #expect(NSSecureUnarchiveFromDataTransformer.allowsReverseTransformation())
    }

    @Test("A subclass's allowedTopLevelClasses decide which objects unarchive")
    func allowedClasses() throws {
        let color = SwatchColor(name: "tomato", red: 0.9)
        let data = try #require(SwatchColorTransformer().reverseTransformedValue(color) as? Data)
        #expect(SwatchColorTransformer().transformedValue(data) as? SwatchColor == color)
        // The base class allows Foundation's classes only.
        #expect(NSSecureUnarchiveFromDataTransformer().transformedValue(data) == nil)
        // And the subclass refuses Foundation's.
        let array = try #require(NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(["x"] as NSArray) as? Data)
        #expect(SwatchColorTransformer().transformedValue(array) == nil)
    }

    @Test("A transformable attribute with such a transformer saves the object and reads it back", arguments: StoreKind.allCases)
    func transformableAttributeRoundTrip(kind: StoreKind) throws {
        ValueTransformer.setValueTransformer(SwatchColorTransformer(), forName: SwatchColorTransformer.name)
        let color = TestModels.attribute("color", .transformableAttributeType)
        color.valueTransformerName = SwatchColorTransformer.name.rawValue
        let swatch = TestModels.entity("Swatch", [TestModels.attribute("title", .stringAttributeType), color])
        let model = NSManagedObjectModel()
        model.entities = [swatch]
        let (writer, reader) = try kind.contextPair(model)
        try writer.performAndWait {
            let object = NSManagedObject(entity: writer.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Swatch"]!, insertInto: writer)
            object.setValue("Tomato", forKey: "title")
            object.setValue(SwatchColor(name: "tomato", red: 0.9), forKey: "color")
            try writer.save()
        }
        let read = try reader.performAndWait {
            try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Swatch")).first?.value(forKey: "color")
        }
        #expect(read as? SwatchColor == SwatchColor(name: "tomato", red: 0.9))
    }
}
