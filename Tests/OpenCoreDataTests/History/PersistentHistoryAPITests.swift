import Foundation
import Synchronization
import Testing
@testable import OpenCoreData

/// Reading and purging persistent history: requests, result types, tokens.
@Suite("Persistent history: API")
struct PersistentHistoryAPITests {
    /// A tracked store with three transactions by authors "a", "b", "a" (one item each).
    private func threeTransactions() throws -> (context: NSManagedObjectContext, url: URL, tokens: [NSPersistentHistoryToken]) {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(HistoryTests.model(), url: url)
        var tokens: [NSPersistentHistoryToken] = []
        for (index, author) in ["a", "b", "a"].enumerated() {
            context.performAndWait { context.transactionAuthor = author }
            try HistoryTests.insertItem("item \(index)", in: context)
            tokens.append(try #require(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil)))
        }
        return (context, url, tokens)
    }

    @Test("fetchHistory(after:) a token, a transaction or a date returns only later transactions, ascending; nil returns all")
    func fetchAfter() throws {
        let (context, _, tokens) = try threeTransactions()
        let all = try HistoryTests.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        #expect(all.map(\.transactionNumber) == [1, 2, 3])
        #expect(all.map(\.author) == ["a", "b", "a"])
        #expect(all.map(\.token) == tokens)
        #expect(try HistoryTests.transactions(.fetchHistory(after: tokens[0]), in: context).map(\.transactionNumber) == [2, 3])
        #expect(try HistoryTests.transactions(.fetchHistory(after: all[1]), in: context).map(\.transactionNumber) == [3])
        #expect(try HistoryTests.transactions(.fetchHistory(after: tokens[2]), in: context).isEmpty)
        #expect(try HistoryTests.transactions(.fetchHistory(after: all[0].timestamp), in: context).allSatisfy { $0.timestamp > all[0].timestamp })
        #expect(try HistoryTests.transactions(.fetchHistory(after: Date.distantPast), in: context).count == 3)
        #expect(try HistoryTests.transactions(.fetchHistory(after: Date.distantFuture), in: context).isEmpty)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect(all.allSatisfy { $0.storeID == store.identifier && $0.processID == HistoryProcessIdentity.processID && $0.bundleID == HistoryProcessIdentity.bundleID })
    }

    @Test("Each NSPersistentHistoryResultType returns its documented shape")
    func resultTypes() throws {
        let (context, _, _) = try threeTransactions()
        func run(_ type: NSPersistentHistoryResultType) throws -> Any? {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            request.resultType = type
            let result = try HistoryTests.execute(request, in: context)
            #expect(result.resultType == type)
            return result.result
        }
        #expect(NSPersistentHistoryChangeRequest.fetchHistory(after: Date()).resultType == .transactionsAndChanges)
        #expect((try run(.statusOnly) as? NSNumber)?.boolValue == true)
        #expect((try run(.count) as? NSNumber)?.intValue == 3)
        let only = try #require(try run(.transactionsOnly) as? [NSPersistentHistoryTransaction])
        #expect(only.count == 3 && only.allSatisfy { $0.changes == nil })
        let changes = try #require(try run(.changesOnly) as? [NSPersistentHistoryChange])
        #expect(changes.count == 3)
        #expect(changes.map { $0.transaction?.transactionNumber } == [1, 2, 3])
        let ids = try #require(try run(.objectIDs) as? [NSManagedObjectID])
        #expect(Set(ids) == Set(changes.map(\.changedObjectID)))
        let full = try #require(try run(.transactionsAndChanges) as? [NSPersistentHistoryTransaction])
        #expect(full.allSatisfy { $0.changes?.count == 1 && $0.changes?.first?.transaction === $0 })
        #expect(NSPersistentHistoryResultType.transactionsAndChanges.rawValue == 5 && NSPersistentHistoryResultType.changesOnly.rawValue == 4)
    }

    @Test("fetchHistory(withFetch:) filters transactions by author and changes by type, in SQL, with the same result as in memory")
    func fetchRequestPredicates() throws {
        let (context, _, _) = try threeTransactions()
        let transactionRequest = try #require(NSPersistentHistoryTransaction.fetchRequest)
        transactionRequest.predicate = NSPredicate(format: "%K != %@", "author", "a")
        let others = try HistoryTests.transactions(.fetchHistory(withFetch: transactionRequest), in: context)
        #expect(others.map(\.author) == ["b"])
        // The same predicate lowers to SQL; a block predicate cannot and runs in memory, with the same result.
        let statements = SQLHistoryStatements(dialect: SQLiteDialect())
        let lowering = SQLHistoryPredicateLowering(keys: SQLHistoryPredicateLowering.transactionKeys(statements, dialect: SQLiteDialect()), dialect: SQLiteDialect())
        #expect(lowering.lower(transactionRequest.predicate!.node) != nil)
        transactionRequest.predicate = NSPredicate { object, _ in (object as? [String: Any])?["author"] as? String != "a" }
        #expect(lowering.lower(transactionRequest.predicate!.node) == nil)
        #expect(try HistoryTests.transactions(.fetchHistory(withFetch: transactionRequest), in: context).map(\.author) == ["b"])
        transactionRequest.predicate = NSPredicate(format: "transactionNumber >= 2 AND author == %@", "a")
        #expect(try HistoryTests.transactions(.fetchHistory(withFetch: transactionRequest), in: context).map(\.transactionNumber) == [3])
        transactionRequest.predicate = nil
        transactionRequest.fetchLimit = 1
        transactionRequest.fetchOffset = 1
        #expect(try HistoryTests.transactions(.fetchHistory(withFetch: transactionRequest), in: context).map(\.transactionNumber) == [2])

        // Change predicates: one update among the inserts.
        try context.performAndWait {
            let item = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
            item.setValue(Int64(9), forKey: "count")
            try context.save()
        }
        let changeRequest = try #require(NSPersistentHistoryChange.fetchRequest)
        changeRequest.predicate = NSPredicate(format: "changeType == %d", NSPersistentHistoryChangeType.update.rawValue)
        let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: changeRequest)
        request.resultType = .changesOnly
        let updates = try #require(try HistoryTests.execute(request, in: context).result as? [NSPersistentHistoryChange])
        #expect(updates.map(\.changeType) == [.update])
        #expect(updates.first?.updatedProperties?.map(\.name) == ["count"])
    }

