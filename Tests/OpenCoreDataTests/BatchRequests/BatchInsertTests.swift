import Foundation
import GRDB
import Testing
@testable import OpenCoreData

// MARK: - NSBatchInsertRequest

extension BatchRequestTests {
    @Test("Batch insert writes rows without objects: Z_PK continues Z_MAX (one update), Z_ENT of the entity, Z_OPT 1; .objectIDs returns permanent IDs")
    func insertWritesRows() throws {
        let context = try Self.open()
        let saved = try Self.save(context, "Item", [["name": "saved"]])
        let request = NSBatchInsertRequest(entityName: "Item", objects: [["name": "a"], ["name": "b"], ["name": "c"]])
        request.resultType = .objectIDs
        let result = try Self.execute(context, request, as: NSBatchInsertResult.self)
        let ids = try #require(result.result as? [NSManagedObjectID])
        #expect(result.resultType == .objectIDs)
        #expect(ids.count == 3)
        #expect(ids.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Item" })
        // No managed object was created for the rows.
        #expect(context.performAndWait { context.registeredObjects.map(\.objectID) } == context.performAndWait { saved.map(\.objectID) })
        let rows = try Self.rows(context, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM ZITEM ORDER BY Z_PK")
        #expect(rows.map { $0["Z_PK"] as Int64 } == [1, 2, 3, 4])
        #expect(rows.dropFirst().allSatisfy { ($0["Z_OPT"] as Int64) == 1 })
        let itemNumber = try Self.integer(context, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
        #expect(rows.allSatisfy { ($0["Z_ENT"] as Int64?) == itemNumber })
        #expect(try Self.maxKey(context, "Item") == 4)
        #expect(ids.map { URL(string: $0.uriRepresentation().absoluteString)!.lastPathComponent } == ["p2", "p3", "p4"])
        // A later save takes the next key.
        let later = try Self.save(context, "Item", [["name": "d"]])
        #expect(context.performAndWait { later[0].objectID.uriRepresentation().lastPathComponent } == "p5")
    }

    @Test("Batch insert: keys a row leaves out take the model's defaults; .statusOnly returns true and .count the number of rows")
    func insertDefaultsAndResultTypes() throws {
        let context = try Self.open()
        let status = try Self.execute(context, NSBatchInsertRequest(entityName: "Item", objects: [["name": "a", "count": 5]]), as: NSBatchInsertResult.self)
        #expect(status.result as? NSNumber == true)
        let counted = NSBatchInsertRequest(entityName: "Item", objects: [["name": "b", "flag": true], ["name": "c", "note": NSNull()]])
        counted.resultType = .count
        #expect(try Self.execute(context, counted, as: NSBatchInsertResult.self).result as? Int == 2)
        let items = try Self.fetch(context, "Item")
        try context.performAndWait {
            #expect(items.map { $0.value(forKey: "name") as? String } == ["a", "b", "c"])
            #expect(items.map { $0.value(forKey: "count") as? Int } == [5, 0, 0])
            #expect(items.map { $0.value(forKey: "price") as? Double } == [1.5, 1.5, 1.5])
            #expect(items.map { $0.value(forKey: "flag") as? Bool } == [false, true, false])
            #expect(items[2].value(forKey: "note") == nil)
            // The derived attribute's trigger ran for batch-inserted rows.
            #expect(items.map { $0.value(forKey: "upperName") as? String } == ["A", "B", "C"])
            _ = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
        }
    }

    @Test("Batch insert: an unknown key, a relationship key, a transient key, a value of the wrong type or a missing mandatory attribute fails the whole request, naming row and key; nothing is written")
    func insertRejectsBadRows() throws {
        let context = try Self.open()
        try Self.save(context, "Item", [["name": "kept"]])
        let cases: [(rows: [[String: Any]], code: Int, key: String)] = [
            ([["name": "ok"], ["name": "x", "colour": "red"]], NSCoreDataError, "colour"),
            ([["name": "ok"], ["name": "x", "category": NSNull()]], NSCoreDataError, "category"),
            ([["name": "x", "scratch": "t"]], NSCoreDataError, "scratch"),
            ([["name": "ok"], ["name": "ok2"], ["name": "x", "count": "many"]], NSManagedObjectValidationError, "count"),
            ([["name": "ok"], ["count": 3]], NSValidationMissingMandatoryPropertyError, "name"),
            ([["name": NSNull()]], NSValidationMissingMandatoryPropertyError, "name"),
        ]
        for (rows, code, key) in cases {
            let request = NSBatchInsertRequest(entityName: "Item", objects: rows)
            let error = Self.error { _ = try context.performAndWait { try context.execute(request) } }
            #expect(error?.code == code, "\(rows)")
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == key)
            #expect(error?.userInfo[OCDBatchRowIndexErrorKey] as? Int == rows.count - 1)
            #expect(error?.localizedDescription.contains("Row \(rows.count - 1)") == true)
            #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM") == 1)
            #expect(try Self.maxKey(context, "Item") == 1)
        }
    }

    @Test("Batch insert: dictionaryHandler is called until it returns true, and the dictionary of that last call is not inserted")
    func insertWithDictionaryHandler() throws {
        let context = try Self.open()
        var calls = 0
        let request = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
            calls += 1
            dictionary["name"] = "item \(calls)"
            return calls == 4
        })
        request.resultType = .count
        #expect(try Self.execute(context, request, as: NSBatchInsertResult.self).result as? Int == 3)
        #expect(calls == 4)
        let names = try Self.fetch(context, "Item")
        #expect(context.performAndWait { names.map { $0.value(forKey: "name") as? String } } == ["item 1", "item 2", "item 3"])
    }

    @Test("Batch insert: the dictionary a dictionaryHandler fills is an NSMutableDictionary: it reads back, enumerates, removes and copies its entries, and each row starts empty")
    func dictionaryHandlerDictionaryBehaves() throws {
        let context = try Self.open()
        var calls = 0
        var kept: [NSMutableDictionary] = []
        var seen: [String] = []
        let request = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
            calls += 1
            // Every call starts from an empty dictionary, whatever the previous row set.
            seen.append("\(dictionary.count)")
            if calls == 4 { return true }
            dictionary["name"] = "row \(calls)"
            dictionary["count"] = calls
            dictionary.setObject("scratch", forKey: "note" as NSString)
            dictionary.removeObject(forKey: "note")
            if calls == 2 {
                // A dictionary the handler keeps is not reused for later rows.
                kept.append(dictionary)
                dictionary.addEntries(from: ["price": 9.5])
            }
            seen.append((dictionary.allKeys as? [String] ?? []).sorted().joined(separator: ","))
            seen.append("\(dictionary["name"] as? String ?? "-")/\(dictionary.object(forKey: "count") as? Int ?? -1)")
            let copy = dictionary.copy() as? NSDictionary
            seen.append("\(copy?.count ?? -1)")
            return false
        })
        request.resultType = .count
        #expect(try Self.execute(context, request, as: NSBatchInsertResult.self).result as? Int == 3)
        #expect(seen == ["0", "count,name", "row 1/1", "2",
                         "0", "count,name,price", "row 2/2", "3",
                         "0", "count,name", "row 3/3", "2",
                         "0"])
        #expect(kept.first?["price"] as? Double == 9.5)
        let items = try Self.fetch(context, "Item")
        #expect(context.performAndWait { items.map { "\($0.value(forKey: "name") ?? "")/\($0.value(forKey: "count") ?? "")/\($0.value(forKey: "price") ?? "")/\($0.value(forKey: "note") ?? "nil")" } }
                == ["row 1/1/1.5/nil", "row 2/2/9.5/nil", "row 3/3/1.5/nil"])
    }

    @Test("Batch insert: a dictionaryHandler row with an unknown key, a key that is not a string or a value of the wrong type fails the request naming row and key; nothing is written")
    func dictionaryHandlerRejectsBadRows() throws {
        let context = try Self.open()
        let cases: [(key: AnyHashable, value: Any, code: Int, named: String)] = [
            ("colour", "red", NSCoreDataError, "colour"),
            (42, "x", NSCoreDataError, "42"),
            ("count", "many", NSManagedObjectValidationError, "count"),
            ("category", NSNull(), NSCoreDataError, "category"),
        ]
        for (key, value, code, named) in cases {
            var calls = 0
            let request = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                calls += 1
                if calls == 3 { return true }
                dictionary["name"] = "row \(calls)"
                if calls == 2 { dictionary[key] = value }
                return false
            })
            let error = Self.error { _ = try context.performAndWait { try context.execute(request) } }
            #expect(error?.code == code, "\(key)")
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == named)
            #expect(error?.userInfo[OCDBatchRowIndexErrorKey] as? Int == 1)
            #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM") == 0)
        }
    }

    @Test("Batch insert: managedObjectHandler sets attributes on an object per row; setting a relationship fails the request")
    func insertWithManagedObjectHandler() throws {
        let context = try Self.open()
        let model = context.persistentStoreCoordinator!.managedObjectModel
        var calls = 0
        let request = NSBatchInsertRequest(entity: model.entitiesByName["Item"]!, managedObjectHandler: { object in
            calls += 1
            object.setValue("object \(calls)", forKey: "name")
            object.setValue(calls * 10, forKey: "count")
            return calls == 3
        })
        request.resultType = .objectIDs
        let ids = try #require(try Self.execute(context, request, as: NSBatchInsertResult.self).result as? [NSManagedObjectID])
        #expect(ids.count == 2)
        let items = try Self.fetch(context, "Item")
        #expect(context.performAndWait { items.map { $0.value(forKey: "count") as? Int } } == [10, 20])
        #expect(context.performAndWait { items.map { $0.value(forKey: "price") as? Double } } == [1.5, 1.5])

        let category = NSManagedObject(entity: model.entitiesByName["Category"]!, insertInto: nil)
        // A to-one set to an object of no context is a relationship value: the request fails.
        let relationship = NSBatchInsertRequest(entityName: "Item", managedObjectHandler: { object in
            object.setValue("x", forKey: "name")
            object.setValue(category, forKey: "category")
            return false
        })
        let error = Self.error { _ = try context.performAndWait { try context.execute(relationship) } }
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "category")
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM") == 2)
    }

    @Test("Batch insert with a uniqueness constraint upserts: a conflicting row updates the stored row (same Z_PK, Z_OPT + 1, unmentioned attributes take defaults, as on Apple platforms) and is returned; no key is wasted")
    func insertUpsertsConstrainedRows() throws {
        let context = try Self.open()
        let stored = try Self.save(context, "Product", [["sku": "a", "title": "old", "stock": 3]])
        let storedID = context.performAndWait { stored[0].objectID }
        let request = NSBatchInsertRequest(entityName: "Product", objects: [["sku": "a", "title": "new"], ["sku": "b"], ["sku": "b", "title": "twice"]])
        request.resultType = .objectIDs
        let ids = try #require(try Self.execute(context, request, as: NSBatchInsertResult.self).result as? [NSManagedObjectID])
        #expect(ids.count == 2)
        #expect(ids.contains(storedID))
        let rows = try Self.rows(context, "SELECT Z_PK, Z_OPT, ZSKU, ZTITLE, ZSTOCK FROM ZPRODUCT ORDER BY Z_PK")
        #expect(rows.count == 2)
        #expect(rows[0]["Z_PK"] as Int64 == storedID.primaryKey)
        #expect(rows[0]["ZTITLE"] as String? == "new")
        #expect(rows[0]["ZSTOCK"] as Int64? == 7)
        #expect(rows[0]["Z_OPT"] as Int64 == 2)
        #expect(rows[1]["ZSKU"] as String? == "b")
        #expect(rows[1]["ZTITLE"] as String? == "twice")
        #expect(try Self.maxKey(context, "Product") == 2)
        let count = NSBatchInsertRequest(entityName: "Product", objects: [["sku": "a"], ["sku": "c"]])
        count.resultType = .count
        #expect(try Self.execute(context, count, as: NSBatchInsertResult.self).result as? Int == 2)
    }

    @Test("Batch insert with two uniqueness constraints (one compound): a row conflicting on either updates that stored row, keeps its key and its constrained values, and is returned with the new rows")
    func insertUpsertsOnEitherConstraint() throws {
        let badge = M.entity("Badge", [
            M.attribute("code", .stringAttributeType),
            M.attribute("region", .stringAttributeType),
            M.attribute("serial", .integer64AttributeType),
            M.attribute("label", .stringAttributeType),
        ])
        badge.uniquenessConstraints = [["code", "region"], ["serial"]]
        let model = NSManagedObjectModel()
        model.entities = [badge]
        let context = try Self.open(model)
        let stored = try Self.save(context, "Badge", [["code": "A", "region": "eu", "serial": 1, "label": "first"],
                                                      ["code": "B", "region": "us", "serial": 2, "label": "second"]])
        let storedIDs = context.performAndWait { stored.map(\.objectID) }
        let request = NSBatchInsertRequest(entityName: "Badge", objects: [
            ["code": "A", "region": "eu", "serial": 9, "label": "by code and region"],
            ["code": "C", "region": "eu", "serial": 2, "label": "by serial"],
            ["code": "A", "region": "us", "serial": 3, "label": "new"],
        ])
        request.resultType = .objectIDs
        let ids = try #require(try Self.execute(context, request, as: NSBatchInsertResult.self).result as? [NSManagedObjectID])
        #expect(ids.count == 3)
        #expect(Set(storedIDs).isSubset(of: Set(ids)))
        let rows = try Self.rows(context, "SELECT Z_PK, Z_OPT, ZCODE, ZREGION, ZSERIAL, ZLABEL FROM ZBADGE ORDER BY Z_PK")
        #expect(rows.map { $0["Z_PK"] as Int64 } == [1, 2, 3])
        #expect(rows.map { $0["ZLABEL"] as String? } == ["by code and region", "by serial", "new"])
        // Constrained columns keep the stored row's values; the version moves on.
        #expect(rows.map { $0["ZSERIAL"] as Int64? } == [1, 2, 3])
        #expect(rows.map { $0["ZCODE"] as String? } == ["A", "B", "A"])
        #expect(rows.map { $0["Z_OPT"] as Int64 } == [2, 2, 1])
    }

    @Test("After a batch insert, a context save that duplicates a batch-inserted unique value is caught (NSManagedObjectConstraintMergeError 133021)")
    func saveConflictingWithBatchInsertedRowFails() throws {
        let context = try Self.open()
        _ = try Self.execute(context, NSBatchInsertRequest(entityName: "Product", objects: [["sku": "dup"]]), as: NSBatchInsertResult.self)
        let error = Self.error { try Self.save(context, "Product", [["sku": "dup", "title": "second"]]) }
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZPRODUCT") == 1)
    }

    @Test("Batch insert: a large value of an attribute that allows external storage goes to a file beside the store and reads back whole")
    func insertWritesExternalData() throws {
        let context = try Self.open()
        let big = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        _ = try Self.execute(context, NSBatchInsertRequest(entityName: "Item", objects: [["name": "big", "payload": big], ["name": "small", "payload": Data([1, 2])]]),
                             as: NSBatchInsertResult.self)
        let folder = Self.url(context).deletingLastPathComponent().appendingPathComponent(".Store_SUPPORT/_EXTERNAL_DATA")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
        let items = try Self.fetch(context, "Item")
        #expect(context.performAndWait { items.map { $0.value(forKey: "payload") as? Data } } == [big, Data([1, 2])])

        // A failed request removes the files it wrote.
        let failing = NSBatchInsertRequest(entityName: "Item", objects: [["name": "big2", "payload": big], ["payload": big]])
        #expect(Self.error { _ = try context.performAndWait { try context.execute(failing) } }?.code == NSValidationMissingMandatoryPropertyError)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }
}
