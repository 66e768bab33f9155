import Foundation
import Testing
@testable import OpenCoreData

/// A batch delete's changes carry tombstones as a save's deletes do: Apple's history keeps the
/// values of the attributes with `preservesValueInHistoryOnDeletion` for every deleted row, so a
/// widget or an extension learns which row went (by its UUID, say) once the object is gone.
extension BatchHistoryTests {
    /// Owner (name; badge preserved) —items, Cascade→ Item (name, count; code and label
    /// preserved) ← Special (grade, flag, stamp preserved); Note (text, nothing preserved).
    static func tombstoneModel() -> NSManagedObjectModel {
        func preserved(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = TestModels.attribute(name, type)
            attribute.preservesValueInHistoryOnDeletion = true
            return attribute
        }
        let item = TestModels.entity("Item", [TestModels.attribute("name", .stringAttributeType),
                                              TestModels.attribute("count", .integer64AttributeType),
                                              preserved("code", .UUIDAttributeType), preserved("label", .stringAttributeType)])
        let special = TestModels.entity("Special", [preserved("grade", .integer64AttributeType), preserved("flag", .booleanAttributeType),
                                                    preserved("stamp", .dateAttributeType)])
        item.subentities = [special]
        let owner = TestModels.entity("Owner", [TestModels.attribute("name", .stringAttributeType), preserved("badge", .stringAttributeType)])
        let itemOwner = TestModels.relationship("owner", to: owner, toMany: false)
        let items = TestModels.relationship("items", to: item, toMany: true, deleteRule: .cascadeDeleteRule)
        TestModels.inverse(itemOwner, items)
        item.properties += [itemOwner]
        owner.properties += [items]
        let note = TestModels.entity("Note", [TestModels.attribute("text", .stringAttributeType)])
        let model = NSManagedObjectModel()
        model.entities = [item, special, owner, note]
        return model
    }

