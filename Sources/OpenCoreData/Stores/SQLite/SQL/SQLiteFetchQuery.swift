import Foundation

/// A sort key the store can lower: an attribute key path and a direction, compared with
/// `compare:` (binary order in SQL).
package struct SQLSortKey: Equatable, Sendable {
    package var keyPath: String
    package var ascending: Bool

    package init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// The key of a sort descriptor that sorts with plain `compare:`, or nil (comparators,
    /// other selectors such as `caseInsensitiveCompare:`, key-less descriptors) so the
    /// context sorts in memory with the same comparison the descriptor describes.
    package init?(_ descriptor: NSSortDescriptor) {
        guard let key = descriptor.key, !key.isEmpty, !descriptor.hasCustomComparator else { return nil }
        if let selector = descriptor.selector, selector != .compare { return nil }
        self.keyPath = key
        self.ascending = descriptor.ascending
    }
}

/// A fetch in the store's terms: entity, filter, sort keys and paging.
package struct SQLiteFetchQuery {
    package var entity: NSEntityDescription
    package var includesSubentities: Bool
    package var predicate: NSPredicate?
    package var sortKeys: [SQLSortKey]
    package var limit: Int
    package var offset: Int

    package init(entity: NSEntityDescription, includesSubentities: Bool = true, predicate: NSPredicate? = nil,
                 sortKeys: [SQLSortKey] = [], limit: Int = 0, offset: Int = 0) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.limit = limit
        self.offset = offset
    }

    /// The query of a store fetch request.
    /// - Throws: `SQLTranslationError` when a sort descriptor cannot be lowered.
    package init(_ request: StoreFetchRequest) throws {
        var keys: [SQLSortKey] = []
        for descriptor in request.sortDescriptors {
            guard let key = SQLSortKey(descriptor) else {
                throw SQLTranslationError("Sort descriptor \(descriptor) uses a comparator, selector or Swift key path; it is evaluated in memory.")
            }
            keys.append(key)
        }
        self.init(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                  sortKeys: keys, limit: request.paging ? request.fetchLimit : 0, offset: request.paging ? request.fetchOffset : 0)
    }
}
