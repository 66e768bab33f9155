import Foundation

/// A sort key the store can lower: a key path, a direction and the comparison selector.
package struct SQLSortKey: Equatable, Sendable {
    package var keyPath: String
    package var ascending: Bool
    /// `compare:`, `caseInsensitiveCompare:`, `localizedCompare:`, `localizedCaseInsensitiveCompare:`
    /// or `localizedStandardCompare:`; strings sort with the collation that calls the same
    /// comparison as memory (`SortComparison`), other values by value whatever the selector.
    package var selector: String

    package init(_ keyPath: String, ascending: Bool = true, selector: String = "compare:") {
        self.keyPath = keyPath
        self.ascending = ascending
        self.selector = selector
    }

    /// The key of a sort descriptor with a key, or nil for comparators and key-less descriptors,
    /// which only memory can apply. Unknown selectors sort with `compare:`, as in memory.
    package init?(_ descriptor: NSSortDescriptor) {
        guard let key = descriptor.key, !key.isEmpty, !descriptor.hasCustomComparator else { return nil }
        self.keyPath = key
        self.ascending = descriptor.ascending
        self.selector = descriptor.selector.map(NSSortDescriptor.selectorName) ?? "compare:"
    }
}

/// A fetch in the store's terms: entity, filter, sort keys and paging.
package struct SQLFetchQuery {
    package var entity: NSEntityDescription
    package var includesSubentities: Bool
    package var predicate: NSPredicate?
    package var sortKeys: [SQLSortKey]
    package var limit: Int
    package var offset: Int
    /// The identifier of the store queried: object IDs of other stores match no row.
    package var storeIdentifier: String?

    package init(entity: NSEntityDescription, includesSubentities: Bool = true, predicate: NSPredicate? = nil,
                 sortKeys: [SQLSortKey] = [], limit: Int = 0, offset: Int = 0, storeIdentifier: String? = nil) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.limit = limit
        self.offset = offset
        self.storeIdentifier = storeIdentifier
    }

    /// The query of a store fetch request.
    /// - Throws: `SQLTranslationError` when a sort descriptor cannot be lowered.
    package init(_ request: StoreFetchRequest, storeIdentifier: String? = nil) throws(SQLTranslationError) {
        var keys: [SQLSortKey] = []
        for descriptor in request.sortDescriptors {
            guard let key = SQLSortKey(descriptor) else {
                throw .unsupported("sort descriptor \(descriptor)", "it has a comparator closure or no key")
            }
            keys.append(key)
        }
        self.init(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                  sortKeys: keys, limit: request.paging ? request.fetchLimit : 0, offset: request.paging ? request.fetchOffset : 0,
                  storeIdentifier: storeIdentifier)
    }
}
