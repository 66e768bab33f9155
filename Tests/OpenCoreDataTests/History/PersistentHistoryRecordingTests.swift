import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Persistent history as the SQLite store writes it: Apple's tables, one transaction per save.
@Suite("Persistent history: recording")
struct PersistentHistoryRecordingTests {
    /// The statements of Apple's history tables, as Apple-written stores hold them (wave2-research §0.1).
    static let appleSchema: [String: String] = [
        "ACHANGE": "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "ATRANSACTION": "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "ATRANSACTIONSTRING": "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "ACHANGE_ZTRANSACTIONID_INDEX": "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "ATRANSACTION_ZAUTHORTS_INDEX": "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "ATRANSACTION_ZBUNDLEIDTS_INDEX": "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "ATRANSACTION_ZCONTEXTNAMETS_INDEX": "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "ATRANSACTION_ZPROCESSIDTS_INDEX": "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "Z_TRANSACTION_TransactionAuthorIndex": "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "Z_TRANSACTION_TransactionTimestampIndex": "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "Z_TRANSACTIONSTRING_UNIQUE_NAME": "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]

    @Test("NSPersistentHistoryTrackingKey on a new store creates Apple's three tables, their indexes and the 16001–16003 Z_PRIMARYKEY rows")
    func trackingCreatesAppleTables() throws {
        let url = TestStoreFiles.newStoreURL()
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryTests.model())
        var loadError: (any Error)?
        coordinator.addPersistentStore(with: description) { _, error in loadError = error }
        #expect(loadError == nil)
        #expect(try HistoryTests.historySchema(url) == Self.appleSchema)
        let keys = try HistoryTests.rows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
            .map { "\($0[0] as Int64)|\($0[1] as String)|\($0[2] as Int64)|\($0[3] as Int64)" }
        #expect(keys == ["16001|CHANGE|0|0", "16002|TRANSACTION|0|0", "16003|TRANSACTIONSTRING|0|0"])
        // No transaction yet: no token (Apple returns nil before the first transaction).
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
    }

