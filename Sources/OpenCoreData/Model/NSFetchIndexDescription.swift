import Foundation

/// A fetch index: the store creates an SQL index over its elements.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchindexdescription>.
open class NSFetchIndexDescription: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: mutated only before its model is frozen, read-only after.

    /// The index name (the store prefixes it with `Z_<Entity>_`).
    open var name: String
    /// The indexed properties, in order.
    open var elements: [NSFetchIndexElementDescription]
    /// A predicate that makes this a partial index, or nil.
    open var partialIndexPredicate: NSPredicate?
    /// The entity that owns the index.
    // unowned, not weak: see NSPropertyDescription.entity.
    open internal(set) unowned var entity: NSEntityDescription?

    /// Creates an index with a name and elements.
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
        for element in self.elements { element.indexDescription = self }
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchIndexDescription(name: name, elements: elements.map { $0.copy() as! NSFetchIndexElementDescription })
        copy.partialIndexPredicate = partialIndexPredicate
        return copy
    }
}

/// One element of a fetch index.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchindexelementdescription>.
open class NSFetchIndexElementDescription: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: mutated only before its model is frozen, read-only after.

    /// The kind of index an element takes part in.
    public enum CollationType: UInt, Sendable {
        case binary = 0
        case rTree = 1
    }

    /// The indexed property.
    open var property: NSPropertyDescription?
    /// The indexed property's name (kept when the property is resolved later).
    open var propertyName: String?
    /// Binary (B-tree) or R-tree.
    open var collationType: CollationType = .binary
    /// Whether the index sorts ascending.
    open var isAscending: Bool = true
    /// The index that owns the element.
    open internal(set) weak var indexDescription: NSFetchIndexDescription?

    /// Creates an element over a property.
    public init(property: NSPropertyDescription, collationType: CollationType) {
        self.property = property
        self.propertyName = property.name
        self.collationType = collationType
        super.init()
    }

    /// Creates an element over a property known by name only (resolved when the model is linked).
    package init(propertyName: String, collationType: CollationType, ascending: Bool) {
        self.propertyName = propertyName
        self.collationType = collationType
        self.isAscending = ascending
        super.init()
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchIndexElementDescription(propertyName: propertyName ?? property?.name ?? "", collationType: collationType, ascending: isAscending)
        copy.property = property
        return copy
    }
}
