import Foundation

// MARK: - Persistent history

extension NSPersistentStoreCoordinator {
    /// A token for the latest history transaction of each of the stores (all stores for nil or
    /// an empty array), or nil when none of them has recorded a transaction.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/currentpersistenthistorytoken(fromstores:)>.
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        let chosen = stores.map { $0.compactMap { $0 as? NSPersistentStore } }.flatMap { $0.isEmpty ? nil : $0 } ?? persistentStores
        var numbers: [String: Int64] = [:]
        for store in chosen {
            guard let backend = store.backend as? any HistoryStoreBackend, backend.keepsHistory else { continue }
            do {
                if let number = try backend.lastHistoryTransactionNumber() { numbers[store.identifier] = number }
            } catch {
                Log.store.error("Reading the history token of \(store) failed: \(error)")
            }
        }
        return numbers.isEmpty ? nil : NSPersistentHistoryToken(transactionNumbers: numbers)
    }

    /// Runs a history request against the stores that keep history, in store order.
    ///
    /// - Throws: `NSCoreDataError` (134060) when no store keeps history or a token or
    ///   transaction names none of the stores; `NSPersistentHistoryTokenExpiredError` (134301)
    ///   when the history after a token was deleted.
    func executeHistoryRequest(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
        let candidates = request.affectedStores ?? persistentStores
        let stores = candidates.compactMap { store -> (NSPersistentStore, any HistoryStoreBackend)? in
            guard let backend = store.backend as? any HistoryStoreBackend, backend.keepsHistory else { return nil }
            return (store, backend)
        }
        guard !stores.isEmpty else {
            let names = candidates.map { $0.url?.path ?? $0.type }.joined(separator: ", ")
            throw CoreDataError.make(NSCoreDataError,
                                     "No store tracks persistent history (\(names.isEmpty ? "the coordinator has no stores" : names)): add the store with NSPersistentHistoryTrackingKey set to true.",
                                     userInfo: [NSAffectedStoresErrorKey: candidates])
        }
        let numbers: [String: Int64]?
        switch request.bound {
        case .token(let token): numbers = token.transactionNumbers
        case .transaction(let transaction): numbers = [transaction.storeID: transaction.transactionNumber]
        case .all, .date: numbers = nil
        }
        if let numbers, !stores.contains(where: { numbers[$0.0.identifier] != nil }) {
            throw CoreDataError.make(NSCoreDataError,
                                     "The history token or transaction belongs to another store (\(numbers.keys.sorted().joined(separator: ", "))), not to \(stores.map { $0.0.identifier ?? "" }.joined(separator: ", ")).",
                                     userInfo: [NSAffectedStoresErrorKey: stores.map(\.0)])
        }
        var outcomes: [(NSPersistentStore, StoreHistoryOutcome)] = []
        for (store, backend) in stores {
            var storeRequest = request.storeRequest
            switch request.bound {
            case .all: storeRequest.bound = .all
            case .date(let date): storeRequest.bound = .date(date)
            case .token, .transaction:
                // A store the token does not name has had no transaction when it was taken: all of its history is later.
                storeRequest.bound = numbers?[store.identifier].map { .transaction($0) } ?? .all
                if request.isDelete && numbers?[store.identifier] == nil { continue }
            }
            outcomes.append((store, try backend.executeHistory(storeRequest, store: store)))
        }
        return NSPersistentHistoryResult.make(request, outcomes: outcomes)
    }
}
