import Foundation

// MARK: - Running history requests

extension NSManagedObjectContext {
    /// Runs a history request through the coordinator (`execute(_:)` passes them here).
    func executeHistoryRequest(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The context has no persistent store coordinator to read history from.")
        }
        return try coordinator.executeHistoryRequest(request)
    }
}

extension NSPersistentHistoryChangeRequest {
    /// The store-level request: predicates and paging of `fetchRequest`, and whether changes are read.
    var storeRequest: StoreHistoryRequest {
        var request = StoreHistoryRequest()
        request.isDelete = isDelete
        if let fetch = fetchRequest {
            let entityName = fetch.entity?.name ?? fetch.entityName
            if entityName == HistoryEntities.change.name {
                request.changePredicate = fetch.predicate
            } else {
                request.transactionPredicate = fetch.predicate
                request.fetchLimit = fetch.fetchLimit
                request.fetchOffset = fetch.fetchOffset
            }
        }
        switch resultType {
        case .transactionsAndChanges, .changesOnly, .objectIDs: request.includesChanges = true
        case .transactionsOnly, .count, .statusOnly: request.includesChanges = false
        }
        return request
    }
}

extension NSPersistentHistoryResult {
    /// The public result of a history request from each store's outcome, shaped by its `resultType`.
    static func make(_ request: NSPersistentHistoryChangeRequest, outcomes: [(NSPersistentStore, StoreHistoryOutcome)]) -> NSPersistentHistoryResult {
        if request.isDelete {
            var deleted = 0
            for (_, outcome) in outcomes { if case .deleted(let count) = outcome { deleted += count } }
            let value: Any = request.resultType == .count ? NSNumber(value: deleted) : NSNumber(value: true)
            return NSPersistentHistoryResult(result: value, resultType: request.resultType)
        }
        var transactions: [NSPersistentHistoryTransaction] = []
        for (store, outcome) in outcomes {
            guard case .transactions(let rows) = outcome else { continue }
            transactions.append(contentsOf: rows.map { publicTransaction($0, store: store) })
        }
        let result: Any
        switch request.resultType {
        case .statusOnly: result = NSNumber(value: true)
        case .count: result = NSNumber(value: transactions.count)
        case .transactionsOnly, .transactionsAndChanges: result = transactions
        case .changesOnly:
            result = transactions.flatMap { transaction in
                (transaction.changes ?? []).map { change in
                    // A change handed out alone keeps its transaction (without changes) alive.
                    change.owner = NSPersistentHistoryTransaction(
                        timestamp: transaction.timestamp, changes: nil, transactionNumber: transaction.transactionNumber,
                        storeID: transaction.storeID, bundleID: transaction.bundleID, processID: transaction.processID,
                        contextName: transaction.contextName, author: transaction.author)
                    return change
                }
            }
        case .objectIDs:
            var seen = Set<NSManagedObjectID>()
            result = transactions.flatMap { $0.changes ?? [] }.map(\.changedObjectID).filter { seen.insert($0).inserted }
        }
        return NSPersistentHistoryResult(result: result, resultType: request.resultType)
    }

    private static func publicTransaction(_ row: StoreHistoryTransaction, store: NSPersistentStore) -> NSPersistentHistoryTransaction {
        let changes = row.changes?.map { change -> NSPersistentHistoryChange in
            let properties = change.updatedPropertyNames.map { names in
                Set(names.compactMap { change.entity.propertiesByName[$0] })
            }
            let tombstone = change.tombstone.map { values in
                Dictionary(uniqueKeysWithValues: values.map { (AnyHashable($0.key), $0.value) })
            }
            return NSPersistentHistoryChange(
                changeID: change.changeID, changedObjectID: NSManagedObjectID(entity: change.entity, primaryKey: change.primaryKey, store: store),
                changeType: NSPersistentHistoryChangeType(rawValue: Int(change.kind.rawValue)) ?? .update,
                tombstone: tombstone, updatedProperties: properties)
        }
        return NSPersistentHistoryTransaction(
            timestamp: row.timestamp, changes: changes, transactionNumber: row.number, storeID: store.identifier ?? "",
            bundleID: row.bundleID ?? "", processID: row.processID ?? "", contextName: row.contextName, author: row.author)
    }
}
