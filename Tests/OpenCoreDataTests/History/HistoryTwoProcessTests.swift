import Foundation
import Synchronization
import Testing
@testable import OpenCoreData

/// Issue 17's two-process scenario: process A (author "importer") inserts, updates and deletes;
/// process B, told by remote-change notifications, fetches the history after its last token,
/// merges each transaction's `objectIDNotification()` into its view context, and ends in A's
/// state; then it deletes the history it has consumed and the tables shrink.
@Suite("Persistent history across processes")
struct HistoryTwoProcessTests {
    static let writerVariable = "OPENCOREDATA_HISTORY_WRITER_STORE"

    /// Process A. Does nothing in a normal test run.
    @Test("History writer child process (idle unless re-invoked by the two-process test)")
    func historyWriterChild() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.writerVariable] else { return }
        let a = try HistoryTests.context(HistoryTests.model(), url: URL(fileURLWithPath: path), author: "importer")
        try a.performAndWait {
            for index in 0..<5 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: a)
                item.setValue("new \(index)", forKey: "name")
                item.setValue(Int64(index), forKey: "count")
            }
            try a.save()
            for item in try a.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) where (item.value(forKey: "count") as? Int64 ?? 1) % 2 == 0 {
                item.setValue("even", forKey: "name")
            }
            try a.save()
            let seed = NSFetchRequest<NSManagedObject>(entityName: "Item")
            seed.predicate = NSPredicate(format: "name == %@", "seed")
            for item in try a.fetch(seed) { a.delete(item) }
            try a.save()
        }
        FileHandle.standardOutput.write(Data("DONE\n".utf8))
    }

    static func state(_ context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                .map { "\($0.value(forKey: "name") as? String ?? "nil")/\($0.value(forKey: "count") as? Int64 ?? -1)" }.sorted()
        }
    }

    @Test("Process B follows process A through remote-change notifications and history, ends in A's state, then purges what it consumed")
    func followsAnotherProcess() throws {
        let url = TestStoreFiles.newStoreURL()
        let model = HistoryTests.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentHistoryTrackingKey: true,
                                                                          NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        let view = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        view.persistentStoreCoordinator = coordinator
        view.automaticallyMergesChangesFromParent = true
        view.transactionAuthor = "viewer"
        _ = try HistoryTests.insertItem("seed", count: 1, in: view)
        var token = try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
        // B shows every item: the objects stay registered, as a list on screen would hold them.
        let shown = try view.performAndWait { try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) }

        let notifications = RemoteChangeTests.Recorder(coordinator)
        let (child, output) = try MigrationCrashTests.startChild(url, variable: Self.writerVariable, test: "historyWriterChild")
        let text = MigrationCrashTests.wait(for: "DONE", in: output)
        child.waitUntilExit()
        #expect(text.contains("DONE"))

        // Consume history each time a notification arrives, until B has A's last transaction.
        var consumed = 0
        var merged: [NSPersistentHistoryTransaction] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if notifications.count > consumed {
                consumed = notifications.count
                let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
                let transactions = try HistoryTests.transactions(request, in: view).filter { $0.author != "viewer" }
                view.performAndWait {
                    for transaction in transactions { view.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
                }
                merged += transactions
                token = transactions.last?.token ?? token
            }
            if merged.count == 3 { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(merged.count == 3 && merged.allSatisfy { $0.author == "importer" })

        let expected = try Self.state(try HistoryTests.context(model, url: url))
        #expect(expected == ["even/0", "even/2", "even/4", "new 1/1", "new 3/3"])
        #expect(try Self.state(view) == expected)
        // The seed B was showing was deleted by merging A's history, without a refetch.
        let seed = try #require(shown.first)
        view.performAndWait {
            #expect(seed.isDeleted || seed.managedObjectContext == nil || !view.registeredObjects.contains(seed))
        }

        let changes = try HistoryTests.count(url, "ACHANGE")
        let transactions = try HistoryTests.count(url, "ATRANSACTION")
        _ = try HistoryTests.execute(.deleteHistory(before: token), in: view)
        #expect(try HistoryTests.count(url, "ACHANGE") < changes)
        #expect(try HistoryTests.count(url, "ATRANSACTION") < transactions)
    }
}
