import Foundation
import GRDB
import Testing
@testable import OpenCoreData

// MARK: - NSBatchInsertRequest: counting upserted rows

extension BatchRequestTests {
    /// Runs one batch insert of `rows` into Product with `resultType`; returns its result.
    static func upsertProducts(_ context: NSManagedObjectContext, _ rows: [[String: Any]], resultType: NSBatchInsertRequestResultType) throws -> Any? {
        let request = NSBatchInsertRequest(entityName: "Product", objects: rows)
        request.resultType = resultType
        return try execute(context, request, as: NSBatchInsertResult.self).result
    }

    @Test("Batch insert with a uniqueness constraint: .count agrees with .objectIDs; a value new to the store given twice counts once (its insert), a stored row counts per row that updates it, and the last row given wins")
    func upsertCountMatchesObjectIDs() throws {
        let rows: [[String: Any]] = [["sku": "a", "title": "a1"], ["sku": "n", "title": "n1"], ["sku": "n", "title": "n2"],
                                     ["sku": "a", "title": "a2"], ["sku": "m"], ["sku": "n", "title": "n3"]]
        var written: [[Row]] = []
        var results: [Any?] = []
        for resultType in [NSBatchInsertRequestResultType.objectIDs, .count] {
            let context = try Self.open()
            try Self.save(context, "Product", [["sku": "a", "title": "old"], ["sku": "z"]])
            results.append(try Self.upsertProducts(context, rows, resultType: resultType))
            written.append(try Self.rows(context, "SELECT Z_PK, Z_OPT, ZSKU, ZTITLE, ZSTOCK FROM ZPRODUCT ORDER BY Z_PK"))
            #expect(try Self.maxKey(context, "Product") == 4)
        }
        let ids = try #require(results[0] as? [NSManagedObjectID])
        // a twice (stored), n and m once each (inserted; n's later rows update the row inserted).
        #expect(ids.count == 4)
        #expect(results[1] as? Int == ids.count)
        #expect(written[0] == written[1])
        #expect(written[1].map { $0["ZSKU"] as String } == ["a", "z", "n", "m"])
        #expect(written[1].map { $0["ZTITLE"] as String? } == ["a2", nil, "n3", nil])
        #expect(written[1].map { $0["Z_OPT"] as Int64 } == [3, 1, 3, 1])
    }

    @Test("Batch insert with two uniqueness constraints and a count result: a row matching a row inserted earlier in the request updates it and is not counted again")
    func upsertCountWithTwoConstraints() throws {
        let badge = M.entity("Badge", [
            M.attribute("code", .stringAttributeType),
            M.attribute("serial", .integer64AttributeType),
            M.attribute("label", .stringAttributeType),
        ])
        badge.uniquenessConstraints = [["code"], ["serial"]]
        let model = NSManagedObjectModel()
        model.entities = [badge]
        let context = try Self.open(model)
        try Self.save(context, "Badge", [["code": "A", "serial": 1, "label": "stored"]])
        let request = NSBatchInsertRequest(entityName: "Badge", objects: [
            ["code": "B", "serial": 2, "label": "new"],
            ["code": "C", "serial": 2, "label": "by serial, new row"],
            ["code": "D", "serial": 1, "label": "by serial, stored row"],
        ])
        request.resultType = .count
        #expect(try Self.execute(context, request, as: NSBatchInsertResult.self).result as? Int == 2)
        let rows = try Self.rows(context, "SELECT Z_PK, Z_OPT, ZCODE, ZSERIAL, ZLABEL FROM ZBADGE ORDER BY Z_PK")
        #expect(rows.map { $0["ZLABEL"] as String? } == ["by serial, stored row", "by serial, new row"])
        #expect(rows.map { $0["ZCODE"] as String? } == ["A", "B"])
        #expect(rows.map { $0["Z_OPT"] as Int64 } == [2, 2])
    }

    @Test("Apple: a batch insert with a count result that updates stored rows leaves no stale row cache; another context's fetch shows the new values")
    func upsertCountForgetsCachedRows() throws {
        let context = try Self.open()
        let stored = try Self.save(context, "Product", [["sku": "a", "title": "old"]])
        let id = context.performAndWait { stored[0].objectID }
        let coordinator = try #require(context.persistentStoreCoordinator)
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait { _ = try reader.existingObject(with: id).value(forKey: "title") }
        #expect(coordinator.isRowCached(id))
        #expect(try Self.upsertProducts(context, [["sku": "a", "title": "new"], ["sku": "b"]], resultType: .count) as? Int == 2)
        #expect(!coordinator.isRowCached(id))
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        #expect(try fresh.performAndWait { try fresh.existingObject(with: id).value(forKey: "title") as? String } == "new")
    }

    @Test("Batch insert with a dictionaryHandler reuses one row buffer: keys a row leaves out take their defaults again, not the previous row's values")
    func handlerRowsStartFromDefaults() throws {
        let context = try Self.open()
        var calls = 0
        let request = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { row in
            calls += 1
            guard calls <= 3 else { return true }
            row["name"] = "row \(calls)"
            if calls == 1 {
                row["count"] = 9
                row["note"] = "only the first"
                row["price"] = 4.5
            }
            return false
        })
        request.resultType = .count
        #expect(try Self.execute(context, request, as: NSBatchInsertResult.self).result as? Int == 3)
        let rows = try Self.rows(context, "SELECT ZNAME, ZCOUNT, ZNOTE, ZPRICE FROM ZITEM ORDER BY Z_PK")
        #expect(rows.map { $0["ZNAME"] as String? } == ["row 1", "row 2", "row 3"])
        #expect(rows.map { $0["ZCOUNT"] as Int64? } == [9, 0, 0])
        #expect(rows.map { $0["ZNOTE"] as String? } == ["only the first", nil, nil])
        #expect(rows.map { $0["ZPRICE"] as Double? } == [4.5, 1.5, 1.5])
    }
}
