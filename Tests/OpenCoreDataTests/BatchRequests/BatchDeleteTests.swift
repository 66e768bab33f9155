import Foundation
import GRDB
import Testing
@testable import OpenCoreData

// MARK: - NSBatchDeleteRequest

extension BatchRequestTests {
    /// Two categories ("keep", "drop") with two items each; items 0 and 2 tagged "t".
    @discardableResult
    static func seedGraph(_ context: NSManagedObjectContext) throws -> (categories: [NSManagedObject], items: [NSManagedObject], tag: NSManagedObject) {
        try context.performAndWait {
            let categories = ["drop", "keep"].map { title -> NSManagedObject in
                let category = NSEntityDescription.insertNewObject(forEntityName: "Category", into: context)
                category.setValue(title, forKey: "title")
                return category
            }
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("t", forKey: "label")
            var items: [NSManagedObject] = []
            for (index, name) in ["d1", "d2", "k1", "k2"].enumerated() {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(name, forKey: "name")
                item.setValue(categories[index / 2], forKey: "category")
                if index % 2 == 0 { item.mutableSetValue(forKey: "tags").add(tag) }
                items.append(item)
            }
            try context.save()
            return (categories, items, tag)
        }
    }

    static func deleteCategory(_ context: NSManagedObjectContext, _ title: String, resultType: NSBatchDeleteRequestResultType = .resultTypeObjectIDs) throws -> NSBatchDeleteResult {
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Category")
        fetch.predicate = NSPredicate(format: "title == %@", title)
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = resultType
        return try execute(context, request)
    }

    @Test("Batch delete by fetch request deletes the predicate's rows; .resultTypeCount and .resultTypeStatusOnly; join-table rows of deleted rows go")
    func deleteByFetchRequest() throws {
        let context = try Self.open()
        try Self.seedGraph(context)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        fetch.predicate = NSPredicate(format: "name BEGINSWITH 'd'")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeCount
        #expect(try Self.execute(context, request, as: NSBatchDeleteResult.self).result as? Int == 2)
        #expect(try Self.rows(context, "SELECT ZNAME FROM ZITEM ORDER BY ZNAME").map { $0[0] as String } == ["k1", "k2"])
        let join = try #require(try Self.rows(context, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\' AND name LIKE '%TAGS'").first?[0] as String?)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM \(join)") == 1)
        // The derived @count of the category the items left was recomputed by its trigger.
        #expect(try Self.integer(context, "SELECT ZITEMCOUNT FROM ZCATEGORY WHERE ZTITLE = 'drop'") == 0)
        let none = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Tag"))
        #expect(try Self.execute(context, none, as: NSBatchDeleteResult.self).result as? Bool == true)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM \(join)") == 0)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM") == 2)
    }

    @Test("Batch delete by object IDs deletes exactly those rows; IDs of several entities are an error")
    func deleteByObjectIDs() throws {
        let context = try Self.open()
        let graph = try Self.seedGraph(context)
        let ids = context.performAndWait { [graph.items[0].objectID, graph.items[3].objectID] }
        let request = NSBatchDeleteRequest(objectIDs: ids)
        request.resultType = .resultTypeObjectIDs
        #expect(Set(try #require(try Self.execute(context, request, as: NSBatchDeleteResult.self).result as? [NSManagedObjectID])) == Set(ids))
        #expect(try Self.rows(context, "SELECT ZNAME FROM ZITEM ORDER BY ZNAME").map { $0[0] as String } == ["d2", "k1"])
        let mixed = NSBatchDeleteRequest(objectIDs: context.performAndWait { [graph.items[1].objectID, graph.tag.objectID] })
        #expect(Self.error { _ = try context.performAndWait { try context.execute(mixed) } }?.code == NSCoreDataError)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM") == 2)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZTAG") == 1)
    }

