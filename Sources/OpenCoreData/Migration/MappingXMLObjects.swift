import Foundation

/// One `object` of an `xcmapping.xml`: its type, id, typed attributes and relationships.
struct MappingXMLObject {
    let type: String
    let id: String
    /// Attribute name → (declared type, text).
    let attributes: [String: (type: String, text: String)]
    /// Relationship name → the ids it refers to, in order.
    let relationships: [String: [String]]

    /// A string attribute; nil when absent.
    func string(_ name: String) throws -> String? {
        guard let attribute = attributes[name] else { return nil }
        guard attribute.type == "string" else { throw typeError(name, "a string") }
        return attribute.text
    }

    /// A boolean attribute (`bool`, written `0`/`1`); nil when absent.
    func bool(_ name: String) throws -> Bool? {
        guard let attribute = attributes[name] else { return nil }
        switch attribute.text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "1", "YES", "true": return true
        case "0", "NO", "false": return false
        default: throw typeError(name, "a boolean")
        }
    }

    /// An integer attribute (`int16`, `int32`, `int64`); nil when absent.
    func integer(_ name: String) throws -> Int? {
        guard let attribute = attributes[name] else { return nil }
        guard let value = Int(attribute.text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw typeError(name, "an integer") }
        return value
    }

    /// A `binary` attribute (base64 text); nil when absent.
    func data(_ name: String) throws -> Data? {
        guard let attribute = attributes[name] else { return nil }
        guard attribute.type == "binary", let data = Data(base64Encoded: attribute.text, options: .ignoreUnknownCharacters) else {
            throw typeError(name, "base64 binary data")
        }
        return data
    }

    /// The ids a relationship refers to; empty when absent.
    func references(_ name: String) -> [String] {
        relationships[name] ?? []
    }

    private func typeError(_ name: String, _ expected: String) -> MappingModelFailure {
        MappingModelFailure.corrupt("attribute '\(name)' of \(type) \(id) is not \(expected)")
    }
}

/// The objects of an `xcmapping.xml`, by id.
struct MappingXMLObjects {
    private var byID: [String: MappingXMLObject] = [:]
    private var order: [MappingXMLObject] = []

    /// Collects the `object` children of the `database` element.
    init(_ database: ModelXMLElement) throws {
        for element in database.children(named: "object") {
            guard let type = element["type"], let id = element["id"], !id.isEmpty else {
                throw MappingModelFailure.corrupt("line \(element.line): an <object> has no type or id")
            }
            var attributes: [String: (type: String, text: String)] = [:]
            var relationships: [String: [String]] = [:]
            for child in element.children {
                guard let name = child["name"] else {
                    throw MappingModelFailure.corrupt("line \(child.line): an <\(child.name)> of \(type) \(id) has no name")
                }
                switch child.name {
                case "attribute":
                    attributes[name] = (child["type"] ?? "string", child.text)
                case "relationship":
                    relationships[name] = (child["idrefs"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
                default:
                    continue
                }
            }
            let object = MappingXMLObject(type: type, id: id, attributes: attributes, relationships: relationships)
            guard byID.updateValue(object, forKey: id) == nil else {
                throw MappingModelFailure.corrupt("line \(element.line): two objects have the id '\(id)'")
            }
            order.append(object)
        }
    }

    /// The one object of a type.
    func single(ofType type: String) throws -> MappingXMLObject {
        let matching = order.filter { $0.type == type }
        guard matching.count == 1 else {
            throw MappingModelFailure.corrupt("the file has \(matching.count) \(type) objects, not one")
        }
        return matching[0]
    }

    /// The entity mappings in processing order: the model's `entitymappings`, else every entity
    /// mapping by its `mappingnumber`.
    func entityMappings(of model: MappingXMLObject) throws -> [MappingXMLObject] {
        let references = model.references("entitymappings")
        if !references.isEmpty {
            return try resolve(references, type: "XDDEVENTITYMAPPING", context: "the mapping model's entitymappings")
        }
        let all = order.filter { $0.type == "XDDEVENTITYMAPPING" }
        let numbered = try all.map { (try $0.integer("mappingnumber") ?? Int.max, $0) }
        return numbered.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
    }

    /// The objects `references` names, each of `type`.
    func resolve(_ references: [String], type: String, context: String) throws -> [MappingXMLObject] {
        try references.map { id in
            guard let object = byID[id] else { throw MappingModelFailure.corrupt("\(context) refers to the missing object '\(id)'") }
            guard object.type == type else {
                throw MappingModelFailure.corrupt("\(context) refers to '\(id)', a \(object.type) rather than a \(type)")
            }
            return object
        }
    }
}
