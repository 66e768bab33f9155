import Foundation
import Testing
@testable import OpenCoreData

/// Issue 14 point 2 (models): loading and hashing a model costs work linear in its size. An
/// entity's version hash covers its superentity's hash and its inherited properties, so each
/// is computed once per model, not once per level of an inheritance chain.
@Suite("Model loading and hashing scale linearly")
struct ModelScalingTests {
    /// An XML model whose entities `E0 ← E1 ← … ← E(depth-1)` each add one attribute.
    static func chainXML(depth: Int) -> String {
        var body = ""
        for level in 0..<depth {
            let parent = level == 0 ? "" : " parentEntity=\"E\(level - 1)\""
            body += "<entity name=\"E\(level)\"\(parent)><attribute name=\"a\(level)\" optional=\"YES\" attributeType=\"Integer 64\"/></entity>\n"
        }
        return ModelXML.model(body)
    }

    @Test("A 100-level inheritance chain loads, hashes each entity and property once, and opens a SQLite store")
    func deepChain() throws {
        let depth = 100
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(Data(Self.chainXML(depth: depth).utf8), url: nil, into: model)
        let entities = model.entitiesByName
        #expect(entities.count == depth)
        let deepest = try #require(entities["E\(depth - 1)"])
        #expect(deepest.properties.map(\.name) == (0..<depth).map { "a\($0)" })

        var memo = VersionHasher.Memo()
        let hashes = VersionHasher.hashes(of: model.entities, memo: &memo)
        #expect(hashes.count == depth)
        // One hash per entity and one per property: 2 × depth, not depth² or depth³.
        #expect(memo.computed == 2 * depth)
        // The memoized hashes are the ones each entity computes on its own.
        #expect(hashes["E\(depth - 1)"] == deepest.versionHash)
        #expect(hashes["E0"] == entities["E0"]?.versionHash)
        #expect(model.entityVersionHashesByName == hashes)
        // Distinct entities have distinct hashes (each hash covers its own superentity's).
        #expect(Set(hashes.values).count == depth)

        let context = try TestModels.sqliteContext(model)
        try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "E\(depth - 1)", into: context)
            object.setValue(7, forKey: "a0")
            object.setValue(8, forKey: "a\(depth - 1)")
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "E0")
            request.predicate = NSPredicate(format: "a0 == 7")
            let fetched = try context.fetch(request)
            #expect(fetched.map(\.entity.name) == ["E\(depth - 1)"])
            #expect(fetched.first?.value(forKey: "a\(depth - 1)") as? Int64 == 8)
        }
    }

    @Test("properties of an unfrozen chain lists inherited properties first, in one pass")
    func unfrozenProperties() {
        var entities: [NSEntityDescription] = []
        for level in 0..<60 {
            let entity = TestModels.entity("E\(level)", [TestModels.attribute("a\(level)", .stringAttributeType)])
            entities.last?.subentities = [entity]
            entities.append(entity)
        }
        #expect(entities[59].properties.map(\.name) == (0..<60).map { "a\($0)" })
        #expect(entities[0].properties.map(\.name) == ["a0"])
        let model = NSManagedObjectModel()
        model.entities = entities
        var memo = VersionHasher.Memo()
        _ = VersionHasher.hashes(of: entities, memo: &memo)
        #expect(memo.computed == 120)
    }

    @Test("A model with a 1 MB name, modifier and user-info string loads and hashes")
    func megabyteStrings() throws {
        let big = String(repeating: "x", count: 1 << 20)
        let xml = ModelXML.model("""
            <entity name="Thing" versionHashModifier="\(big)">
                <attribute name="\(big)" optional="YES" attributeType="String" defaultValueString="\(big)"/>
                <attribute name="small" optional="YES" attributeType="String"/>
                <userInfo><entry key="k" value="\(big)"/></userInfo>
            </entity>
            <entity name="Sub" parentEntity="Thing"/>
            """)
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(Data(xml.utf8), url: nil, into: model)
        let thing = try #require(model.entitiesByName["Thing"])
        #expect(thing.versionHashModifier?.utf8.count == 1 << 20)
        #expect(thing.propertiesByName[big] != nil)
        var memo = VersionHasher.Memo()
        let hashes = VersionHasher.hashes(of: model.entities, memo: &memo)
        #expect(hashes.count == 2 && hashes.values.allSatisfy { $0.count == 32 })
        #expect(memo.computed == 4)
        #expect(VersionHasher.digest(of: hashes).isEmpty == false)
    }
}
