import Foundation
import Testing
@testable import OpenCoreData

/// The persistent history Apple's Core Data wrote into CoreDataPlus's SampleModel2 store, read
/// through the same API (on a copy: fixtures are never opened in place).
@Suite("Persistent history: Apple fixture store", .enabled(if: Fixtures.enabled, "shared/fixtures not found beside the package; set OPENCOREDATA_FIXTURES"))
struct PersistentHistoryFixtureTests {
    static let store = "CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite"

    @Test("Our history statements are Apple's, text for text, as the fixture's sqlite_master holds them")
    func schemaMatchesApple() throws {
        let copy = try Fixtures.copy(Fixtures.store(Self.store))
        let apple = try HistoryTests.historySchema(copy)
        #expect(apple == PersistentHistoryRecordingTests.appleSchema)
        #expect(Set(apple.values) == Set(SQLHistoryStatements(dialect: SQLiteDialect()).creationStatements))
    }

    @Test("Apple's history reads back: 1 transaction, 5,468 inserts (51/1/444/4970/2 by entity), bundle 'com.apple.dt.xctest.tool', process 'xctest', no author")
    func appleHistoryReadsBack() throws {
        let copy = try Fixtures.copy(Fixtures.store(Self.store))
        let before = try Data(contentsOf: copy)
        let model = try FixtureStoreRowTests.model(for: (Self.store, nil), copy: copy)
        // Read-only, with the tracking option: a store that has the tables is not altered.
        let context = try TestModels.sqliteContext(model, url: copy, options: [
            NSReadOnlyPersistentStoreOption: true, OCDReadOnlyIgnoringVersionHashesOption: true, NSPersistentHistoryTrackingKey: true,
        ])
        let history = try HistoryTests.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        try #require(history.count == 1)
        let transaction = history[0]
        #expect(transaction.transactionNumber == 1)
        #expect(transaction.bundleID == "com.apple.dt.xctest.tool")
        #expect(transaction.processID == "xctest")
        #expect(transaction.author == nil)
        #expect(transaction.contextName == nil)
        #expect(abs(transaction.timestamp.timeIntervalSinceReferenceDate - 737_057_647.288) < 0.01)
        let changes = try #require(transaction.changes)
        #expect(changes.count == 5468)
        #expect(changes.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil && $0.tombstone == nil })
        var counts: [String: Int] = [:]
        for change in changes { counts[change.changedObjectID.entity.name ?? "?", default: 0] += 1 }
        #expect(counts == ["Book": 51, "GraphicNovel": 1, "Feedback": 444, "Page": 4970, "Author": 2])
        #expect(Set(changes.map(\.changedObjectID)).count == 5468)
        // The changed objects are the store's rows.
        try context.performAndWait {
            for change in changes.prefix(50) {
                let object = try context.existingObject(with: change.changedObjectID)
                #expect(object.objectID == change.changedObjectID)
            }
        }
        let coordinator = try #require(context.persistentStoreCoordinator)
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == transaction.token)
        #expect(try HistoryTests.transactions(.fetchHistory(after: transaction.token), in: context).isEmpty)
        #expect(try Data(contentsOf: copy) == before)
    }
}