    /// Inserts one object of `entity` with these values and saves; returns its ID.
    @discardableResult
    static func insert(_ entity: String, _ values: [String: Any], owner: NSManagedObjectID? = nil,
                       in context: NSManagedObjectContext) throws -> NSManagedObjectID {
        try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            if let owner { object.setValue(try context.existingObject(with: owner), forKey: "owner") }
            try context.save()
            return object.objectID
        }
    }

    /// The delete changes of the last transaction, by deleted object.
    static func lastDeletes(in context: NSManagedObjectContext) throws -> [NSManagedObjectID: NSPersistentHistoryChange] {
        let transaction = try #require(HistoryTests.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context).last)
        let deletes = (transaction.changes ?? []).filter { $0.changeType == .delete }
        return Dictionary(deletes.map { ($0.changedObjectID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A tombstone in comparable form: each value's description by key.
    static func described(_ tombstone: [AnyHashable: Any]?) -> [String: String]? {
        tombstone.map { Dictionary(uniqueKeysWithValues: $0.map { ("\($0.key)", "\($0.value)") }) }
    }

    @Test("A batch delete by predicate records each deleted row's preserved attributes (and only those) in its tombstone")
    func batchDeleteByPredicateKeepsTombstones() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(Self.tombstoneModel(), url: url)
        let codes = (0..<3).map { _ in UUID() }
        let ids = try codes.enumerated().map { index, code in
            try Self.insert("Item", ["name": "item \(index)", "count": Int64(index), "code": code, "label": "label \(index)"], in: context)
        }
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        fetch.predicate = NSPredicate(format: "count >= 1")
        try Self.run(NSBatchDeleteRequest(fetchRequest: fetch), in: context)

        let deletes = try Self.lastDeletes(in: context)
        #expect(Set(deletes.keys) == [ids[1], ids[2]])
        for index in 1...2 {
            let tombstone = try #require(deletes[ids[index]]?.tombstone)
            #expect(Set(tombstone.keys.map { "\($0)" }) == ["code", "label"])  // not name or count
            #expect(tombstone["code"] as? UUID == codes[index])
            #expect(tombstone["label"] as? String == "label \(index)")
        }
    }

    @Test("A batch delete by object IDs records tombstones; a nil preserved value is left out, as a save leaves it out")
    func batchDeleteByObjectIDsKeepsTombstones() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(Self.tombstoneModel(), url: url)
        let code = UUID(), unlabelledCode = UUID()
        let labelled = try Self.insert("Item", ["name": "kept label", "code": code, "label": "first"], in: context)
        let unlabelled = try Self.insert("Item", ["name": "no label", "code": unlabelledCode], in: context)
        let survivor = try Self.insert("Item", ["name": "stays", "code": UUID(), "label": "stays"], in: context)
        try Self.run(NSBatchDeleteRequest(objectIDs: [labelled, unlabelled]), in: context)

        let deletes = try Self.lastDeletes(in: context)
        #expect(Set(deletes.keys) == [labelled, unlabelled])
        #expect(deletes[survivor] == nil)
        #expect(Self.described(deletes[labelled]?.tombstone) == ["code": code.uuidString, "label": "first"])
        #expect(Self.described(deletes[unlabelled]?.tombstone) == ["code": unlabelledCode.uuidString])
    }

    @Test("Rows a Cascade rule deletes carry their own entity's preserved values")
    func cascadedRowsKeepTheirOwnTombstones() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(Self.tombstoneModel(), url: url)
        let owner = try Self.insert("Owner", ["name": "owner", "badge": "B-1"], in: context)
        let code0 = UUID(), code1 = UUID()
        let item0 = try Self.insert("Item", ["name": "a", "code": code0, "label": "a"], owner: owner, in: context)
        let item1 = try Self.insert("Item", ["name": "b", "code": code1, "label": "b"], owner: owner, in: context)
        try Self.run(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Owner")), in: context)

        let deletes = try Self.lastDeletes(in: context)
        #expect(Set(deletes.keys) == [owner, item0, item1])
        #expect(Self.described(deletes[owner]?.tombstone) == ["badge": "B-1"])
        #expect(Self.described(deletes[item0]?.tombstone) == ["code": code0.uuidString, "label": "a"])
        #expect(Self.described(deletes[item1]?.tombstone) == ["code": code1.uuidString, "label": "b"])
    }

    @Test("A row's concrete entity decides its tombstone: a subentity's row keeps its inherited and its own preserved attributes")
    func subentityRowsKeepTheirEntitysTombstone() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(Self.tombstoneModel(), url: url)
        let plainCode = UUID(), specialCode = UUID()
        let stamp = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        let plain = try Self.insert("Item", ["name": "plain", "code": plainCode, "label": "plain"], in: context)
        let special = try Self.insert("Special", ["name": "special", "code": specialCode, "label": "special", "grade": Int64(7),
                                                  "flag": true, "stamp": stamp], in: context)
        try Self.run(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item")), in: context)

        let deletes = try Self.lastDeletes(in: context)
        #expect(Self.described(deletes[plain]?.tombstone) == ["code": plainCode.uuidString, "label": "plain"])
        let tombstone = try #require(deletes[special]?.tombstone)
        #expect(Set(tombstone.keys.map { "\($0)" }) == ["code", "label", "grade", "flag", "stamp"])
        #expect(tombstone["code"] as? UUID == specialCode)
        #expect((tombstone["grade"] as? NSNumber)?.int64Value == 7)
        #expect((tombstone["flag"] as? NSNumber)?.boolValue == true)
        #expect(tombstone["stamp"] as? Date == stamp)
    }

    @Test("An entity without preserved attributes gives batch-deleted rows no tombstone, as a save's delete gives none")
    func entityWithoutPreservedAttributesHasNoTombstone() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(Self.tombstoneModel(), url: url)
        let saved = try Self.insert("Note", ["text": "deleted by a save"], in: context)
        let batched = try Self.insert("Note", ["text": "deleted by a batch"], in: context)
        try context.performAndWait {
            context.delete(try context.existingObject(with: saved))
            try context.save()
        }
        let saveDeletes = try Self.lastDeletes(in: context)
        #expect(saveDeletes.count == 1 && saveDeletes[saved]?.tombstone == nil)
        try Self.run(NSBatchDeleteRequest(objectIDs: [batched]), in: context)
        let batchDeletes = try Self.lastDeletes(in: context)
        #expect(batchDeletes.count == 1)
        #expect(batchDeletes[batched] != nil && batchDeletes[batched]?.tombstone == nil)
    }

    @Test("A save's delete and a batch delete of rows with equal values record equal tombstones")
    func saveAndBatchDeletesRecordEqualTombstones() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(Self.tombstoneModel(), url: url)
        let code = UUID()
        let values: [String: Any] = ["name": "twin", "count": Int64(3), "code": code, "grade": Int64(-2), "flag": false,
                                     "stamp": Date(timeIntervalSinceReferenceDate: 12.25)]  // label left nil
        let loaded = try Self.insert("Special", values, in: context)
        let faulted = try Self.insert("Special", values, in: context)
        let batched = try Self.insert("Special", values, in: context)
        // The save reads the values the context holds for one object, the row for a fault.
        try context.performAndWait {
            context.delete(try context.existingObject(with: loaded))
            try context.save()
        }
        let fromLoaded = try Self.lastDeletes(in: context)[loaded]?.tombstone
        try context.performAndWait {
            context.reset()
            context.delete(context.object(with: faulted))
            try context.save()
        }
        let fromFault = try Self.lastDeletes(in: context)[faulted]?.tombstone
        try Self.run(NSBatchDeleteRequest(objectIDs: [batched]), in: context)
        let fromBatch = try Self.lastDeletes(in: context)[batched]?.tombstone

        let expected = ["code": code.uuidString, "grade": "-2", "flag": "0", "stamp": "\(Date(timeIntervalSinceReferenceDate: 12.25))"]
        #expect(Self.described(fromLoaded) == expected)
        #expect(Self.described(fromFault) == expected)
        #expect(Self.described(fromBatch) == expected)
        // The same bytes in ZCOLUMNS, decoded: one encoding for both paths.
        let columns = try HistoryTests.rows(url, "SELECT ZCOLUMNS FROM ACHANGE WHERE ZCHANGETYPE = 2 ORDER BY Z_PK")
            .map { SQLiteHistoryColumns.decode($0[0]).tombstone.map { $0.mapValues { "\($0)" } } }
        #expect(columns.count == 3 && columns.allSatisfy { $0 != nil && $0 == columns[0] })
    }

    @Test("A batch delete on a store without history deletes its rows and writes no history tables")
    func untrackedStoreBatchDelete() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(Self.tombstoneModel(), url: url, tracking: false)
        let owner = try Self.insert("Owner", ["name": "owner", "badge": "B-2"], in: context)
        try Self.insert("Item", ["name": "a", "code": UUID(), "label": "a"], owner: owner, in: context)
        try Self.insert("Item", ["name": "b", "code": UUID(), "label": "b"], in: context)
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Owner"))
        request.resultType = .resultTypeCount
        let result = try context.performAndWait { try context.execute(request) as? NSBatchDeleteResult }
        #expect(result?.result as? Int == 2)  // the owner and its cascaded item
        #expect(try HistoryTests.count(url, "ZOWNER") == 0)
        #expect(try HistoryTests.count(url, "ZITEM") == 1)
        #expect(try HistoryTests.historySchema(url).isEmpty)
    }
}
