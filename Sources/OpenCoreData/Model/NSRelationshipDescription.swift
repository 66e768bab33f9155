import Foundation

/// A relationship from one entity to another.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsrelationshipdescription>.
/// A relationship is to-one exactly when `maxCount` is 1; 0 means unbounded.
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    /// The entity at the other end.
    // unowned, not weak: see NSPropertyDescription.entity.
    open unowned var destinationEntity: NSEntityDescription? { willSet { checkMutable("destinationEntity") } }
    /// The relationship that points back, or nil for a relationship without an inverse.
    open weak var inverseRelationship: NSRelationshipDescription? { willSet { checkMutable("inverseRelationship") } }
    /// The fewest destination objects allowed on save (to-many).
    open var minCount: Int = 0 { willSet { checkMutable("minCount") } }
    /// The most destination objects allowed; 1 for to-one, 0 for unbounded.
    open var maxCount: Int = 1 { willSet { checkMutable("maxCount") } }
    /// What deleting the source object does to the destination.
    open var deleteRule: NSDeleteRule = .nullifyDeleteRule { willSet { checkMutable("deleteRule") } }
    /// Whether a to-many relationship keeps its order (`NSOrderedSet`).
    open var isOrdered: Bool = false { willSet { checkMutable("isOrdered") } }

    /// Names kept while a model is built from a file, resolved to objects when it is linked.
    package var destinationEntityName: String?
    package var inverseRelationshipName: String?

    /// Whether the relationship is to-many.
    open var isToMany: Bool { maxCount != 1 }

    open override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        guard let copy = copy as? NSRelationshipDescription else { return }
        copy.destinationEntity = destinationEntity
        copy.inverseRelationship = inverseRelationship
        copy.minCount = minCount
        copy.maxCount = maxCount
        copy.deleteRule = deleteRule
        copy.isOrdered = isOrdered
        copy.destinationEntityName = destinationEntityName
        copy.inverseRelationshipName = inverseRelationshipName
    }

    open override var description: String {
        "(\(Swift.type(of: self)) name \(name), destination \(destinationEntity?.name ?? destinationEntityName ?? "nil"), inverse \(inverseRelationship?.name ?? "nil"), toMany \(isToMany), ordered \(isOrdered), deleteRule \(deleteRule))"
    }
}

/// A property that holds the result of a fetch request, evaluated lazily.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchedpropertydescription>.
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    /// The request the property runs; `$FETCH_SOURCE` and `$FETCHED_PROPERTY` are substituted.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    public required init() {
        super.init()
        isTransient = true
    }

    open override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        (copy as? NSFetchedPropertyDescription)?.fetchRequest = fetchRequest
    }
}
