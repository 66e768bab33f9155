import Foundation
import Testing
@testable import OpenCoreData

/// swift-corelibs-foundation's `XMLParser` calls `strlen` on the NULL data libxml2 gives it for
/// `<?target?>`, which crashed `swift test` on a fresh clone without `../shared` (issue 30,
/// point 7): the XML fuzz target then mutates only the built-in samples, and that sequence
/// reaches such an instruction. Each input here crashed the test process before the fix; now
/// each loads or throws an `NSError`.
@Suite("Model XML processing instructions")
struct ModelXMLProcessingInstructionTests {
    /// Loads model XML; returns the model or the error (any other outcome is a crash).
    static func load(_ xml: String) -> Result<NSManagedObjectModel, NSError> {
        let model = NSManagedObjectModel()
        do {
            try ModelFileLoader.load(Data(xml.utf8), url: nil, into: model)
            return .success(model)
        } catch let error as NSError {
            return .failure(error)
        }
    }

    static let body = """
        <entity name="Author" representedClassName="Author"><attribute name="name" optional="YES" attributeType="String"/></entity>
        """

    @Test("An instruction without data loads where Apple's parser would accept it", arguments: [
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<?p?><model>\(body)</model>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model><?p?>\(body)<?é-x.y:z?></model>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model>\(body)</model><?p?>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE model [<?p?>]><model>\(body)</model>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE model [<!ENTITY e \"<?p?>\">]><model>&e;\(body)</model>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model><!-- <?p?> --><![CDATA[<?p?>]]>\(body)</model>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model><!-- <?a--><?b?>\(body)</model>",
    ])
    func instructionWithoutData(_ xml: String) throws {
        let model = try Self.load(xml).get()
        #expect(model.entitiesByName.keys.sorted() == ["Author"])
    }

    @Test("Inputs that would still spell one are refused with a corrupt-file error", arguments: [
        // `<?xml?>` is no declaration, so libxml2 (recovering) reports it as an instruction.
        "<?xml?><model>\(body)</model>",
        // A character reference inside an entity's value becomes markup.
        "<!DOCTYPE model [<!ENTITY e \"&#60;?p?>\">]><model>&e;\(body)</model>",
        "<!DOCTYPE model [<!ENTITY e \"&#x3c;?p&#63;>\">]><model>&e;\(body)</model>",
        // UTF-16 without a byte order mark: valid UTF-8 bytes, but the markup is in NULs.
        String(decoding: Array("<?p?><model/>".utf16).flatMap { [UInt8($0), 0] }, as: UTF8.self),
        // An encoding where ASCII bytes are not ASCII characters (`+ADw-` is `<` in UTF-7).
        "<?xml version=\"1.0\" encoding=\"UTF-7\"?><model>+ADw-?p?+AD4-\(body)</model>",
    ])
    func refused(_ xml: String) {
        switch Self.load(xml) {
        case .success(let model):
            // `<?xml?>` may also be read leniently; either way nothing crashed.
            #expect(xml.hasPrefix("<?xml?>"), "loaded \(model.entities.count) entities from \(xml.debugDescription)")
        case .failure(let error):
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSFileReadCorruptFileError)
        }
    }

    @Test("A text or comment that only looks like an instruction is left as it is")
    func textIsKept() throws {
        // A character reference outside a DTD is text, not markup, and needs no change.
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model>\(Self.body.replacingOccurrences(of: "\"String\"/>", with: "\"String\" defaultValueString=\"&#60;?p?>\"/>"))</model>"
        let model = try Self.load(xml).get()
        let name = try #require(model.entitiesByName["Author"]?.attributesByName["name"])
        #expect(name.defaultValue as? String == "<?p?>")
    }

    @Test("The bytes are changed only by a space before each empty instruction's `?>`, so line numbers hold")
    func preparedBytes() throws {
        let location = ModelFileLocation(url: nil)
        let source = "<a>\n<?p?>\n<?q data?>\n<?r?></a>"
        let prepared = try ModelXMLDocument.parserInput(Data(source.utf8), location: location)
        #expect(String(decoding: prepared, as: UTF8.self) == "<a>\n<?p ?>\n<?q data?>\n<?r ?></a>")
        let untouched = Data("<a b=\"1\"/>".utf8)
        #expect(try ModelXMLDocument.parserInput(untouched, location: location) == untouched)
        #expect(ModelXMLDocument.emptyInstructionEnds(Array("<?<?<?a?>".utf8)) == [7])
    }
}
