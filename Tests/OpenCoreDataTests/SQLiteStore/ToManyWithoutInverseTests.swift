import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// A to-many without an inverse in Apple's layout (issue 37, point 3): `Z<n><REL>` on the
/// destination's table, holding the owner's `Z_PK`, with its index (wave3-research §5).
@Suite("To-many without an inverse: Apple's owner column")
struct ToManyWithoutInverseTests {
    typealias S = NoInverseStores

    private func cocktails(_ context: NSManagedObjectContext, _ format: String? = nil, prefetch: Bool = false) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Cocktail")
        request.predicate = format.map { NSPredicate(format: $0) }
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        if prefetch { request.relationshipKeyPathsForPrefetching = ["spec"] }
        return try context.fetch(request)
    }

    /// Fetch, KVC, predicates in SQL and in memory, and a count, on the handmade store's data.
    private func checkReads(_ context: NSManagedObjectContext) throws {
        let all = try cocktails(context)
        #expect(all.map { $0.value(forKey: "name") as? String } == ["Martini", "Negroni"])
        #expect(all[0].memberKeys("spec") == [4])
        #expect(all[1].memberKeys("spec") == [1, 2, 3])
        let units = ((all[1].value(forKey: "spec") as? NSSet)?.allObjects as? [NSManagedObject] ?? []).compactMap { $0.value(forKey: "unit") as? String }
        #expect(units.sorted() == ["dash", "oz", "oz"])
        let cases: [(format: String, expected: [String])] = [
            ("ANY spec.value > 4.5", ["Martini"]), ("ANY spec.value > 3", ["Martini", "Negroni"]),
            ("spec.@count == 3", ["Negroni"]), ("spec.@count == 1", ["Martini"]),
            ("SUBQUERY(spec, $i, $i.unit == 'oz').@count == 2", ["Negroni"]),
            ("spec.@sum.value == 6", ["Negroni"]), ("ANY spec.unit == 'cl'", []),
        ]
        for item in cases {
            // SQL (the fetch) and memory (evaluate(with:)) give the same answer.
            let fetched = try cocktails(context, item.format).compactMap { $0.value(forKey: "name") as? String }
            #expect(fetched == item.expected, "SQL: \(item.format)")
            let predicate = NSPredicate(format: item.format)
            let evaluated = all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }
            #expect(evaluated == item.expected, "memory: \(item.format)")
        }
        let count = NSFetchRequest<NSManagedObject>(entityName: "Cocktail")
        count.predicate = NSPredicate(format: "spec.@count > 0")
        #expect(try context.count(for: count) == 2)
    }

    @Test("A store made with SQL in Apple's layout: every member reads back through fetch, KVC, SQL and in-memory predicates, counts and prefetching")
    func readsAppleLayout() throws {
        let url = try S.appleStore()
        let context = try S.open(url)
        try context.performAndWait { try checkReads(context) }

        let fresh = try S.open(url)
        try fresh.performAndWait {
            let prefetched = try cocktails(fresh, prefetch: true)
            let members = prefetched.flatMap { ($0.value(forKey: "spec") as? NSSet)?.allObjects as? [NSManagedObject] ?? [] }
            #expect(members.count == 4)
            #expect(members.allSatisfy { !$0.isFault }, "prefetching fired the members' faults")
        }
    }

    @Test("Predicates, @count and faults run in SQL through the owner column (no in-memory fallback)")
    func sqlThroughOwnerColumn() throws {
        let model = S.model()
        model.freeze()
        let schema = SQLStoreSchema(model: model)
        let builder = SQLQueryBuilder(schema: schema, dialect: SQLiteDialect())
        let cocktail = model.entitiesByName["Cocktail"]!
        let any = try builder.selectObjectIDs(SQLFetchQuery(entity: cocktail, predicate: NSPredicate(format: "ANY spec.value > 4.5")))
            .render(in: SQLiteDialect())
        #expect(any.text == "SELECT t0.Z_PK, t0.Z_ENT FROM ZCOCKTAIL t0 WHERE EXISTS (SELECT 1 FROM ZINGREDIENT t1 WHERE (t1.Z1SPEC = t0.Z_PK) AND (t1.ZVALUE IS NOT NULL) AND (t1.ZVALUE > ?))")
        let count = try builder.selectObjectIDs(SQLFetchQuery(entity: cocktail, predicate: NSPredicate(format: "spec.@count == 2")))
            .render(in: SQLiteDialect())
        #expect(count.text.contains("Z1SPEC = t0.Z_PK"), "\(count.text)")
        let fault = try builder.destinations(of: cocktail.relationshipsByName["spec"]!, sourceKey: 7, columns: [SQLFragment("t0.Z_PK")])
        #expect(fault.text == "SELECT t0.Z_PK FROM ZINGREDIENT t0 WHERE t0.Z1SPEC = ?")
        #expect(fault.arguments == [.integer(7)])
    }

    @Test("A store we create has Apple's column and index, and no join table")
    func createdLayout() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try S.open(url)
        try context.performAndWait {
            let cocktail = NSEntityDescription.insertNewObject(forEntityName: "Cocktail", into: context)
            cocktail.setValue("Gimlet", forKey: "name")
            for value in [1.0, 2.0] {
                let ingredient = NSEntityDescription.insertNewObject(forEntityName: "Ingredient", into: context)
                ingredient.setValue(value, forKey: "value")
                cocktail.mutableSetValue(forKey: "spec").add(ingredient)
            }
            try context.save()
        }
        let objects = try S.schemaObjects(url)
        #expect(objects["ZINGREDIENT"] == "CREATE TABLE ZINGREDIENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z1SPEC INTEGER, ZVALUE FLOAT, ZUNIT VARCHAR )")
        #expect(objects["ZINGREDIENT_Z1SPEC_INDEX"] == "CREATE INDEX ZINGREDIENT_Z1SPEC_INDEX ON ZINGREDIENT (Z1SPEC)")
        #expect(objects["Z_1SPEC"] == nil)
        #expect(try S.storedMembers(url) == [1: [1, 2]])
        // The same statements as the handmade store's.
        let model = S.model()
        model.freeze()
        let statements = SQLStoreSchema(model: model).creationStatements(in: SQLiteDialect())
        for statement in S.appleTables { #expect(statements.contains(statement), "\(statement)") }
    }

    @Test("Saves: add, remove, move between owners in one save; a second owner is refused with 1550 and nothing is written")
    func saves() throws {
        let url = try S.appleStore()
        let context = try S.open(url)
        try context.performAndWait {
            let all = try cocktails(context)
            let (martini, negroni) = (all[0], all[1])
            let looseRequest = NSFetchRequest<NSManagedObject>(entityName: "Ingredient")
            looseRequest.predicate = NSPredicate(format: "unit == 'cl'")
            let loose = try #require(try context.fetch(looseRequest).first)
            martini.mutableSetValue(forKey: "spec").add(loose)
            try context.save()
            #expect(try S.storedMembers(url) == [1: [1, 2, 3], 2: [4, 5]])

            // Moved from Negroni to Martini in one save, whichever owner the save lists first.
            let moved = (negroni.value(forKey: "spec") as! NSSet).allObjects.map { $0 as! NSManagedObject }.first { $0.objectID.primaryKey == 3 }!
            martini.mutableSetValue(forKey: "spec").add(moved)
            negroni.mutableSetValue(forKey: "spec").remove(moved)
            try context.save()
            #expect(try S.storedMembers(url) == [1: [1, 2], 2: [3, 4, 5]])

            // In two owners' sets at once: Apple's layout holds one owner, so the save fails.
            let shared = (negroni.value(forKey: "spec") as! NSSet).allObjects.map { $0 as! NSManagedObject }.first { $0.objectID.primaryKey == 1 }!
            martini.mutableSetValue(forKey: "spec").add(shared)
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSManagedObjectValidationError)
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "spec")
            #expect(error?.localizedDescription.contains("Ingredient 1") == true)
            #expect(try S.storedMembers(url) == [1: [1, 2], 2: [3, 4, 5]], "nothing written")
            #expect(context.hasChanges, "the changes stay")
            martini.mutableSetValue(forKey: "spec").remove(shared)
            try context.save()
        }
        // Read back by a new coordinator.
        let reread = try S.open(url)
        try reread.performAndWait {
            let all = try cocktails(reread)
            #expect(all.map { $0.memberKeys("spec") } == [[3, 4, 5], [1, 2]])
        }
    }

    @Test("Cascade and nullify, by a context's delete and by a batch delete", arguments: [NSDeleteRule.cascadeDeleteRule, .nullifyDeleteRule])
    func deleteRules(rule: NSDeleteRule) throws {
        let survivors: Set<Int> = rule == .cascadeDeleteRule ? [5] : [1, 2, 3, 4, 5]
        // A context's delete.
        let url = try S.appleStore(model: S.model(rule: rule))
        let context = try S.open(url, S.model(rule: rule))
        try context.performAndWait {
            for cocktail in try cocktails(context) { context.delete(cocktail) }
            try context.save()
        }
        // A batch delete, on a store whose objects were never loaded.
        let batchURL = try S.appleStore(model: S.model(rule: rule))
        let batch = try S.open(batchURL, S.model(rule: rule))
        try batch.performAndWait {
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Cocktail"))
            _ = try batch.execute(request)
        }
        for url in [url, batchURL] {
            let rows = try DatabaseQueue(path: url.path).read { db in try Row.fetchAll(db, sql: "SELECT Z_PK, Z1SPEC FROM ZINGREDIENT") }
            #expect(Set(rows.map { $0[0] as Int }) == survivors)
            #expect(rows.allSatisfy { ($0[1] as Int?) == nil }, "no survivor names a deleted owner")
            #expect(try DatabaseQueue(path: url.path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZCOCKTAIL") } == 0)
        }
    }

    @Test("A destination in an inheritance hierarchy: the column and index are on the root's table")
    func inheritance() throws {
        let item = TestModels.entity("Item", [TestModels.attribute("label", .stringAttributeType)])
        let garnish = TestModels.entity("Garnish", [TestModels.attribute("colour", .stringAttributeType)])
        item.subentities = [garnish]
        let bar = TestModels.entity("Bar", [TestModels.attribute("name", .stringAttributeType)])
        bar.properties += [TestModels.relationship("garnishes", to: garnish, toMany: true)]
        let model = NSManagedObjectModel()
        model.entities = [bar, garnish, item]
        let url = TestStoreFiles.newStoreURL()
        let context = try S.open(url, model)
        try context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Bar", into: context)
            let plain = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            plain.setValue("plain", forKey: "label")
            for colour in ["green", "red"] {
                let member = NSEntityDescription.insertNewObject(forEntityName: "Garnish", into: context)
                member.setValue(colour, forKey: "colour")
                owner.mutableSetValue(forKey: "garnishes").add(member)
            }
            try context.save()
        }
        let number = SQLStoreSchema(model: model).entityNumber(of: bar)
        let column = "Z\(number)GARNISHES"
        let objects = try S.schemaObjects(url)
        #expect(objects["ZITEM"]?.contains("\(column) INTEGER") == true)
        #expect(objects["ZITEM_\(column)_INDEX"] == "CREATE INDEX ZITEM_\(column)_INDEX ON ZITEM (\(column))")
        #expect(objects.keys.allSatisfy { !$0.hasPrefix("Z_\(number)") })
        let reread = try S.open(url, model)
        try reread.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Bar")
            request.predicate = NSPredicate(format: "ANY garnishes.colour == 'red' AND garnishes.@count == 2")
            let bars = try reread.fetch(request)
            #expect(bars.count == 1)
            let colours = ((bars.first?.value(forKey: "garnishes") as? NSSet)?.allObjects as? [NSManagedObject] ?? []).compactMap { $0.value(forKey: "colour") as? String }
            #expect(colours.sorted() == ["green", "red"])
        }
    }

    @Test("A derived spec.@count is kept by triggers on the owner column, also for a batch delete of members")
    func derivedCount() throws {
        let model = S.model()
        model.entitiesByName["Cocktail"]!.properties += [SQLDerivedAttributeTests.derived("specCount", .integer64AttributeType, "spec.@count")]
        let url = TestStoreFiles.newStoreURL()
        let context = try S.open(url, model)
        try context.performAndWait {
            let cocktail = NSEntityDescription.insertNewObject(forEntityName: "Cocktail", into: context)
            cocktail.setValue("Sour", forKey: "name")
            for value in [1.0, 2.0, 3.0] {
                let ingredient = NSEntityDescription.insertNewObject(forEntityName: "Ingredient", into: context)
                ingredient.setValue(value, forKey: "value")
                cocktail.mutableSetValue(forKey: "spec").add(ingredient)
            }
            try context.save()
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Ingredient")
            request.predicate = NSPredicate(format: "value > 1.5")
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: request))
        }
        let stored = try DatabaseQueue(path: url.path).read { db in try Int.fetchOne(db, sql: "SELECT ZSPECCOUNT FROM ZCOCKTAIL") }
        #expect(stored == 1)
    }

    @Test("History: a save that changes the to-many records the owner's update with the relationship")
    func history() throws {
        let url = try S.appleStore()
        let context = try S.open(url, options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        try context.performAndWait {
            let all = try cocktails(context)
            let member = (all[1].value(forKey: "spec") as! NSSet).allObjects.first as! NSManagedObject
            all[1].mutableSetValue(forKey: "spec").remove(member)
            try context.save()
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            let changes = (result?.result as? [NSPersistentHistoryTransaction])?.flatMap { $0.changes ?? [] } ?? []
            #expect(changes.count == 1)
            #expect(changes.first?.changedObjectID == all[1].objectID)
            #expect(changes.first?.updatedProperties?.map(\.name) == ["spec"])
        }
    }
}
