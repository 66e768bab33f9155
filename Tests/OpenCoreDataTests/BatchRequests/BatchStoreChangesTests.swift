import Foundation
import Testing
@testable import OpenCoreData

// MARK: - The store seam and the SQL

extension BatchRequestTests {
    @Test("The store reports every row a batch delete changed in one value (the history hook's input): requested and cascaded deletes, nullified inverses as side-effect updates naming the relationship, derived recomputations")
    func storeReportsChangedRows() throws {
        let context = try Self.open(Self.model(itemsRule: .nullifyDeleteRule, tagsRule: .cascadeDeleteRule))
        let graph = try Self.seedGraph(context)
        let store = context.persistentStoreCoordinator!.persistentStores[0]
        let model = context.persistentStoreCoordinator!.managedObjectModel
        let item = model.entitiesByName["Item"]!
        let delete = StoreBatchDelete(entity: item, includesSubentities: true, predicate: NSPredicate(format: "name == 'k1'"), objectIDs: nil)
        let changes = try store.backend.executeBatch(.delete(delete), store: store).changes
        let k1 = context.performAndWait { graph.items[2].objectID }
        let tag = context.performAndWait { graph.tag.objectID }
        let keep = context.performAndWait { graph.categories[1].objectID }
        // k1 and, by Cascade, its tag are deleted; both count as what the request did.
        #expect(Set(changes.objectIDs(.delete, store: store, includingSideEffects: false)) == [k1, tag])
        // The category lost an item: its derived itemCount was recomputed (a side effect).
        let updates = changes.groups.filter { $0.kind == .update }
        #expect(updates.allSatisfy { $0.isSideEffect })
        #expect(updates.contains { $0.entity.name == "Category" && $0.primaryKeys == [keep.primaryKey] && $0.updatedProperties == ["itemCount"] })
        #expect(changes.count(of: .update, includingSideEffects: false) == 0)

        // Deleting the category nullifies its surviving items' inverse.
        let category = StoreBatchDelete(entity: model.entitiesByName["Category"]!, includesSubentities: true,
                                        predicate: NSPredicate(format: "title == 'keep'"), objectIDs: nil)
        let nullified = try store.backend.executeBatch(.delete(category), store: store).changes
        let k2 = context.performAndWait { graph.items[3].objectID }
        #expect(nullified.groups.contains { $0.kind == .update && $0.isSideEffect && $0.updatedProperties == ["category"] && $0.primaryKeys == [k2.primaryKey] })
        #expect(nullified.objectIDs(.delete, store: store) == [keep])
    }

    @Test("coordinator.execute(_:with:) runs a batch request in the given context, as context.execute(_:) does")
    func coordinatorExecutesBatchRequests() throws {
        let context = try Self.open()
        let coordinator = context.persistentStoreCoordinator!
        let request = NSBatchInsertRequest(entityName: "Tag", objects: [["label": "x"], ["label": "y"]])
        request.resultType = .count
        let result = try context.performAndWait { try coordinator.execute(request, with: context) } as? NSBatchInsertResult
        #expect(result?.result as? Int == 2)
    }

    @Test("Golden SQL: the batch upsert and the set-based UPDATE/DELETE are spelled once, with bound parameters")
    func goldenBatchSQL() {
        let dialect = SQLiteDialect()
        let upsert = SQLUpsert(into: "ZPRODUCT", columns: ["Z_PK", "Z_ENT", "Z_OPT", "ZSKU", "ZTITLE"], conflictKeys: [["ZSKU"]],
                               update: ["ZTITLE"], versionColumn: "Z_OPT", returning: ["Z_PK", "Z_ENT"])
        #expect(upsert.sql(in: dialect) == "INSERT INTO ZPRODUCT (Z_PK, Z_ENT, Z_OPT, ZSKU, ZTITLE) VALUES (?, ?, ?, ?, ?) ON CONFLICT (ZSKU) DO UPDATE SET ZTITLE = excluded.ZTITLE, Z_OPT = ZPRODUCT.Z_OPT + 1 RETURNING Z_PK, Z_ENT")
        // A count-only batch insert limits the update to rows stored before it (one condition per ON CONFLICT clause).
        var limited = SQLUpsert(into: "ZBADGE", columns: ["Z_PK", "Z_ENT", "Z_OPT", "ZCODE", "ZSERIAL"], conflictKeys: [["ZCODE"], ["ZSERIAL"]],
                                update: [], versionColumn: "Z_OPT", returning: [])
        limited.updateCondition = "ZBADGE.Z_PK < 3"
        #expect(limited.sql(in: dialect) == "INSERT INTO ZBADGE (Z_PK, Z_ENT, Z_OPT, ZCODE, ZSERIAL) VALUES (?, ?, ?, ?, ?) ON CONFLICT (ZCODE) DO UPDATE SET Z_OPT = ZBADGE.Z_OPT + 1 WHERE ZBADGE.Z_PK < 3 ON CONFLICT (ZSERIAL) DO UPDATE SET Z_OPT = ZBADGE.Z_OPT + 1 WHERE ZBADGE.Z_PK < 3")
        let condition = dialect.column("Z_PK", of: "t0") + " IN " + dialect.parameterList([.integer(4), .integer(5)])
        let update = SQLBatchWrite(.update([("ZCOUNT", dialect.column("ZCOUNT", of: "t0") + " + " + dialect.parameter(.integer(1)))]),
                                   table: "ZITEM", alias: "t0", where: condition, returning: ["Z_PK", "Z_ENT"]).render(in: dialect)
        #expect(update.text == "UPDATE ZITEM AS t0 SET ZCOUNT = t0.ZCOUNT + ? WHERE t0.Z_PK IN (?, ?) RETURNING Z_PK, Z_ENT")
        #expect(update.arguments == [.integer(1), .integer(4), .integer(5)])
        let delete = SQLBatchWrite(.delete, table: "ZITEM", alias: "t0", where: condition, returning: []).render(in: dialect)
        #expect(delete.text == "DELETE FROM ZITEM AS t0 WHERE t0.Z_PK IN (?, ?)")
    }
}
