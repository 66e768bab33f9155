import Foundation
import GRDB
import Testing
@testable import OpenCoreData

// MARK: - NSBatchUpdateRequest

extension BatchRequestTests {
    static func seedItems(_ context: NSManagedObjectContext) throws -> [NSManagedObject] {
        try save(context, "Item", [["name": "a", "count": 1, "price": 2.0], ["name": "b", "count": 2, "price": 4.0], ["name": "c", "count": 3, "price": 8.0]])
    }

    @Test("Batch update: constants and expressions (count + 1, another attribute) are evaluated in SQL for the predicate's rows; Z_OPT is incremented; result types")
    func updateSetsValuesInSQL() throws {
        let context = try Self.open()
        let items = try Self.seedItems(context)
        let ids = context.performAndWait { items.map(\.objectID) }
        let request = NSBatchUpdateRequest(entityName: "Item")
        request.predicate = NSPredicate(format: "count >= %d", 2)
        request.propertiesToUpdate = ["count": NSExpression(format: "count + 1"), "note": NSExpression(forKeyPath: "name"),
                                      "flag": true, "price": NSExpression(format: "price * 2")]
        request.resultType = .updatedObjectIDsResultType
        let result = try Self.execute(context, request, as: NSBatchUpdateResult.self)
        #expect(Set(try #require(result.result as? [NSManagedObjectID])) == Set(ids[1...]))
        let rows = try Self.rows(context, "SELECT ZNAME, ZCOUNT, ZNOTE, ZFLAG, ZPRICE, Z_OPT FROM ZITEM ORDER BY ZNAME")
        #expect(rows.map { $0["ZCOUNT"] as Int64 } == [1, 3, 4])
        #expect(rows.map { $0["ZNOTE"] as String? } == [nil, "b", "c"])
        #expect(rows.map { $0["ZFLAG"] as Int64? } == [0, 1, 1])
        #expect(rows.map { $0["ZPRICE"] as Double? } == [2, 8, 16])
        #expect(rows.map { $0["Z_OPT"] as Int64 } == [1, 2, 2])

        let count = NSBatchUpdateRequest(entityName: "Item")
        count.propertiesToUpdate = ["note": NSNull()]
        count.resultType = .updatedObjectsCountResultType
        #expect(try Self.execute(context, count, as: NSBatchUpdateResult.self).result as? Int == 3)
        let status = NSBatchUpdateRequest(entityName: "Item")
        status.predicate = NSPredicate(format: "name == 'zzz'")
        status.propertiesToUpdate = ["count": 0]
        #expect(try Self.execute(context, status, as: NSBatchUpdateResult.self).result as? Bool == true)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM WHERE ZNOTE IS NOT NULL") == 0)
    }

    @Test("Batch update: a predicate that cannot be lowered to SQL, a relationship, an unknown key or a value of the wrong type is an error; nothing is written")
    func updateRejectsWhatSQLCannotDo() throws {
        let context = try Self.open()
        _ = try Self.seedItems(context)
        func attempt(_ configure: (NSBatchUpdateRequest) -> Void) -> NSError? {
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.propertiesToUpdate = ["count": 99]
            configure(request)
            return Self.error { _ = try context.performAndWait { try context.execute(request) } }
        }
        let transient = attempt { $0.predicate = NSPredicate(format: "scratch == 'x'") }
        #expect(transient?.code == NSCoreDataError)
        #expect(transient?.localizedDescription.contains("SQL") == true)
        #expect(attempt { $0.propertiesToUpdate = ["category": NSNull()] }?.userInfo[NSValidationKeyErrorKey] as? String == "category")
        #expect(attempt { $0.propertiesToUpdate = ["colour": "red"] }?.code == NSCoreDataError)
        #expect(attempt { $0.propertiesToUpdate = ["count": "many"] }?.code == NSManagedObjectValidationError)
        #expect(attempt { $0.propertiesToUpdate = ["count": NSExpression(forKeyPath: "name")] }?.code == NSCoreDataError)
        #expect(attempt { $0.propertiesToUpdate = ["upperName": "X"] }?.code == NSCoreDataError)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM WHERE ZCOUNT = 99") == 0)
        #expect(try Self.integer(context, "SELECT MAX(Z_OPT) FROM ZITEM") == 1)
    }

