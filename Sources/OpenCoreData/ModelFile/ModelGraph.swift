import Foundation

/// What a picture of a model shows.
///
/// ```swift
/// var options = ModelGraphOptions()
/// options.showsAttributeTypes = false
/// try model.svg(options: options).write(to: url, atomically: true, encoding: .utf8)
/// ```
public struct ModelGraphOptions: Sendable, Equatable {
    /// Whether entity boxes list their attributes (true by default).
    public var showsAttributes = true
    /// Whether attributes show their type, `title: String?` rather than `title` (true by default).
    public var showsAttributeTypes = true
    /// Whether a subentity's box repeats the properties it inherits (false by default: the
    /// inheritance edge says so).
    public var showsInheritedProperties = false
    /// A title drawn above the picture and used as the graph's name, or nil for none.
    public var title: String?

    /// The default options: attributes with their types, own properties only, no title.
    public init() {}
}

extension NSManagedObjectModel {
    /// The model as a Graphviz graph: entities as boxes listing their attributes, relationships as
    /// edges labelled with their name and cardinality at each end (an inverse pair is one edge),
    /// and inheritance as edges with a hollow arrowhead pointing at the parent.
    ///
    /// Render it with `dot -Tsvg model.dot -o model.svg`, or use ``svg(options:)``, which needs
    /// no Graphviz. The output is deterministic: entities and properties are sorted by name.
    ///
    /// - Complexity: O(*n* log *n*) in the number of properties.
    public func graphvizDOT(options: ModelGraphOptions = ModelGraphOptions()) -> String {
        ModelGraph(model: self, options: options).dot()
    }

    /// The model as a stand-alone SVG picture, laid out without Graphviz: the same boxes and edges
    /// as ``graphvizDOT(options:)``, inheritance trees drawn parent above children, related
    /// entities placed near each other. The output is deterministic.
    ///
    /// - Complexity: O(*e*²) in the number of entities (placement), plus the properties.
    public func svg(options: ModelGraphOptions = ModelGraphOptions()) -> String {
        ModelGraph(model: self, options: options).svg()
    }
}

/// The picture's content, independent of the output format: boxes and edges.
struct ModelGraph {
    /// One entity's box.
    struct Node {
        /// The entity's name, the box's title.
        let name: String
        /// A second title line: `abstract`, and the class when it isn't the entity name.
        let subtitle: String?
        /// One line per listed property.
        let lines: [String]
    }

    /// One end of a relationship edge: the relationship seen from the other entity.
    struct End {
        /// The relationship's name.
        let name: String
        /// `1`, `0..1`, `*`, `1..*`, `2..5`, with ` ordered` for an ordered to-many.
        let cardinality: String

        var label: String { "\(name) \(cardinality)" }
    }

    /// A relationship edge from `tail` to `head` (node indexes).
    struct RelationshipEdge {
        let tail: Int
        let head: Int
        /// The relationship from tail to head, shown at the head end.
        let forward: End
        /// Its inverse, shown at the tail end; nil when the relationship has no inverse.
        let inverse: End?
    }

    /// An inheritance edge from a subentity to its parent (node indexes).
    struct InheritanceEdge {
        let child: Int
        let parent: Int
    }

    let options: ModelGraphOptions
    let nodes: [Node]
    let relationships: [RelationshipEdge]
    let inheritance: [InheritanceEdge]

