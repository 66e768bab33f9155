import Foundation

/// A batch request in store form (`PersistentStoreBackend.executeBatch`): an entity, rows or a
/// filter, and no managed objects or contexts. Built by the context from an
/// `NSBatchInsertRequest`, `NSBatchUpdateRequest` or `NSBatchDeleteRequest`, whose values it has
/// already checked against the model.
package enum StoreBatchRequest {
    case insert(StoreBatchInsert)
    case update(StoreBatchUpdate)
    case delete(StoreBatchDelete)
}

/// New rows of one entity.
package struct StoreBatchInsert {
    package let entity: NSEntityDescription
    /// Fills `row` with the next row, values in layout-slot order with the model's defaults
    /// filled in (to-many slots `.objectIDs([])`), and returns true; returns false after the
    /// last row. It throws for a bad row; the store then writes nothing. Called on the writer
    /// inside the store's transaction, so rows stream from a handler without being held all at
    /// once, and with the same `row` every time, so one buffer serves the whole request.
    package let nextRow: (inout StoreValues) throws -> Bool
    /// Whether the request needs the keys of the rows it wrote (it returns their IDs). Without
    /// it a store that keeps no history may report only how many rows were inserted and updated.
    package let needsKeys: Bool

    package init(entity: NSEntityDescription, needsKeys: Bool = true, nextRow: @escaping (inout StoreValues) throws -> Bool) {
        self.entity = entity
        self.needsKeys = needsKeys
        self.nextRow = nextRow
    }
}

/// New values for the rows of an entity that match a predicate.
package struct StoreBatchUpdate {
    /// One `attribute = value` of the update.
    package struct Assignment {
        /// What the attribute is set to.
        package enum Value {
            /// A value already converted to the attribute's type (`.null` for nil).
            case constant(StoreValue)
            /// An expression over the row (`value + 1`, another attribute) the store evaluates.
            case expression(NSExpression)
        }
        package let attribute: NSAttributeDescription
        package let value: Value

        package init(attribute: NSAttributeDescription, value: Value) {
            self.attribute = attribute
            self.value = value
        }
    }

    package let entity: NSEntityDescription
    package let includesSubentities: Bool
    package let predicate: NSPredicate?
    package let assignments: [Assignment]
    /// Whether the request needs the updated rows' keys (it returns their IDs). Without it a
    /// store that keeps no history may report only how many rows of the entity changed.
    package let needsKeys: Bool

    package init(entity: NSEntityDescription, includesSubentities: Bool, predicate: NSPredicate?, assignments: [Assignment],
                 needsKeys: Bool = true) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.assignments = assignments
        self.needsKeys = needsKeys
    }
}

/// Rows to delete: those of an entity that match a predicate, or those with given IDs.
package struct StoreBatchDelete {
    package let entity: NSEntityDescription
    package let includesSubentities: Bool
    package let predicate: NSPredicate?
    /// When set, exactly these rows (all of `entity`'s hierarchy); `predicate` is then nil.
    package let objectIDs: [NSManagedObjectID]?

    package init(entity: NSEntityDescription, includesSubentities: Bool, predicate: NSPredicate?, objectIDs: [NSManagedObjectID]?) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.objectIDs = objectIDs
    }
}

/// What a batch request did.
package struct StoreBatchResult {
    /// Every row it inserted, updated or deleted, cascades and nullified inverses included.
    package var changes: StoreBatchChanges

    package init(changes: StoreBatchChanges) {
        self.changes = changes
    }
}

/// Who made a batch request, for the store's persistent history: the executing context's
/// `transactionAuthor` and `name`.
package struct StoreChangeOrigin: Sendable {
    package var author: String?
    package var contextName: String?

    package init(author: String? = nil, contextName: String? = nil) {
        self.author = author
        self.contextName = contextName
    }
}