    @Test("Batch update: a predicate through a to-one relationship (a join) and one on the row itself update the same rows whatever the result type; counts and IDs agree")
    func updateThroughRelationshipAndResultTypesAgree() throws {
        let context = try Self.open()
        let items = try Self.seedItems(context)
        try context.performAndWait {
            let category = NSEntityDescription.insertNewObject(forEntityName: "Category", into: context)
            category.setValue("tools", forKey: "title")
            items[0].setValue(category, forKey: "category")
            items[2].setValue(category, forKey: "category")
            try context.save()
        }
        let ids = context.performAndWait { [items[0].objectID, items[2].objectID] }
        for resultType in [NSBatchUpdateRequestResultType.updatedObjectsCountResultType, .updatedObjectIDsResultType, .statusOnlyResultType] {
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.predicate = NSPredicate(format: "category.title == %@", "tools")
            request.propertiesToUpdate = ["count": NSExpression(format: "count + 10")]
            request.resultType = resultType
            let result = try Self.execute(context, request, as: NSBatchUpdateResult.self).result
            switch resultType {
            case .updatedObjectsCountResultType: #expect(result as? Int == 2)
            case .updatedObjectIDsResultType: #expect(Set(result as? [NSManagedObjectID] ?? []) == Set(ids))
            default: #expect(result as? Bool == true)
            }
        }
        #expect(try Self.rows(context, "SELECT ZCOUNT FROM ZITEM ORDER BY ZNAME").map { $0["ZCOUNT"] as Int64 } == [31, 2, 33])
        let own = NSBatchUpdateRequest(entityName: "Item")
        own.predicate = NSPredicate(format: "count > 30 AND name != %@", "zzz")
        own.propertiesToUpdate = ["note": "big"]
        own.resultType = .updatedObjectsCountResultType
        #expect(try Self.execute(context, own, as: NSBatchUpdateResult.self).result as? Int == 2)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM WHERE ZNOTE = 'big'") == 2)
    }

    @Test("Batch update with a count result: every cached row of the entity's hierarchy leaves the coordinator's row cache, subentities' rows included")
    func countResultForgetsCachedRowsOfTheHierarchy() throws {
        let context = try M.sqliteContext(M.vehicleModel())
        let cars = try Self.save(context, "Car", [["name": "car"]])
        let sports = try Self.save(context, "SportsCar", [["name": "sports"]])
        let ids = context.performAndWait { [cars[0].objectID, sports[0].objectID] }
        let coordinator = try #require(context.persistentStoreCoordinator)
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait { for id in ids { _ = try reader.existingObject(with: id).value(forKey: "name") } }
        #expect(ids.allSatisfy { coordinator.isRowCached($0) })
        let request = NSBatchUpdateRequest(entityName: "Car")
        request.propertiesToUpdate = ["name": "renamed"]
        request.resultType = .updatedObjectsCountResultType
        #expect(try Self.execute(context, request, as: NSBatchUpdateResult.self).result as? Int == 2)
        #expect(ids.allSatisfy { !coordinator.isRowCached($0) })
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        #expect(try fresh.performAndWait { try ids.map { try fresh.existingObject(with: $0).value(forKey: "name") as? String } } == ["renamed", "renamed"])
    }

    @Test("Batch update: includesSubentities = false leaves the subentities' rows alone; true (the default) updates them")
    func updateSubentities() throws {
        let context = try M.sqliteContext(M.vehicleModel())
        try Self.save(context, "Car", [["name": "car"]])
        try Self.save(context, "SportsCar", [["name": "sports"]])
        let onlyCars = NSBatchUpdateRequest(entityName: "Car")
        onlyCars.includesSubentities = false
        onlyCars.propertiesToUpdate = ["doors": 5]
        onlyCars.resultType = .updatedObjectsCountResultType
        #expect(try Self.execute(context, onlyCars, as: NSBatchUpdateResult.self).result as? Int == 1)
        let all = NSBatchUpdateRequest(entityName: "Vehicle")
        all.propertiesToUpdate = ["name": NSExpression(format: "uppercase:(name)")]
        all.resultType = .updatedObjectsCountResultType
        #expect(try Self.execute(context, all, as: NSBatchUpdateResult.self).result as? Int == 2)
        let rows = try Self.rows(context, "SELECT ZNAME, ZDOORS FROM ZVEHICLE ORDER BY Z_PK")
        #expect(rows.map { $0["ZNAME"] as String? } == ["CAR", "SPORTS"])
        #expect(rows.map { $0["ZDOORS"] as Int64? } == [5, nil])
    }

