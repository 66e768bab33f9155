import Foundation

// MARK: - StoreOrder

/// The order in which predicates visit the members of an unordered to-many relationship.
package enum StoreOrder {
    /// Managed objects by primary key (temporary IDs, numbered in creation order, after
    /// permanent ones), the order a SQLite store reads rows in; any other elements as given.
    ///
    /// An `NSSet` iterates in hash order, which differs from process to process; whatever is
    /// computed from the members in turn (the first of equal strings kept, a sum) must not.
    package static func sorted(_ elements: [Any]) -> [Any] {
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(elements.count)
        for element in elements {
            guard let object = PredicateValue.unwrap(element) as? NSManagedObject else { return elements }
            objects.append(object)
        }
        return objects.sorted { lhs, rhs in
            let left = lhs.objectID, right = rhs.objectID
            if left.isTemporaryID != right.isTemporaryID { return !left.isTemporaryID }
            return left.primaryKey < right.primaryKey
        }
    }
}
