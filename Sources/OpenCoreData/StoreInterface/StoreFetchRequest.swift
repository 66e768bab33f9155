import Foundation

/// What a store needs of a fetch request.
///
/// Built by the context from an `NSFetchRequest` (the entity resolved, key paths checked),
/// passed through the coordinator, which plans it on each store (`planFetch`).
package struct StoreFetchRequest {
    package let entity: NSEntityDescription
    package let includesSubentities: Bool
    package let predicate: NSPredicate?
    package let sortDescriptors: [NSSortDescriptor]
    /// Applied by the store only when `paging` is true.
    package private(set) var fetchLimit: Int
    package private(set) var fetchOffset: Int
    package private(set) var paging: Bool
    package let includesPropertyValues: Bool

    init<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, paging: Bool) {
        self.entity = entity
        self.includesSubentities = request.includesSubentities
        self.predicate = request.predicate
        self.sortDescriptors = request.sortDescriptors ?? []
        self.fetchLimit = paging ? request.fetchLimit : 0
        self.fetchOffset = paging ? request.fetchOffset : 0
        self.paging = paging
        self.includesPropertyValues = request.includesPropertyValues
    }

    package init(entity: NSEntityDescription, includesSubentities: Bool = true, predicate: NSPredicate? = nil,
                 sortDescriptors: [NSSortDescriptor] = [], fetchLimit: Int = 0, fetchOffset: Int = 0) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.paging = true
        self.includesPropertyValues = true
    }

    /// The same request without paging (for a store among several, or rows the context pages
    /// after merging its unsaved changes).
    package var unpaged: StoreFetchRequest {
        var copy = self
        copy.fetchLimit = 0
        copy.fetchOffset = 0
        copy.paging = false
        return copy
    }

    /// The same request stripped of predicate, sort and paging: every row of its entities.
    package var everyRow: StoreFetchRequest {
        StoreFetchRequest(entity: entity, includesSubentities: includesSubentities)
    }

    /// Whether the request asks for every row of its entities, in no particular order.
    package var isEveryRow: Bool {
        predicate == nil && sortDescriptors.isEmpty && fetchLimit <= 0 && fetchOffset <= 0
    }

    /// The entities whose rows match: the entity, and its subentities when included.
    package var entities: [NSEntityDescription] {
        includesSubentities ? entity.selfAndDescendants : [entity]
    }
}
