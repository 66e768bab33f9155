import Foundation
import Testing
@testable import OpenCoreData

/// Batch requests write persistent history too: one transaction per request, with the
/// executing context's author and one change per row it inserted, updated or deleted, as on
/// Apple platforms (history tracking records "all database changes", batch ones included).
@Suite("Persistent history: batch requests")
struct BatchHistoryTests {
    static func run(_ request: NSPersistentStoreRequest, in context: NSManagedObjectContext) throws {
        try context.performAndWait { _ = try context.execute(request) }
    }

    @Test("Batch insert, update and delete each record one transaction, authored by the context, with a change per row")
    func batchRequestsRecordHistory() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(HistoryTests.model(), url: url, name: "import", author: "importer")
        try Self.run(NSBatchInsertRequest(entityName: "Item", objects: (0..<3).map { ["name": "item \($0)", "count": $0] }), in: context)
        let update = NSBatchUpdateRequest(entityName: "Item")
        update.propertiesToUpdate = ["count": NSExpression(format: "count + 10")]
        try Self.run(update, in: context)
        try Self.run(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item")), in: context)

        let transactions = try HistoryTests.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        #expect(transactions.count == 3)
        #expect(transactions.allSatisfy { $0.author == "importer" && $0.contextName == "import" })
        let kinds = transactions.map { ($0.changes ?? []).map(\.changeType) }
        #expect(kinds == [[.insert, .insert, .insert], [.update, .update, .update], [.delete, .delete, .delete]])
        let updated = (transactions[1].changes ?? []).map { Set(($0.updatedProperties ?? []).map(\.name)) }
        #expect(updated.allSatisfy { $0 == ["count"] })
        // The same rows throughout.
        let ids = transactions.map { Set(($0.changes ?? []).map(\.changedObjectID)) }
        #expect(ids[0] == ids[1] && ids[1] == ids[2] && ids[0].count == 3)
    }

    @Test("A batch request on a store without history writes no history tables")
    func untrackedStore() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(HistoryTests.model(), url: url, tracking: false)
        try Self.run(NSBatchInsertRequest(entityName: "Item", objects: [["name": "one"]]), in: context)
        #expect(try HistoryTests.historySchema(url).isEmpty)
    }
}