    @Test("Apple: registered objects keep their values after a batch update until refreshed; refresh(_:mergeChanges: false) and another context's fetch show the new values (no stale row cache); saving the stale object is an optimistic-locking conflict")
    func updateLeavesNoStaleRowCache() throws {
        let context = try Self.open()
        let items = try Self.seedItems(context)
        let item = items[0]
        let id = context.performAndWait { item.objectID }
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let otherItem = try other.performAndWait { try other.existingObject(with: id) }
        #expect(other.performAndWait { otherItem.value(forKey: "count") as? Int } == 1)
        #expect(context.persistentStoreCoordinator!.isRowCached(id))

        let request = NSBatchUpdateRequest(entityName: "Item")
        request.propertiesToUpdate = ["count": 42]
        _ = try Self.execute(context, request, as: NSBatchUpdateResult.self)
        #expect(!context.persistentStoreCoordinator!.isRowCached(id))
        #expect(context.performAndWait { item.value(forKey: "count") as? Int } == 1)
        context.performAndWait { context.refresh(item, mergeChanges: false) }
        #expect(context.performAndWait { item.value(forKey: "count") as? Int } == 42)

        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
        #expect(try fresh.performAndWait { try fresh.existingObject(with: id).value(forKey: "count") as? Int } == 42)

        // `other` still holds version 1 of the row: its change conflicts with the batch update.
        let conflict = Self.error {
            try other.performAndWait {
                otherItem.setValue("changed", forKey: "note")
                try other.save()
            }
        }
        #expect(conflict?.code == NSManagedObjectMergeError)
    }
}

extension BatchRequestTests {
    @Test("Batch update of an attribute that allows external storage: the old files are removed after the commit, the new value reads back, and an expression over the row is refused")
    func updateExternalData() throws {
        let context = try Self.open()
        let big = Data(repeating: 3, count: 4000)
        try Self.save(context, "Item", [["name": "a", "payload": big], ["name": "b", "payload": big]])
        let folder = Self.url(context).deletingLastPathComponent().appendingPathComponent(".Store_SUPPORT/_EXTERNAL_DATA")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
        let replacement = Data(repeating: 4, count: 5000)
        let request = NSBatchUpdateRequest(entityName: "Item")
        request.propertiesToUpdate = ["payload": replacement]
        _ = try Self.execute(context, request, as: NSBatchUpdateResult.self)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        let fresh = try Self.open(url: Self.url(context))
        #expect(try Self.fetch(fresh, "Item").map { item in fresh.performAndWait { item.value(forKey: "payload") as? Data } } == [replacement, replacement])
        let copy = NSBatchUpdateRequest(entityName: "Item")
        copy.propertiesToUpdate = ["payload": NSExpression(forKeyPath: "payload")]
        #expect(Self.error { _ = try context.performAndWait { try context.execute(copy) } }?.userInfo[NSValidationKeyErrorKey] as? String == "payload")
    }
}

extension BatchRequestTests {
    @Test("Batch update: a constant NSExpression is a value like a constant, for transformable attributes too")
    func updateWithConstantExpression() throws {
        let model = Self.model()
        let transformable = M.attribute("extra", .transformableAttributeType)
        model.entitiesByName["Tag"]!.properties += [transformable]
        let context = try Self.open(model)
        try Self.save(context, "Tag", [["label": "a"]])
        let request = NSBatchUpdateRequest(entityName: "Tag")
        request.propertiesToUpdate = ["label": NSExpression(forConstantValue: "constant"), "extra": NSExpression(forConstantValue: ["k": 1])]
        _ = try Self.execute(context, request, as: NSBatchUpdateResult.self)
        let fresh = try Self.open(model, url: Self.url(context))
        let tag = try #require(try Self.fetch(fresh, "Tag", sortedBy: "label").first)
        #expect(fresh.performAndWait { tag.value(forKey: "label") as? String } == "constant")
        #expect(fresh.performAndWait { (tag.value(forKey: "extra") as? [String: Int]) ?? (tag.value(forKey: "extra") as? NSDictionary).map { ($0 as? [String: Int]) ?? [:] } } == ["k": 1])
    }
}