    @Test("Tokens are equal to the DidSave token, Codable and secure-archivable, and survive a round trip")
    func tokens() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(HistoryTests.model(), url: url)
        let received = Mutex<[NSPersistentHistoryToken]>([])
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
            if let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken { received.withLock { $0.append(token) } }
        }
        let idObserver = NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: context, queue: nil) { note in
            if let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken { received.withLock { $0.append(token) } }
        }
        defer {
            NotificationCenter.default.removeObserver(observer)
            NotificationCenter.default.removeObserver(idObserver)
        }
        try HistoryTests.insertItem("a", in: context)
        let current = try #require(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil))
        #expect(received.withLock { $0 } == [current, current])
        #expect(NSPersistentHistoryTokenKey == "historyToken")

        let json = try JSONEncoder().encode(current)
        #expect(try JSONDecoder().decode(NSPersistentHistoryToken.self, from: json) == current)
        let archive = try NSKeyedArchiver.archivedData(withRootObject: current, requiringSecureCoding: true)
        let unarchived = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: archive)
        #expect(unarchived == current)
        try HistoryTests.insertItem("b", in: context)
        let later = try #require(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil))
        #expect(later != current)
        // A token read back after a "restart" (a new coordinator) still bounds the history.
        let reopened = try HistoryTests.context(HistoryTests.model(), url: url)
        let decoded = try JSONDecoder().decode(NSPersistentHistoryToken.self, from: json)
        #expect(try HistoryTests.transactions(.fetchHistory(after: decoded), in: reopened).map(\.transactionNumber) == [2])
    }

    @Test("deleteHistory(before:) removes transactions and changes (strings stay), and a token older than the purge fails with 134301")
    func deleteHistoryExpiresTokens() throws {
        let (context, url, tokens) = try threeTransactions()
        let strings = try HistoryTests.count(url, "ATRANSACTIONSTRING")
        let request = NSPersistentHistoryChangeRequest.deleteHistory(before: tokens[1])
        request.resultType = .count
        #expect((try HistoryTests.execute(request, in: context).result as? NSNumber)?.intValue == 2)
        #expect(try HistoryTests.count(url, "ATRANSACTION") == 1)
        #expect(try HistoryTests.count(url, "ACHANGE") == 1)
        #expect(try HistoryTests.count(url, "ATRANSACTIONSTRING") == strings)
        let error = try #require(throws: NSError.self) {
            try HistoryTests.execute(.fetchHistory(after: tokens[0]), in: context)
        }
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentHistoryTokenExpiredError)
        // The token the purge stopped at is still good.
        #expect(try HistoryTests.transactions(.fetchHistory(after: tokens[1]), in: context).map(\.transactionNumber) == [3])
        // Deleting everything keeps the current token (and numbering) going.
        _ = try HistoryTests.execute(.deleteHistory(before: Date.distantFuture), in: context)
        #expect(try HistoryTests.count(url, "ATRANSACTION") == 0)
        #expect(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil) == tokens[2])
        #expect(try HistoryTests.transactions(.fetchHistory(after: tokens[2]), in: context).isEmpty)
        try HistoryTests.insertItem("next", in: context)
        #expect(try HistoryTests.transactions(.fetchHistory(after: tokens[2]), in: context).map(\.transactionNumber) == [4])
    }

    @Test("A token of another store fails with a clear NSCoreDataError")
    func tokenOfAnotherStore() throws {
        let (first, _, tokens) = try threeTransactions()
        _ = first
        let other = try HistoryTests.context(HistoryTests.model(), url: TestStoreFiles.newStoreURL())
        try HistoryTests.insertItem("x", in: other)
        let error = try #require(throws: NSError.self) {
            try HistoryTests.execute(.fetchHistory(after: tokens[0]), in: other)
        }
        #expect(error.code == NSCoreDataError)
        #expect(error.localizedDescription.contains("another store"))
    }

    @Test("Context B on a second coordinator merges A's history (author \"importer\") with objectIDNotification() and ends in A's state")
    func twoCoordinators() throws {
        let url = TestStoreFiles.newStoreURL()
        let model = HistoryTests.model()
        let a = try HistoryTests.context(model, url: url, author: "importer")
        let b = try HistoryTests.context(model, url: url, author: "viewer")
        let seed = try HistoryTests.insertItem("seed", count: 1, in: a)
        var token = try #require(b.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil))
        // B shows what it has.
        try b.performAndWait { _ = try b.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { $0.value(forKey: "name") } }

        // A inserts, updates and deletes in separate saves.
        try a.performAndWait {
            for index in 0..<5 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: a)
                item.setValue("new \(index)", forKey: "name")
                item.setValue(Int64(index), forKey: "count")
            }
            try a.save()
            let items = try a.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            for item in items where (item.value(forKey: "count") as? Int64 ?? 0) % 2 == 0 { item.setValue("even", forKey: "name") }
            try a.save()
            a.delete(try a.existingObject(with: seed))
            try a.save()
        }

        let request = try #require(NSPersistentHistoryTransaction.fetchRequest)
        request.predicate = NSPredicate(format: "author == %@", "importer")
        let historyRequest = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
        historyRequest.fetchRequest = request
        let history = try HistoryTests.transactions(historyRequest, in: b)
        #expect(history.count == 3 && history.allSatisfy { $0.author == "importer" })
        b.performAndWait {
            for transaction in history { b.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
        }
        token = try #require(history.last?.token)
        func state(_ context: NSManagedObjectContext) throws -> [String] {
            try context.performAndWait {
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                    .map { "\($0.value(forKey: "name") as? String ?? "nil")/\($0.value(forKey: "count") as? Int64 ?? -1)" }.sorted()
            }
        }
        let expected = try state(a)
        #expect(try state(b) == expected)
        #expect(expected.count == 5 && !expected.contains { $0.hasPrefix("seed") })
        // B's registered objects hold A's values without a refetch.
        b.performAndWait {
            #expect(b.registeredObjects.filter { !$0.isFault }.allSatisfy { ($0.value(forKey: "name") as? String) != "seed" })
        }

        let changes = try HistoryTests.count(url, "ACHANGE")
        _ = try HistoryTests.execute(.deleteHistory(before: token), in: b)
        #expect(try HistoryTests.count(url, "ACHANGE") < changes)
        #expect(try HistoryTests.count(url, "ATRANSACTION") == 0)
    }
}
