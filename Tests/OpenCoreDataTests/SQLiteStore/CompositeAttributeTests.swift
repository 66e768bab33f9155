import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Composite attributes end to end: a store in SwiftData's layout (`CompositeStoreBuilder`)
/// read through fetch, KVC and predicates in SQL and in memory; stores we write with the same
/// model; changes, validation, migration of elements.
@Suite("Composite attributes")
struct CompositeAttributeTests {
    // MARK: - Helpers

    static func openHandMade() throws -> (NSManagedObjectContext, URL) {
        let url = TestStoreFiles.newStoreURL()
        try CompositeStoreBuilder.makeStore(at: url)
        return (try TestModels.sqliteContext(CompositeStoreBuilder.model(), url: url), url)
    }

    static func fetch(_ context: NSManagedObjectContext, _ predicate: NSPredicate? = nil,
                      sort: [NSSortDescriptor] = [NSSortDescriptor(key: "name", ascending: true)]) throws -> [NSManagedObject] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Cocktail")
            request.predicate = predicate
            request.sortDescriptors = sort
            return try context.fetch(request)
        }
    }

    static func names(_ objects: [NSManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "name") as? String ?? "?" }
    }

    /// Each table's columns as `NAME TYPE`, sorted, and the index names.
    static func layout(_ url: URL) throws -> (columns: [String], indexes: [String]) {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        return try queue.read { db in
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(ZCOCKTAIL)").map { "\($0["name"] as String) \($0["type"] as String)" }.sorted()
            let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            return (columns, indexes)
        }
    }

    // MARK: - Reading SwiftData's layout

    @Test("A store in SwiftData's composite layout reads back through fetch and KVC")
    func readsHandMadeStore() throws {
        let (context, _) = try Self.openHandMade()
        let objects = try Self.fetch(context)
        try context.performAndWait {
            #expect(Self.names(objects) == ["Alaska", "Algonquin", "Bijou"])
            let (alaska, algonquin, bijou) = (objects[0], objects[1], objects[2])
            // The entity's own `id` is ZID1; the element `author.id` is ZID.
            #expect(algonquin.value(forKey: "id") as? UUID == CompositeStoreBuilder.cocktailIDs[0])
            let author = try #require(algonquin.value(forKey: "author") as? [String: Any])
            #expect(author["id"] as? UUID == CompositeStoreBuilder.authorID)
            #expect(author["person"] as? String == "Ann")
            #expect(author["place"] as? String == "Paris")
            #expect((author["year"] as? NSNumber)?.int64Value == 1920)
            #expect(algonquin.value(forKeyPath: "author.person") as? String == "Ann")
            // A nil optional composite: every column NULL.
            #expect(alaska.value(forKey: "author") == nil)
            #expect(alaska.value(forKeyPath: "author.person") == nil)
            // Partly set: only the non-nil elements are in the dictionary.
            #expect((bijou.value(forKey: "author") as? [String: Any]).map { Set($0.keys) } == ["person", "year"])
            // Enums: raw value (one column) and without raw values (one column per case).
            #expect(algonquin.value(forKeyPath: "glasswareType.glasswareType") as? String == "coupe")
            #expect((algonquin.value(forKeyPath: "collection.collection") as? NSNumber)?.intValue == 2)
            #expect(alaska.value(forKey: "collection") == nil)
            #expect((algonquin.value(forKey: "style") as? [String: Any])?.mapValues { "\($0)" } == ["algonquin": "algonquin"])
            #expect((alaska.value(forKey: "style") as? [String: Any])?.mapValues { "\($0)" } == ["alaska": "alaska"])
            // An array element: JSON text in a BLOB, handed over as its bytes.
            let tags = try #require(algonquin.value(forKeyPath: "notes.tags") as? Data)
            #expect(try JSONSerialization.jsonObject(with: tags) as? [String] == ["Grapefruit", "Anise"])
            // A nested composite.
            #expect((algonquin.value(forKeyPath: "origin.geo.lat") as? NSNumber)?.doubleValue == 48.85)
            #expect(algonquin.value(forKeyPath: "origin.city") as? String == "Paris")
            #expect(bijou.value(forKey: "origin") == nil)
        }
    }

    @Test("Predicates and sorts on element key paths agree in SQL, in evaluate(with:) and in the in-memory store")
    func predicatesOnElements() throws {
        let (context, _) = try Self.openHandMade()
        let all = try Self.fetch(context)
        let memory = try TestModels.inMemoryContext(CompositeStoreBuilder.model())
        try context.performAndWait {
            // The same rows in an in-memory store, which filters and sorts in memory.
            try memory.performAndWait {
                for object in all {
                    let copy = NSEntityDescription.insertNewObject(forEntityName: "Cocktail", into: memory)
                    for key in ["id", "name", "author", "glasswareType", "collection", "style", "notes", "origin"] {
                        copy.setValue(object.value(forKey: key), forKey: key)
                    }
                }
                try memory.save()
            }
        }
        let cases: [(String, [Any], [String])] = [
            ("author.person == 'Ann'", [], ["Algonquin"]),
            ("author.person == nil", [], ["Alaska"]),
            ("author.year < 1900", [], ["Bijou"]),
            ("author.id == %@", [CompositeStoreBuilder.authorID], ["Algonquin"]),
            ("style.alaska != nil", [], ["Alaska"]),
            ("style.algonquin == 'algonquin' OR collection.collection == 1", [], ["Algonquin", "Bijou"]),
            ("glasswareType.glasswareType BEGINSWITH 'c'", [], ["Algonquin", "Bijou"]),
            ("origin.geo.lat > 45", [], ["Algonquin"]),
            ("notes.rating >= 3", [], ["Algonquin", "Bijou"]),
            ("author.nosuchelement == nil", [], ["Alaska", "Algonquin", "Bijou"]),
            ("author == nil", [], ["Alaska"]),
            ("origin != nil AND glasswareType != nil", [], ["Alaska", "Algonquin"]),
        ]
        for (format, arguments, expected) in cases {
            let predicate = NSPredicate(format: format, argumentArray: arguments)
            #expect(try Self.names(Self.fetch(context, predicate)) == expected, "SQL: \(format)")
            let evaluated = context.performAndWait { Self.names(all.filter { predicate.evaluate(with: $0) }) }
            #expect(evaluated == expected, "evaluate(with:): \(format)")
            #expect(try Self.names(Self.fetch(memory, predicate)) == expected, "in-memory store: \(format)")
        }
        // Dictionary results read elements by key path, decoded by the element's type.
        let rows = try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Cocktail")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["name", "author.person", "author.id"]
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request)
        }
        #expect(rows.map { $0["author.person"] as? String } == [nil, "Ann", "Bea"])
        #expect(rows[1]["author.id"] as? UUID == CompositeStoreBuilder.authorID)
        let sorts = [NSSortDescriptor(key: "author.year", ascending: false), NSSortDescriptor(key: "name", ascending: true)]
        #expect(try Self.names(Self.fetch(context, sort: sorts)) == ["Algonquin", "Bijou", "Alaska"])
        #expect(try Self.names(Self.fetch(memory, sort: sorts)) == ["Algonquin", "Bijou", "Alaska"])
    }

    // MARK: - Writing

    @Test("A store we write with the same model has the same tables, columns and indexes, and Apple's encodings")
    func writesSameLayout() throws {
        let (handMade, handMadeURL) = try Self.openHandMade()
        let source = try Self.fetch(handMade)
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(CompositeStoreBuilder.model(), url: url)
        try handMade.performAndWait {
            try context.performAndWait {
                for object in source {
                    let copy = NSEntityDescription.insertNewObject(forEntityName: "Cocktail", into: context)
                    for key in ["id", "name", "author", "glasswareType", "collection", "style", "notes", "origin"] {
                        copy.setValue(object.value(forKey: key), forKey: key)
                    }
                }
                try context.save()
            }
        }
        let ours = try Self.layout(url)
        let theirs = try Self.layout(handMadeURL)
        #expect(ours.columns == theirs.columns)
        #expect(ours.indexes == theirs.indexes)
        var configuration = Configuration()
        configuration.readonly = true
        let rows = try DatabaseQueue(path: url.path, configuration: configuration).read { db in
            try Row.fetchAll(db, sql: """
                SELECT ZNAME, typeof(ZID), length(ZID), typeof(ZID1), length(ZID1), ZPERSON, ZYEAR, ZALGONQUIN, ZALASKA,
                       CAST(ZTAGS AS TEXT), typeof(ZTAGS), ZLAT, ZCITY FROM ZCOCKTAIL ORDER BY ZNAME
                """)
        }
        #expect(rows.count == 3)
        let algonquin = rows[1]
        #expect(algonquin[0] as String == "Algonquin")
        #expect(algonquin[1] as String == "blob" && algonquin[2] as Int == 16)
        #expect(algonquin[3] as String == "blob" && algonquin[4] as Int == 16)
        #expect(algonquin[5] as String == "Ann" && algonquin[6] as Int == 1920)
        #expect(algonquin[7] as String == "algonquin" && (algonquin[8] as String?) == nil)
        #expect(algonquin[9] as String == CompositeStoreBuilder.tagsJSON && algonquin[10] as String == "blob")
        #expect(algonquin[11] as Double == 48.85 && algonquin[12] as String == "Paris")
        let alaska = rows[0]
        #expect(alaska[1] as String == "null" && (alaska[5] as String?) == nil && alaska[8] as String == "alaska")
    }

    @Test("Changes, nil, validation of mandatory elements and refetch through a second coordinator")
    func changesAndValidation() throws {
        let (context, url) = try Self.openHandMade()
        try context.performAndWait {
            let objects = try Self.fetch(context)
            let alaska = objects[0], algonquin = objects[1]
            alaska.setValue(["person": "Cy", "year": 1901], forKey: "author")
            #expect((alaska.changedValues()["author"] as? [String: Any])?["person"] as? String == "Cy")
            algonquin.setValue(nil, forKey: "author")
            try context.save()
            // A present composite's mandatory elements are checked: origin.geo.lat is not optional.
            algonquin.setValue(["city": "Rome", "geo": ["lon": 12.5]], forKey: "origin")
            #expect {
                try context.save()
            } throws: { error in
                let error = error as NSError
                return error.code == NSValidationMissingMandatoryPropertyError && error.userInfo[NSValidationKeyErrorKey] as? String == "origin.geo.lat"
            }
            context.rollback()
        }
        let fresh = try TestModels.sqliteContext(CompositeStoreBuilder.model(), url: url)
        let reread = try Self.fetch(fresh)
        fresh.performAndWait {
            #expect(reread[0].value(forKeyPath: "author.person") as? String == "Cy")
            #expect((reread[0].value(forKeyPath: "author.year") as? NSNumber)?.intValue == 1901)
            #expect(reread[1].value(forKey: "author") == nil)
            #expect(reread[1].value(forKeyPath: "origin.city") as? String == "Paris")
        }
        var configuration = Configuration()
        configuration.readonly = true
        let nulls = try DatabaseQueue(path: url.path, configuration: configuration).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM ZCOCKTAIL WHERE ZNAME = 'Algonquin' AND ZID IS NULL AND ZPERSON IS NULL AND ZPLACE IS NULL AND ZYEAR IS NULL")
        }
        #expect(nulls == 1)
    }

    @Test("Undo restores a composite value")
    func undo() throws {
        let (context, _) = try Self.openHandMade()
        let objects = try Self.fetch(context)
        context.performAndWait {
            context.undoManager = UndoManager()
            let algonquin = objects[1]
            _ = algonquin.value(forKey: "author")
            context.processPendingChanges()
            algonquin.setValue(["person": "Dee"], forKey: "author")
            context.processPendingChanges()
            #expect(algonquin.value(forKeyPath: "author.person") as? String == "Dee")
            context.undo()
            #expect(algonquin.value(forKeyPath: "author.person") as? String == "Ann")
            #expect(algonquin.value(forKeyPath: "author.place") as? String == "Paris")
        }
    }

    @Test("Persistent history records a composite change as one updated property")
    func history() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try HistoryTests.context(CompositeStoreBuilder.model(), url: url)
        try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Cocktail", into: context)
            object.setValue(UUID(), forKey: "id")
            object.setValue(["glasswareType": "coupe"], forKey: "glasswareType")
            object.setValue(["person": "Ann"], forKey: "author")
            try context.save()
            object.setValue(["person": "Bea"], forKey: "author")
            try context.save()
        }
        let transactions = try HistoryTests.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        let update = try #require(transactions.last?.changes?.first)
        #expect(update.changeType == .update)
        #expect(update.updatedProperties?.map(\.name) == ["author"])
    }

    @Test("Lightweight migration adds and removes elements, keeping the others' values")
    func migrationOfElements() throws {
        let (context, url) = try Self.openHandMade()
        try context.performAndWait { try context.persistentStoreCoordinator!.persistentStores.forEach { try context.persistentStoreCoordinator!.remove($0) } }
        let model = CompositeStoreBuilder.model()
        let author = try #require(model.entitiesByName["Cocktail"]?.propertiesByName["author"] as? NSCompositeAttributeDescription)
        // Remove `place`, add `nickname`.
        author.elements = author.elements.filter { $0.name != "place" } + [CompositeStoreBuilder.element("nickname", .stringAttributeType)]
        let migrated = try TestModels.sqliteContext(model, url: url, options: [NSMigratePersistentStoresAutomaticallyOption: true,
                                                                              NSInferMappingModelAutomaticallyOption: true])
        let objects = try Self.fetch(migrated)
        migrated.performAndWait {
            let author = objects[1].value(forKey: "author") as? [String: Any]
            #expect(author?["person"] as? String == "Ann")
            #expect(author?["place"] == nil && author?["nickname"] == nil)
        }
        let columns = try Self.layout(url).columns
        #expect(columns.contains("ZNICKNAME VARCHAR") && !columns.contains("ZPLACE VARCHAR"))
    }

    @Test("Batch insert takes composite values as dictionaries")
    func batchInsert() throws {
        let (context, _) = try Self.openHandMade()
        try context.performAndWait {
            let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Cocktail"])
            let request = NSBatchInsertRequest(entity: entity, objects: [
                ["id": UUID(), "name": "Zaza", "author": ["person": "Zoe", "year": 1999], "glasswareType": ["glasswareType": "flute"],
                 "origin": ["geo": ["lat": 1.5, "lon": 2.5]]],
            ])
            try context.execute(request)
        }
        let found = try Self.fetch(context, NSPredicate(format: "author.person == 'Zoe' AND origin.geo.lon == 2.5"))
        context.performAndWait {
            #expect(Self.names(found) == ["Zaza"])
            #expect((found.first?.value(forKeyPath: "author.year") as? NSNumber)?.intValue == 1999)
            #expect(found.first?.value(forKeyPath: "glasswareType.glasswareType") as? String == "flute")
        }
    }

    // MARK: - Model

    @Test("The model cache archives composites as §5 read them, and reads them back")
    func modelCacheRoundTrip() throws {
        let model = CompositeStoreBuilder.model()
        let copy = try NSManagedObjectModel.fromModelCache(ModelCacheArchiver.modelCache(model))
        let entity = try #require(copy.entitiesByName["Cocktail"])
        let author = try #require(entity.propertiesByName["author"] as? NSCompositeAttributeDescription)
        #expect(author.attributeType == .compositeAttributeType)
        #expect(author.attributeValueClassName == "NSDictionary")
        #expect(author.elements.map(\.name) == ["id", "person", "place", "year"])
        #expect(author.elements.map(\.attributeType) == [.UUIDAttributeType, .stringAttributeType, .stringAttributeType, .integer64AttributeType])
        let style = try #require(entity.propertiesByName["style"] as? NSCompositeAttributeDescription)
        #expect(style.userInfo?["enum"] as? [String] == ["algonquin", "alaska"])
        let origin = try #require(entity.propertiesByName["origin"] as? NSCompositeAttributeDescription)
        let geo = try #require(origin.elements.first as? NSCompositeAttributeDescription)
        #expect(geo.elements.map(\.isOptional) == [false, false])
        #expect(copy.entityVersionHashesByName == model.entityVersionHashesByName)
        // Elements are not properties of the entity.
        #expect(entity.propertiesByName["person"] == nil)
    }

    @Test("Apple's version hash of an entity with a composite (the Ingredient vector of wave3-research §5)")
    func versionHashVector() throws {
        let base = NSEntityDescription()
        base.name = "IngredientBase"
        base.properties = [CompositeStoreBuilder.element("name", .stringAttributeType)]
        let ingredient = NSEntityDescription()
        ingredient.name = "Ingredient"
        let relationship = NSRelationshipDescription()
        relationship.name = "ingredientBase"
        relationship.destinationEntity = base
        relationship.isOptional = false
        relationship.minCount = 0
        relationship.maxCount = 1
        relationship.deleteRule = .nullifyDeleteRule
        ingredient.properties = [
            CompositeStoreBuilder.element("id", .UUIDAttributeType, optional: false),
            CompositeStoreBuilder.element("value", .doubleAttributeType, optional: false),
            CompositeStoreBuilder.composite("unit", [CompositeStoreBuilder.element("unit", .stringAttributeType)], optional: false,
                                            userInfo: ["EnumType": true]),
            relationship,
        ]
        let model = NSManagedObjectModel()
        model.entities = [base, ingredient]
        #expect(model.entityVersionHashesByName["Ingredient"]?.base64EncodedString() == "SjufMt9CruGesYa2rQOtV8ls0/tFMmcaQGPaIALPxho=")
    }

    @Test("An Xcode model with (nested) composites maps to the same columns, hashes like the code model, and graphs its elements")
    func xmlModel() throws {
        let xml = ModelXML.model("""
            <entity name="Cocktail" representedClassName="Cocktail">
                <attribute name="author" optional="YES" attributeType="Composite" composite="Author"/>
                <attribute name="id" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="origin" optional="YES" attributeType="Composite" composite="Origin"/>
            </entity>
            <composite name="Author">
                <attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="person" optional="YES" attributeType="String"/>
            </composite>
            <composite name="Origin">
                <attribute name="geo" optional="YES" attributeType="Composite" composite="Geo"/>
                <attribute name="city" optional="YES" attributeType="String"/>
            </composite>
            <composite name="Geo">
                <attribute name="lat" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="lon" attributeType="Double" usesScalarValueType="YES"/>
            </composite>
            """)
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(Data(xml.utf8), url: nil, into: model)
        let table = try #require(SQLStoreSchema(model: model).tables.first)
        #expect(table.columns.map(\.name).sorted() == ["ZCITY", "ZID", "ZID1", "ZLAT", "ZLON", "ZPERSON"])
        let entity = try #require(model.entitiesByName["Cocktail"])
        #expect(table.valueColumn(for: entity.propertiesByName["id"]!)?.name == "ZID1")
        let code = NSEntityDescription()
        code.name = "Cocktail"
        code.properties = [
            CompositeStoreBuilder.composite("author", [CompositeStoreBuilder.element("id", .UUIDAttributeType),
                                                       CompositeStoreBuilder.element("person", .stringAttributeType)]),
            CompositeStoreBuilder.element("id", .UUIDAttributeType, optional: false),
            CompositeStoreBuilder.composite("origin", [
                CompositeStoreBuilder.composite("geo", [CompositeStoreBuilder.element("lat", .doubleAttributeType, optional: false),
                                                        CompositeStoreBuilder.element("lon", .doubleAttributeType, optional: false)]),
                CompositeStoreBuilder.element("city", .stringAttributeType)]),
        ]
        let codeModel = NSManagedObjectModel()
        codeModel.entities = [code]
        #expect(model.entityVersionHashesByName == codeModel.entityVersionHashesByName)
        let dot = model.graphvizDOT()
        #expect(dot.contains("author.person: String?") && dot.contains("origin.geo.lat: Double"))
    }

    @Test("Column names are given in property-name order: an element takes a name before a later property")
    func columnNaming() throws {
        let schema = SQLStoreSchema(model: CompositeStoreBuilder.model())
        let table = try #require(schema.tables.first)
        let model = schema.model
        let entity = try #require(model.entitiesByName["Cocktail"])
        #expect(table.valueColumn(for: entity.propertiesByName["id"]!)?.name == "ZID1")
        let author = try #require(entity.propertiesByName["author"] as? NSCompositeAttributeDescription)
        #expect(table.elementColumn(for: author, path: ["id"])?.name == "ZID")
        #expect(table.valueColumn(for: author) == nil)
    }
}
