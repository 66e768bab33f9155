import Foundation

/// An attribute made of named sub-attributes, stored as columns of the owning entity (iOS 17).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nscompositeattributedescription>.
/// Its value is a dictionary keyed by element name (`value(forKey: "author") as? [String: Any]`);
/// an element that is itself a composite holds a nested dictionary. In an SQLite store the
/// composite has no column of its own: each element has one, named after the element
/// (docs/StoreFormat.md).
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// The sub-attributes (attributes or nested composites), in the order they were set.
    open var elements: [NSAttributeDescription] = [] { willSet { checkMutable("elements") } }

    public required init() {
        super.init()
        attributeType = .compositeAttributeType
    }

    open override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        (copy as? NSCompositeAttributeDescription)?.elements = elements.map { $0.copy() as! NSAttributeDescription }
    }

    // MARK: - Leaves

    /// The most nested composites a model may declare; deeper ones (only a hostile file makes
    /// them) are refused when the model is read.
    package static let maximumDepth = 16

    /// One non-composite element, reached through `path` (element names from this composite down).
    package struct Leaf {
        package let path: [String]
        package let attribute: NSAttributeDescription
    }

    /// Every non-composite element, depth-first in element order: the values a stored composite
    /// is made of, one column each.
    package var leaves: [Leaf] {
        var result: [Leaf] = []
        collectLeaves(prefix: [], depth: 0, into: &result)
        return result
    }

    private func collectLeaves(prefix: [String], depth: Int, into result: inout [Leaf]) {
        for element in elements {
            let path = prefix + [element.name]
            if let nested = element as? NSCompositeAttributeDescription {
                // Models are checked at read time; this bound only keeps a hand-made cycle finite.
                if depth < Self.maximumDepth { nested.collectLeaves(prefix: path, depth: depth + 1, into: &result) }
            } else {
                result.append(Leaf(path: path, attribute: element))
            }
        }
    }

    /// The element named `name`, or nil.
    package func element(named name: String) -> NSAttributeDescription? {
        elements.first { $0.name == name }
    }

    /// Marks the elements (nested ones included) as belonging to `entity` and, when `freeze`, immutable.
    package func adoptElements(entity: NSEntityDescription, freeze: Bool, depth: Int = 0) {
        guard depth < Self.maximumDepth else { return }
        for element in elements {
            element.entity = entity
            if freeze { element.isFrozen = true }
            (element as? NSCompositeAttributeDescription)?.adoptElements(entity: entity, freeze: freeze, depth: depth + 1)
        }
    }
}
