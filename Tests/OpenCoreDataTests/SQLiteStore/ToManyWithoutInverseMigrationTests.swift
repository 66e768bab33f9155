import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Stores earlier OpenCoreData versions wrote with a join table for a to-many without an inverse
/// keep every member (read and written in that layout), and migrations move the relationship
/// into Apple's owner column without dropping a member.
@Suite("To-many without an inverse: earlier join-table stores and migration")
struct ToManyWithoutInverseMigrationTests {
    typealias S = NoInverseStores
    static var migrate: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    private func members(_ context: NSManagedObjectContext, _ format: String? = nil) throws -> [String: [Int]] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Cocktail")
            request.predicate = format.map { NSPredicate(format: $0) }
            return Dictionary(uniqueKeysWithValues: try context.fetch(request).map { ($0.value(forKey: "name") as? String ?? "?", $0.memberKeys("spec")) })
        }
    }

    /// The model with an attribute added to Cocktail (a change lightweight migration infers).
    private static func version2() -> NSManagedObjectModel {
        let model = S.model()
        model.entitiesByName["Cocktail"]!.properties += [TestModels.attribute("glass", .stringAttributeType)]
        return model
    }

    @Test("A store in the earlier join-table layout opens (read-write and read-only) with every member, an ingredient in two cocktails included, and stays in that layout")
    func legacyStoreKeepsMembers() throws {
        let url = try S.legacyStore(extraPairs: [(2, 1)])
        let before = try S.schemaObjects(url)
        let readOnly = try S.open(url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(try members(readOnly) == ["Negroni": [1, 2, 3], "Martini": [1, 4]])

        let context = try S.open(url)
        #expect(try members(context) == ["Negroni": [1, 2, 3], "Martini": [1, 4]])
        #expect(try members(context, "ANY spec.value > 4.5") == ["Martini": [1, 4]])
        #expect(try members(context, "spec.@count == 3").keys.sorted() == ["Negroni"])
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Cocktail")
            request.predicate = NSPredicate(format: "name == 'Martini'")
            let martini = try #require(try context.fetch(request).first)
            let ingredient = NSEntityDescription.insertNewObject(forEntityName: "Ingredient", into: context)
            ingredient.setValue(9.0, forKey: "value")
            martini.mutableSetValue(forKey: "spec").add(ingredient)
            try context.save()
        }
        #expect(try S.storedMembers(url) == [1: [1, 2, 3], 2: [1, 4, 6]])
        #expect(try S.schemaObjects(url) == before, "opening and saving left the layout as it was")
    }

    @Test("Lightweight migration moves an earlier join-table store into Apple's owner column, every member kept")
    func legacyMigrates() throws {
        let url = try S.legacyStore()
        let context = try S.open(url, Self.version2(), options: Self.migrate)
        #expect(try members(context) == ["Negroni": [1, 2, 3], "Martini": [4]])
        let objects = try S.schemaObjects(url)
        #expect(objects["Z_1SPEC"] == nil)
        #expect(objects["ZINGREDIENT_Z1SPEC_INDEX"] == "CREATE INDEX ZINGREDIENT_Z1SPEC_INDEX ON ZINGREDIENT (Z1SPEC)")
        #expect(try S.storedMembers(url) == [1: [1, 2, 3], 2: [4]])
    }

    @Test("Lightweight migration refuses an earlier store whose ingredient is in two cocktails (134110), leaving it unchanged")
    func legacySharedMemberRefused() throws {
        let url = try S.legacyStore(extraPairs: [(2, 1)])
        let before = try S.schemaObjects(url)
        let error = #expect(throws: NSError.self) { _ = try S.open(url, Self.version2(), options: Self.migrate) }
        #expect(error?.code == NSMigrationError)
        #expect(error?.localizedDescription.contains("'spec'") == true)
        #expect(try S.schemaObjects(url) == before)
        #expect(try S.storedMembers(url) == [1: [1, 2, 3], 2: [1, 4]])
    }

    @Test("Lightweight migration of a store in Apple's layout keeps the owner column's members")
    func appleLayoutMigrates() throws {
        let url = try S.appleStore()
        let context = try S.open(url, Self.version2(), options: Self.migrate)
        #expect(try members(context) == ["Negroni": [1, 2, 3], "Martini": [4]])
        #expect(try S.storedMembers(url) == [1: [1, 2, 3], 2: [4]])
    }

    @Test("A one-to-many whose inverse is removed moves into the owner column")
    func inverseRemovedAndAdded() throws {
        // Version 1: Cocktail.spec ↔ Ingredient.cocktail.
        let withInverse = S.model()
        let spec = withInverse.entitiesByName["Cocktail"]!.relationshipsByName["spec"]!
        let back = TestModels.relationship("cocktail", to: withInverse.entitiesByName["Cocktail"]!, toMany: false)
        withInverse.entitiesByName["Ingredient"]!.properties += [back]
        TestModels.inverse(spec, back)
        let url = TestStoreFiles.newStoreURL()
        let context = try S.open(url, withInverse)
        try context.performAndWait {
            let cocktail = NSEntityDescription.insertNewObject(forEntityName: "Cocktail", into: context)
            cocktail.setValue("Sour", forKey: "name")
            for value in [1.0, 2.0, 3.0] {
                let ingredient = NSEntityDescription.insertNewObject(forEntityName: "Ingredient", into: context)
                ingredient.setValue(value, forKey: "value")
                ingredient.setValue(cocktail, forKey: "cocktail")
            }
            try context.save()
        }
        try context.persistentStoreCoordinator?.persistentStores.forEach { try context.persistentStoreCoordinator?.remove($0) }
        let migrated = try S.open(url, S.model(), options: Self.migrate)
        #expect(try members(migrated) == ["Sour": [1, 2, 3]])
        #expect(try S.storedMembers(url) == [1: [1, 2, 3]])
    }

    @Test("An inverse added to a to-many that had none is filled from the owner column (and from an earlier join table)")
    func inverseAdded() throws {
        for url in [try S.appleStore(), try S.legacyStore()] {
            let withInverse = S.model()
            let spec = withInverse.entitiesByName["Cocktail"]!.relationshipsByName["spec"]!
            let back = TestModels.relationship("cocktail", to: withInverse.entitiesByName["Cocktail"]!, toMany: false)
            withInverse.entitiesByName["Ingredient"]!.properties += [back]
            TestModels.inverse(spec, back)
            let context = try S.open(url, withInverse, options: Self.migrate)
            #expect(try members(context) == ["Negroni": [1, 2, 3], "Martini": [4]])
            let owners = try DatabaseQueue(path: url.path).read { db in
                try Row.fetchAll(db, sql: "SELECT Z_PK, ZCOCKTAIL FROM ZINGREDIENT ORDER BY Z_PK").map { [$0[0] as Int, ($0[1] as Int?) ?? 0] }
            }
            #expect(owners == [[1, 1], [2, 1], [3, 1], [4, 2], [5, 0]])
        }
    }

    @Test("A mapping-model migration writes the destination in Apple's layout, from either layout")
    func mappingModelMigration() throws {
        for source in [try S.legacyStore(), try S.appleStore()] {
            let destination = TestStoreFiles.newStoreURL()
            let model = S.model(), version2 = Self.version2()
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: model, destinationModel: version2)
            try NSMigrationManager(sourceModel: model, destinationModel: version2)
                .migrateStore(from: source, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: destination, destinationType: NSSQLiteStoreType)
            #expect(try S.schemaObjects(destination)["Z_1SPEC"] == nil)
            // New keys in the new store: the members are compared by value.
            let context = try S.open(destination, version2)
            let values = try context.performAndWait {
                Dictionary(uniqueKeysWithValues: try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Cocktail")).map { cocktail in
                    (cocktail.value(forKey: "name") as? String ?? "?",
                     (((cocktail.value(forKey: "spec") as? NSSet)?.allObjects as? [NSManagedObject]) ?? []).compactMap { $0.value(forKey: "value") as? Double }.sorted())
                })
            }
            #expect(values == ["Negroni": [1, 1, 4], "Martini": [5]])
        }
    }
}
