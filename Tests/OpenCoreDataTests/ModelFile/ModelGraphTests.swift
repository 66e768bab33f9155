import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import OpenCoreData

/// The model pictures: Graphviz DOT and the SVG laid out without Graphviz.
///
/// With `OCD_GRAPH_PREVIEW_DIR` set, the fixture test also writes every picture there to look at.
@Suite("Model graph pictures")
struct ModelGraphTests {
    /// Parses XML and returns the text of every `<title>` and `<text>` element, or records an issue.
    static func svgTexts(_ svg: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String]? {
        final class Collector: NSObject, XMLParserDelegate {
            var texts: [String] = []
            var current: String?
            var root: String?
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                if root == nil { root = name }
                if name == "text" || name == "title" { current = "" }
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                if let text = current, name == "text" || name == "title" { texts.append(text) }
                current = nil
            }
        }
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        guard parser.parse() else {
            Issue.record("invalid XML: \(parser.parserError.map { "\($0)" } ?? "?")", sourceLocation: sourceLocation)
            return nil
        }
        #expect(collector.root == "svg", sourceLocation: sourceLocation)
        return collector.texts
    }

    static func model(xml body: String) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(Data(ModelXML.model(body).utf8), url: nil, into: model)
        return model
    }

    @Test("The seed to-do model: boxes with typed attributes, one edge per inverse pair", .enabled(if: ModelFixtures.enabled))
    func seedModel() throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("arnosolo-blog/demo5_todo_list.xcdatamodeld"))
        let dot = model.graphvizDOT()
        #expect(dot.hasPrefix("digraph \"model\" {\n"))
        #expect(dot.hasSuffix("}\n"))
        for entity in ["LocationEntity", "TagEntity", "TodoEntity"] {
            #expect(dot.contains("    \"\(entity)\" [label=<"), "\(entity)")
        }
        #expect(dot.contains("latitude: Double?"))
        #expect(dot.contains("createdAt: Date?"))
        // Each inverse pair is one edge, drawn from the end whose entity sorts first.
        #expect(dot.contains(#""LocationEntity" -> "TodoEntity" [headlabel="todos\n*", taillabel="location\n0..1", dir=none"#))
        #expect(dot.contains(#""TagEntity" -> "TodoEntity" [headlabel="todos\n*", taillabel="tags\n*", dir=none"#))
        #expect(dot.components(separatedBy: " -> ").count - 1 == 2)
        #expect(model.graphvizDOT() == dot, "deterministic")

        let svg = model.svg()
        let texts = try #require(Self.svgTexts(svg))
        for text in ["LocationEntity", "TagEntity", "TodoEntity", "placeName: String?", "todos *", "tags *", "location 0..1"] {
            #expect(texts.contains(text), "\(text)")
        }
        #expect(svg.components(separatedBy: "<path d=\"M").count - 1 == 2 + 2 + 3, "two markers, two relationship edges, three header rules")
        #expect(model.svg() == svg, "deterministic")
    }

    @Test("Inheritance, cardinalities, self-relationships and relationships without an inverse")
    func shapes() throws {
        let model = try Self.model(xml: """
            <entity name="Item" representedClassName="App.Item" isAbstract="YES">
                <attribute name="name" attributeType="String"/>
            </entity>
            <entity name="Recipe" representedClassName="Recipe" parentEntity="Item">
                <attribute name="tags" optional="YES" attributeType="Transformable" customClassName="[String]"/>
                <attribute name="score" optional="YES" transient="YES" attributeType="Double" usesScalarValueType="YES"/>
                <relationship name="steps" toMany="YES" minCount="1" maxCount="9" deletionRule="Cascade" ordered="YES" destinationEntity="Step" inverseName="recipe" inverseEntity="Step"/>
                <relationship name="variants" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Recipe" inverseName="original" inverseEntity="Recipe"/>
                <relationship name="original" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Recipe" inverseName="variants" inverseEntity="Recipe"/>
                <relationship name="author" maxCount="1" deletionRule="Nullify" destinationEntity="Person"/>
            </entity>
            <entity name="Step" representedClassName="Step">
                <relationship name="recipe" maxCount="1" deletionRule="Nullify" destinationEntity="Recipe" inverseName="steps" inverseEntity="Recipe"/>
            </entity>
            <entity name="Person" representedClassName="Person"/>
            """)
        let dot = model.graphvizDOT()
        #expect(dot.contains(#""Recipe" -> "Item" [arrowhead=empty"#), "inheritance points at the parent with a hollow head")
        #expect(dot.contains("abstract, class App.Item"))
        #expect(dot.contains(#""Recipe" -> "Step" [headlabel="steps\n1..9 ordered", taillabel="recipe\n1", dir=none"#))
        #expect(dot.contains(#""Recipe" -> "Person" [headlabel="author\n1", arrowhead=vee"#), "no inverse: one-way arrow")
        #expect(dot.contains(#""Recipe" -> "Recipe" [headlabel="original\n0..1", taillabel="variants\n*", dir=none"#))
        #expect(dot.contains("tags: [String]?") && dot.contains("score: Double? (transient)"))
        #expect(!dot.contains("name: String<BR ALIGN=\"LEFT\"/>tags"), "a subentity lists its own properties only")

        var options = ModelGraphOptions()
        options.showsInheritedProperties = true
        options.showsAttributeTypes = false
        options.title = "Recipes"
        let withInherited = model.graphvizDOT(options: options)
        #expect(withInherited.hasPrefix("digraph \"Recipes\" {"))
        #expect(withInherited.contains("name<BR ALIGN=\"LEFT\"/>score (transient)<BR ALIGN=\"LEFT\"/>tags"))
        #expect(withInherited.components(separatedBy: "headlabel=\"steps").count == 2, "an inherited relationship is still one edge")

        let texts = try #require(Self.svgTexts(model.svg(options: options)))
        #expect(texts.first == "Recipes")
        #expect(texts.contains("steps 1..9 ordered") && texts.contains("author 1"))

        options.showsAttributes = false
        #expect(!model.graphvizDOT(options: options).contains("score"))
    }

    @Test("Names are escaped for DOT, HTML-like labels and XML")
    func escaping() throws {
        let entity = NSEntityDescription()
        entity.name = #"Odd "name" <&> \N"#
        let attribute = NSAttributeDescription()
        attribute.name = "a<b>"
        attribute.attributeType = .transformableAttributeType
        attribute.attributeValueClassName = "Dictionary<String, Int>"
        entity.properties = [attribute]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        var options = ModelGraphOptions()
        options.title = "Q\"uote\\"
        let dot = model.graphvizDOT(options: options)
        #expect(dot.contains(#""Odd \"name\" <&> \\N" [label=<"#))
        #expect(dot.contains("<B>Odd &quot;name&quot; &lt;&amp;&gt; \\N</B>"))
        #expect(dot.contains("a&lt;b&gt;: Dictionary&lt;String, Int&gt;?"))
        #expect(dot.hasPrefix(#"digraph "Q\"uote\\" {"#))
        let texts = try #require(Self.svgTexts(model.svg(options: options)))
        #expect(texts.contains(#"Odd "name" <&> \N"#))
        #expect(texts.contains("a<b>: Dictionary<String, Int>?"))
        #expect(ModelGraph.number(-0.04) == "0" && ModelGraph.number(12.25) == "12.3" && ModelGraph.number(-3.16) == "-3.2")
    }

    @Test("An empty model is an empty picture")
    func emptyModel() throws {
        let model = NSManagedObjectModel()
        #expect(model.graphvizDOT().contains("digraph \"model\" {"))
        #expect(Self.svgTexts(model.svg()) == ["Core Data model"])
    }

    @Test("Every fixture model renders: valid XML, every entity present", .enabled(if: ModelFixtures.enabled))
    func everyFixture() throws {
        let preview = ProcessInfo.processInfo.environment["OCD_GRAPH_PREVIEW_DIR"].map { URL(fileURLWithPath: $0) }
        for url in try ModelFixtures.allSourceModels() {
            let model = try NSManagedObjectModel.load(contentsOf: url)
            let svg = model.svg()
            let texts = try #require(Self.svgTexts(svg), "\(url.path)")
            let dot = model.graphvizDOT()
            for entity in model.entities.compactMap(\.name) {
                #expect(texts.contains(entity), "\(url.path): \(entity)")
                #expect(dot.contains("    \(ModelGraph.quoted(entity)) [label=<"), "\(url.path): \(entity)")
            }
            let relationships = model.entities.flatMap(\.ownProperties).compactMap { $0 as? NSRelationshipDescription }
            let pairs = relationships.filter { $0.inverseRelationship != nil && $0.inverseRelationship !== $0 }.count
            let edges = dot.components(separatedBy: "headlabel=").count - 1
            #expect(edges == relationships.count - pairs / 2, "\(url.path): one edge per relationship or inverse pair")
            if let preview {
                let name = url.path.replacingOccurrences(of: "/", with: "_").suffix(80)
                try FileManager.default.createDirectory(at: preview, withIntermediateDirectories: true)
                try Data(svg.utf8).write(to: preview.appendingPathComponent("\(name).svg"))
                try Data(dot.utf8).write(to: preview.appendingPathComponent("\(name).dot"))
            }
        }
    }
}