    @Test("Batch delete applies Cascade in SQL: destinations are deleted too and included in the result's object IDs (our documented choice)")
    func deleteCascades() throws {
        let context = try Self.open(Self.model(itemsRule: .cascadeDeleteRule))
        let graph = try Self.seedGraph(context)
        let result = try Self.deleteCategory(context, "drop")
        let expected = context.performAndWait { Set([graph.categories[0].objectID, graph.items[0].objectID, graph.items[1].objectID]) }
        #expect(Set(try #require(result.result as? [NSManagedObjectID])) == expected)
        #expect(try Self.rows(context, "SELECT ZNAME FROM ZITEM ORDER BY ZNAME").map { $0[0] as String } == ["k1", "k2"])
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZCATEGORY") == 1)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZTAG") == 1)
        let count = try Self.deleteCategory(context, "keep", resultType: .resultTypeCount)
        #expect(count.result as? Int == 3)
    }

    @Test("Batch delete applies Nullify in SQL: surviving destinations lose the foreign key and their Z_FOK_ position, with Z_OPT incremented")
    func deleteNullifies() throws {
        let context = try Self.open()
        try Self.seedGraph(context)
        _ = try Self.deleteCategory(context, "drop")
        let rows = try Self.rows(context, "SELECT ZNAME, ZCATEGORY, Z_FOK_CATEGORY, Z_OPT FROM ZITEM ORDER BY ZNAME")
        #expect(rows.map { $0["ZNAME"] as String } == ["d1", "d2", "k1", "k2"])
        #expect(rows[0]["ZCATEGORY"] as Int64? == nil && rows[1]["ZCATEGORY"] as Int64? == nil)
        #expect(rows[0]["Z_FOK_CATEGORY"] as Int64? == nil)
        #expect(rows[2]["ZCATEGORY"] as Int64? != nil && rows[2]["Z_FOK_CATEGORY"] as Int64? != nil)
        #expect(rows.map { $0["Z_OPT"] as Int64 } == [2, 2, 1, 1])
    }

    @Test("Batch delete respects Deny with Apple's NSValidationRelationshipDeniedDeleteError (1600) naming the relationship; nothing is deleted")
    func deleteDenied() throws {
        let context = try Self.open(Self.model(itemsRule: .denyDeleteRule))
        try Self.seedGraph(context)
        let error = Self.error { _ = try Self.deleteCategory(context, "drop") }
        #expect(error?.code == NSValidationRelationshipDeniedDeleteError)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "items")
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZCATEGORY") == 2)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM WHERE ZCATEGORY IS NOT NULL") == 4)
        // Deleting the destinations with the source in one request is allowed.
        let emptied = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))
        _ = try Self.execute(context, emptied, as: NSBatchDeleteResult.self)
        _ = try Self.deleteCategory(context, "drop")
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZCATEGORY") == 1)
    }

    @Test("Batch delete fails when a Nullify would leave a mandatory to-one empty (NSValidationMissingMandatoryPropertyError); nothing is deleted")
    func deleteMandatoryInverse() throws {
        let context = try Self.open(Self.model(mandatoryCategory: true))
        try Self.seedGraph(context)
        let error = Self.error { _ = try Self.deleteCategory(context, "drop") }
        #expect(error?.code == NSValidationMissingMandatoryPropertyError)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "category")
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZCATEGORY") == 2)
        #expect(try Self.integer(context, "SELECT MAX(Z_OPT) FROM ZITEM") == 1)
    }

    @Test("Batch delete of many-to-many destinations with Cascade from the other side removes join rows and cascaded rows")
    func deleteManyToManyCascade() throws {
        let context = try Self.open(Self.model(tagsRule: .cascadeDeleteRule))
        try Self.seedGraph(context)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        fetch.predicate = NSPredicate(format: "name == 'd1'")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeCount
        // d1 cascades to tag t, whose join rows (to d1 and k1) go with it.
        #expect(try Self.execute(context, request, as: NSBatchDeleteResult.self).result as? Int == 2)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZTAG") == 0)
        let join = try #require(try Self.rows(context, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%TAGS'").first?[0] as String?)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM \(join)") == 0)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZITEM") == 3)
    }

    @Test("Batch delete: includesSubentities = false keeps the subentities' rows")
    func deleteSubentities() throws {
        let context = try M.sqliteContext(M.vehicleModel())
        try Self.save(context, "Car", [["name": "car"]])
        try Self.save(context, "SportsCar", [["name": "sports"]])
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Car")
        fetch.includesSubentities = false
        _ = try Self.execute(context, NSBatchDeleteRequest(fetchRequest: fetch), as: NSBatchDeleteResult.self)
        #expect(try Self.rows(context, "SELECT ZNAME FROM ZVEHICLE").map { $0[0] as String } == ["sports"])
        _ = try Self.execute(context, NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Vehicle")), as: NSBatchDeleteResult.self)
        #expect(try Self.integer(context, "SELECT COUNT(*) FROM ZVEHICLE") == 0)
    }

    @Test("Batch delete removes the external-data files of deleted rows after the commit, and none when it fails")
    func deleteRemovesExternalFiles() throws {
        let context = try Self.open(Self.model(mandatoryCategory: true))
        let big = Data(repeating: 9, count: 4000)
        let graph = try Self.seedGraph(context)
        try context.performAndWait {
            for item in graph.items { item.setValue(big, forKey: "payload") }
            try context.save()
        }
        let folder = Self.url(context).deletingLastPathComponent().appendingPathComponent(".Store_SUPPORT/_EXTERNAL_DATA")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 4)
        #expect(Self.error { _ = try Self.deleteCategory(context, "drop") } != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 4)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        fetch.predicate = NSPredicate(format: "name BEGINSWITH 'k'")
        _ = try Self.execute(context, NSBatchDeleteRequest(fetchRequest: fetch), as: NSBatchDeleteResult.self)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
    }
}
