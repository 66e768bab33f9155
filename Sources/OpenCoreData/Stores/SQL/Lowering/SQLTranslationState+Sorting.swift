import Foundation

// MARK: - Sorting

extension SQLTranslationState {
    /// The ORDER BY term of a sort key, joining to-one relationships on the way.
    ///
    /// Strings sort with the collation of the key's selector, which calls the comparison memory
    /// uses (`SortComparison`); numbers, dates, data and UUIDs sort by value whatever the selector,
    /// as memory does. NULL sorts first ascending and last descending, in both.
    /// - Throws: `SQLTranslationError` for key paths through to-many relationships, to objects, or
    ///   to values memory compares after decoding (transformable).
    package mutating func orderTerm(for sortKey: SQLSortKey) throws(SQLTranslationError) -> SQLFragment {
        let resolved = try resolve(sortKey.keyPath, from: .object(evaluatedObject))
        guard case .scalar(let scalar) = resolved else {
            throw .unsupported("sort on '\(sortKey.keyPath)'", "it is not an attribute reached through to-one relationships")
        }
        var term = scalar.sql
        switch scalar.kind {
        case .string: term = dialect.collate(term, .sortSelector(sortKey.selector))
        case .url: term = dialect.collate(term, .compare)  // memory compares URLs as strings with <
        default: break
        }
        return term + (sortKey.ascending ? " ASC" : " DESC")
    }
}