    @Test("Without the option a new store has no history tables, and a history request fails with NSCoreDataError naming the option")
    func untrackedStore() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(HistoryTests.model(), url: url, tracking: false)
        try HistoryTests.insertItem("a", in: context)
        #expect(try HistoryTests.historySchema(url).isEmpty)
        let error = try #require(throws: NSError.self) {
            try HistoryTests.execute(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        }
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError)
        #expect(error.localizedDescription.contains("NSPersistentHistoryTrackingKey"))
        #expect(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil) == nil)
    }

    @Test("One save is one ATRANSACTION row (Z_OPT NULL, seconds since 2001, interned strings) and one ACHANGE per row with its concrete Z_ENT and Z_PK")
    func saveRowsAsApple() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(HistoryTests.model(), url: url, name: "editor", author: "importer")
        let before = Date()
        try context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            owner.setValue("Ann", forKey: "name")
            for index in 0..<2 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("item \(index)", forKey: "name")
                item.setValue(owner, forKey: "owner")
            }
            try context.save()
        }
        let transactions = try HistoryTests.rows(url, "SELECT Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP, ZAUTHOR, typeof(ZTIMESTAMP) FROM ATRANSACTION")
        try #require(transactions.count == 1)
        let transaction = transactions[0]
        #expect(transaction[1] as Int64 == 16002)
        #expect((transaction[2] as DatabaseValue).isNull)
        #expect((transaction[8] as DatabaseValue).isNull)  // only the interned column is filled, as Apple does
        #expect(transaction[9] as String == "real")
        let seconds: Double = transaction[7]
        #expect(seconds >= before.timeIntervalSinceReferenceDate - 1 && seconds <= Date().timeIntervalSinceReferenceDate + 1)
        func name(_ key: Int64?) throws -> String? {
            guard let key else { return nil }
            return try HistoryTests.rows(url, "SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = \(key)").first?[0]
        }
        #expect(try name(transaction[3]) == "importer")
        #expect(try name(transaction[5]) == "editor")
        #expect(try name(transaction[4]) == HistoryProcessIdentity.bundleID)
        #expect(try name(transaction[6]) == HistoryProcessIdentity.processID)
        let changes = try HistoryTests.rows(url, "SELECT Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK")
        let item = try HistoryTests.rows(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")[0][0] as Int64
        let owner = try HistoryTests.rows(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Owner'")[0][0] as Int64
        #expect(changes.count == 3)
        #expect(changes.allSatisfy { $0[0] as Int64 == 16001 && ($0[1] as DatabaseValue).isNull && $0[2] as Int64 == 0 && $0[5] as Int64 == 1 && ($0[6] as DatabaseValue).isNull })
        #expect(changes.map { $0[3] as Int64 }.sorted() == [item, item, owner].sorted())
        let itemKeys = try HistoryTests.rows(url, "SELECT Z_PK FROM ZITEM ORDER BY Z_PK").map { $0[0] as Int64 }
        #expect(changes.filter { $0[3] as Int64 == item }.map { $0[4] as Int64 }.sorted() == itemKeys)
        let maxima = try HistoryTests.rows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT").map { $0[0] as Int64 }
        let strings = Int64(Set(["importer", "editor", HistoryProcessIdentity.bundleID, HistoryProcessIdentity.processID]).count)
        #expect(maxima == [3, 1, strings])

        // A save with no changes records nothing.
        try context.performAndWait { try context.save() }
        #expect(try HistoryTests.count(url, "ATRANSACTION") == 1)
        // Strings are interned once: a second save by the same context adds no string.
        try HistoryTests.insertItem("third", in: context)
        #expect(try HistoryTests.count(url, "ATRANSACTION") == 2)
        #expect(try HistoryTests.count(url, "ATRANSACTIONSTRING") == Int(strings))
    }

    @Test("Updates carry exactly the changed properties; deletes carry a tombstone of the attributes that preserve their value")
    func updatesAndTombstones() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(HistoryTests.model(), url: url)
        let code = UUID()
        let id = try HistoryTests.insertItem("first", count: 1, code: code, in: context)
        try context.performAndWait {
            let item = try context.existingObject(with: id)
            item.setValue("renamed", forKey: "name")
            item.setValue(Int64(2), forKey: "count")
            try context.save()
        }
        // The delete's tombstone is read from the row when the deleted object is a fault.
        try context.performAndWait {
            context.reset()
            context.delete(context.object(with: id))
            try context.save()
        }
        let history = try HistoryTests.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        #expect(history.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert], [.update], [.delete]])
        let update = try #require(history[1].changes?.first)
        #expect(Set(update.updatedProperties?.map(\.name) ?? []) == ["name", "count"])
        #expect(update.tombstone == nil)
        let delete = try #require(history[2].changes?.first)
        #expect(delete.updatedProperties == nil)
        #expect(delete.tombstone?["code"] as? UUID == code)
        #expect(delete.tombstone?["label"] as? String == "label of first")
        #expect(delete.tombstone?["name"] == nil)  // not marked "preserve after deletion"
        #expect(delete.changedObjectID == id)
        #expect(history[0].changes?.first?.updatedProperties == nil)
    }

    @Test("ZCOLUMNS is read tolerantly: another writer's bytes give updatedProperties nil, never an error")
    func unknownColumnsEncoding() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(HistoryTests.model(), url: url)
        let id = try HistoryTests.insertItem("x", in: context)
        try context.performAndWait {
            try context.existingObject(with: id).setValue("y", forKey: "name")
            try context.save()
        }
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "UPDATE ACHANGE SET ZCOLUMNS = x'0102ff' WHERE ZCHANGETYPE = 1") }
        try queue.close()
        let history = try HistoryTests.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        let update = try #require(history.last?.changes?.first)
        #expect(update.changeType == .update)
        #expect(update.updatedProperties == nil)
        #expect(SQLiteHistoryColumns.decode(Data("bplist00garbage".utf8)).updated == nil)
    }

    @Test("A store that has the tables keeps recording every save without the option, and its schema is not altered")
    func existingTablesKeepRecording() throws {
        let url = TestStoreFiles.newStoreURL()
        let model = HistoryTests.model()
        do {
            let context = try HistoryTests.context(model, url: url)
            try HistoryTests.insertItem("tracked", in: context)
            let coordinator = try #require(context.persistentStoreCoordinator)
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        let schema = try HistoryTests.historySchema(url)
        let context = try HistoryTests.context(model, url: url, tracking: false, author: "untracked")
        try HistoryTests.insertItem("untracked", in: context)
        #expect(try HistoryTests.historySchema(url) == schema)
        let history = try HistoryTests.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        #expect(history.count == 2)
        #expect(history.last?.author == "untracked")
        #expect(context.persistentStoreCoordinator?.persistentStores.first?.isReadOnly == false)
    }
}