    init(model: NSManagedObjectModel, options: ModelGraphOptions) {
        self.options = options
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        var index: [ObjectIdentifier: Int] = [:]
        for (position, entity) in entities.enumerated() { index[ObjectIdentifier(entity)] = position }
        nodes = entities.map { Self.node(for: $0, options: options) }

        var relationships: [RelationshipEdge] = []
        var inheritance: [InheritanceEdge] = []
        for (position, entity) in entities.enumerated() {
            if let parent = entity.superentity, let parentIndex = index[ObjectIdentifier(parent)] {
                inheritance.append(InheritanceEdge(child: position, parent: parentIndex))
            }
            let own = options.showsInheritedProperties ? entity.properties : entity.ownProperties
            // Inherited relationships are drawn once, from the entity that declares them.
            let declared = own.compactMap { $0 as? NSRelationshipDescription }.filter { $0.entity === entity }
            for relationship in declared.sorted(by: { $0.name < $1.name }) {
                guard let destination = relationship.destinationEntity, let head = index[ObjectIdentifier(destination)] else { continue }
                let inverse = relationship.inverseRelationship
                if let inverse, inverse !== relationship, let inverseOwner = inverse.entity {
                    // An inverse pair is drawn once, from the end whose (entity, name) sorts first.
                    let mine = (entity.name ?? "", relationship.name)
                    let theirs = (inverseOwner.name ?? "", inverse.name)
                    if theirs < mine, inverseOwner.relationshipsByName[inverse.name] != nil { continue }
                }
                relationships.append(RelationshipEdge(
                    tail: position, head: head,
                    forward: End(name: relationship.name, cardinality: Self.cardinality(of: relationship)),
                    inverse: inverse.flatMap { $0 === relationship ? nil : End(name: $0.name, cardinality: Self.cardinality(of: $0)) }))
            }
        }
        self.relationships = relationships
        self.inheritance = inheritance
    }

    // MARK: - Text

    private static func node(for entity: NSEntityDescription, options: ModelGraphOptions) -> Node {
        let name = entity.name ?? "?"
        var subtitle: [String] = []
        if entity.isAbstract { subtitle.append("abstract") }
        if var className = entity.managedObjectClassName, !className.isEmpty, className != "NSManagedObject" {
            if className.hasPrefix(".") { className.removeFirst() }
            if className != name { subtitle.append("class \(className)") }
        }
        var lines: [String] = []
        if options.showsAttributes {
            let properties = options.showsInheritedProperties ? entity.properties : entity.ownProperties
            let attributes = properties.compactMap { $0 as? NSAttributeDescription }.sorted { $0.name < $1.name }
            for attribute in attributes {
                var line = attribute.name
                if options.showsAttributeTypes {
                    line += ": " + typeName(of: attribute) + (attribute.isOptional ? "?" : "")
                }
                if attribute is NSDerivedAttributeDescription { line += " (derived)" } else if attribute.isTransient { line += " (transient)" }
                lines.append(line)
                // A composite's elements follow it, one line each, by key path (`author.person`).
                if let composite = attribute as? NSCompositeAttributeDescription {
                    for leaf in composite.leaves {
                        var elementLine = "  " + composite.name + "." + leaf.path.joined(separator: ".")
                        if options.showsAttributeTypes {
                            elementLine += ": " + typeName(of: leaf.attribute) + (leaf.attribute.isOptional ? "?" : "")
                        }
                        lines.append(elementLine)
                    }
                }
            }
            let fetched = properties.compactMap { $0 as? NSFetchedPropertyDescription }.sorted { $0.name < $1.name }
            for property in fetched {
                let target = property.fetchRequest?.entityName
                lines.append(options.showsAttributeTypes ? "\(property.name): [\(target ?? "?")] (fetched)" : "\(property.name) (fetched)")
            }
        }
        return Node(name: name, subtitle: subtitle.isEmpty ? nil : subtitle.joined(separator: ", "), lines: lines)
    }

    /// The model editor's name of an attribute type (`Integer 16`, `String`), or a
    /// transformable's custom class.
    private static func typeName(of attribute: NSAttributeDescription) -> String {
        if attribute.attributeType == .transformableAttributeType, let custom = attribute.attributeValueClassName, !custom.isEmpty {
            return custom
        }
        return attribute.attributeType.xmlName
    }

    /// UML-style multiplicity: `0..1`/`1` for a to-one, `*`, `1..*` or `min..max` for a to-many.
    static func cardinality(of relationship: NSRelationshipDescription) -> String {
        guard relationship.isToMany else { return relationship.isOptional ? "0..1" : "1" }
        let minimum = max(relationship.minCount, relationship.isOptional ? 0 : 1)
        let unbounded = relationship.maxCount <= 0 || relationship.maxCount == Int.max
        let text: String
        switch (minimum, unbounded) {
        case (0, true): text = "*"
        case (_, true): text = "\(minimum)..*"
        default: text = "\(minimum)..\(relationship.maxCount)"
        }
        return relationship.isOrdered ? text + " ordered" : text
    }
}
