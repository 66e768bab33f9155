import Foundation

// MARK: - Fault batches for tools

extension NSManagedObjectContext {
    /// Registers faults for object IDs that fire together: touching any of them loads the rows of
    /// all of them with one store query, as the faults of a `fetchBatchSize` fetch do.
    ///
    /// For tools that walk a store page by page (by primary key) and `reset()` the context between
    /// pages, so memory stays flat whatever the store's size.
    /// - Complexity: O(n); the rows are read when the first fault fires.
    package func batchedFaults(for objectIDs: [NSManagedObjectID]) -> [NSManagedObject] {
        registerBatched(objectIDs, batchSize: max(objectIDs.count, 1))
    }
}
