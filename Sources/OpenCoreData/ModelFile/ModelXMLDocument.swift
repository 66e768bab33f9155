import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Synchronization

/// An element of a model XML file: its name, attributes, children and source line.
package struct ModelXMLElement: Sendable {
    package var name: String
    package var attributes: [String: String]
    package var children: [ModelXMLElement]
    /// The 1-based line of the start tag.
    package var line: Int
    /// The element's own character data; only collected when parsing with `keepingText`
    /// (model XML keeps everything in attributes, mapping model XML in text).
    package var text: String = ""

    /// The value of an attribute, or nil.
    package subscript(_ attribute: String) -> String? { attributes[attribute] }

    /// Whether a boolean attribute is `YES` (Xcode writes only `YES`; absence means NO).
    package func flag(_ attribute: String) -> Bool {
        attributes[attribute].map { $0 == "YES" || $0 == "yes" || $0 == "true" || $0 == "1" } ?? false
    }

    /// The direct children with a name.
    package func children(named name: String) -> [ModelXMLElement] {
        children.filter { $0.name == name }
    }
}

/// Parses model XML (`.xcdatamodel/contents`) into a tree of ``ModelXMLElement`` with
/// FoundationXML's `XMLParser`.
///
/// External entities are never resolved, nesting is limited, a processing instruction without
/// data never reaches the parser (it would crash it, see `parserInput`), and parsing is serialized
/// process-wide because swift-corelibs-foundation's `XMLParser` keeps per-thread state in
/// libxml2 callbacks that has not always been safe to use from several threads at once.
package enum ModelXMLDocument {
    /// The deepest nesting accepted; Xcode's files nest five levels.
    package static let maximumDepth = 64

    private static let parseLock = Mutex(())

    /// Parses XML data and returns its root element; `keepingText` collects each element's text.
    ///
    /// - Throws: `NSFileReadCorruptFileError` naming the file and line when the XML is malformed.
    package static func parse(_ data: Data, location: ModelFileLocation, keepingText: Bool = false) throws -> ModelXMLElement {
        // swift-corelibs-foundation's XMLParser traps on names that are not valid UTF-8 (found by
        // the fuzz tests), and Xcode writes model XML in UTF-8 only, so check the encoding first.
        if let offset = invalidUTF8Offset(in: data) {
            let line = data.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            throw ModelFileError.corrupt(location.line(line), "the XML is not valid UTF-8 (byte \(offset))")
        }
        // XMLParser crashes on `<?target?>` (a NULL it reads with strlen): see parserInput.
        let input = try parserInput(data, location: location)
        let builder = TreeBuilder(maximumDepth: maximumDepth, keepingText: keepingText)
        let (succeeded, parserError, line) = parseLock.withLock { _ -> (Bool, (any Error)?, Int) in
            let parser = XMLParser(data: input)
            parser.shouldResolveExternalEntities = false
            parser.shouldProcessNamespaces = false
            parser.delegate = builder
            let succeeded = parser.parse()
            return (succeeded, parser.parserError, parser.lineNumber)
        }
        if let failure = builder.failure {
            throw ModelFileError.corrupt(location.line(failure.line), failure.reason)
        }
        guard succeeded, let root = builder.root else {
            let detail = parserError.map { ($0 as NSError).localizedDescription } ?? "no root element"
            throw ModelFileError.corrupt(location.line(line > 0 ? line : nil), "malformed XML (\(detail))", underlying: parserError)
        }
        return root
    }
}

extension ModelXMLDocument {
    /// The offset of the first byte that is not part of a valid UTF-8 sequence, or nil.
    static func invalidUTF8Offset(in data: Data) -> Int? {
        var offset = 0
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var lastGood = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
                lastGood = offset
            case .emptyInput:
                return nil
            case .error:
                return lastGood
            }
        }
    }
}

// MARK: - Tree building

/// Collects `XMLParser` callbacks into elements. Used by one parse on one thread.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    struct Failure {
        var reason: String
        var line: Int
    }

    let maximumDepth: Int
    let keepingText: Bool
    var stack: [ModelXMLElement] = []
    var root: ModelXMLElement?
    var failure: Failure?

    init(maximumDepth: Int, keepingText: Bool) {
        self.maximumDepth = maximumDepth
        self.keepingText = keepingText
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        guard failure == nil else { return }
        if root != nil {
            fail(parser, "more than one root element")
            return
        }
        if stack.count >= maximumDepth {
            fail(parser, "elements nested deeper than \(maximumDepth) levels")
            return
        }
        stack.append(ModelXMLElement(name: elementName, attributes: attributeDict, children: [], line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard failure == nil, let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard keepingText, failure == nil, !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    private func fail(_ parser: XMLParser, _ reason: String) {
        failure = Failure(reason: reason, line: parser.lineNumber)
        parser.abortParsing()
    }
}
