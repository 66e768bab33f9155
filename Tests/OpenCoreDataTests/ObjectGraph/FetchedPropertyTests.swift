import Foundation
import Testing
@testable import OpenCoreData

/// Fetched properties run their fetch request with `$FETCH_SOURCE` bound to the object, return
/// an array, and cache it until the object is refreshed (Apple's `NSFetchedPropertyDescription`).
@Suite("Fetched properties")
struct FetchedPropertyTests {
    /// Person(name, city) with fetched properties `neighbours` (same city, not the person,
    /// sorted by name) and `locals` (the city named in the property's user info).
    static func model() -> NSManagedObjectModel {
        let person = TestModels.entity("Person", [
            TestModels.attribute("name", .stringAttributeType), TestModels.attribute("city", .stringAttributeType),
        ])
        let neighbours = NSFetchedPropertyDescription()
        neighbours.name = "neighbours"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        request.predicate = NSPredicate(format: "%K == $FETCH_SOURCE.%K AND SELF != $FETCH_SOURCE", "city", "city")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        neighbours.fetchRequest = request
        let locals = NSFetchedPropertyDescription()
        locals.name = "locals"
        locals.userInfo = ["city": "Oslo"]
        let localsRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        localsRequest.predicate = NSPredicate(format: "city == $FETCHED_PROPERTY.userInfo.city")
        localsRequest.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        locals.fetchRequest = localsRequest
        person.properties += [neighbours, locals]
        let model = NSManagedObjectModel()
        model.entities = [person]
        return model
    }

    @discardableResult
    static func person(_ name: String, _ city: String, in context: NSManagedObjectContext) -> NSManagedObject {
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue(name, forKey: "name")
        person.setValue(city, forKey: "city")
        return person
    }

    static func names(_ value: Any?) -> [String] {
        (value as? [NSManagedObject] ?? []).map { $0.value(forKey: "name") as? String ?? "?" }
    }

    @Test("value(forKey:) runs the request with $FETCH_SOURCE bound and returns a sorted array", arguments: StoreKind.allCases)
    func evaluates(_ kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        try context.performAndWait {
            let ann = Self.person("Ann", "Oslo", in: context)
            Self.person("Cy", "Oslo", in: context)
            Self.person("Bo", "Oslo", in: context)
            Self.person("Dee", "Rome", in: context)
            try context.save()
            #expect(ann.value(forKey: "neighbours") is [Any], "a fetched property is an array, not a set")
            #expect(Self.names(ann.value(forKey: "neighbours")) == ["Bo", "Cy"])
            #expect(Self.names(ann.value(forKey: "locals")) == ["Cy", "Bo", "Ann"])
        }
    }

    @Test("Results are cached, not live, until the object is refreshed", arguments: StoreKind.allCases)
    func cachedUntilRefresh(_ kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        try context.performAndWait {
            let ann = Self.person("Ann", "Oslo", in: context)
            Self.person("Bo", "Oslo", in: context)
            try context.save()
            #expect(Self.names(ann.value(forKey: "neighbours")) == ["Bo"])
            Self.person("Cy", "Oslo", in: context)
            try context.save()
            #expect(Self.names(ann.value(forKey: "neighbours")) == ["Bo"], "not live: the cached array is returned")
            context.refresh(ann, mergeChanges: true)
            #expect(Self.names(ann.value(forKey: "neighbours")) == ["Bo", "Cy"])
            Self.person("Di", "Oslo", in: context)
            try context.save()
            context.refresh(ann, mergeChanges: false)
            #expect(Self.names(ann.value(forKey: "neighbours")) == ["Bo", "Cy", "Di"])
        }
    }

    @Test("Unsaved objects count: the request includes pending changes, as any fetch does")
    func pendingChanges() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        context.performAndWait {
            let ann = Self.person("Ann", "Oslo", in: context)
            Self.person("Bo", "Oslo", in: context)
            #expect(Self.names(ann.value(forKey: "neighbours")) == ["Bo"])
            let outside = NSManagedObject(entity: context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Person"]!, insertInto: nil)
            #expect((outside.value(forKey: "neighbours") as? [Any])?.isEmpty == true, "an object outside a context has no results")
        }
    }

    @Test("The parser accepts $FETCH_SOURCE.%K; a bad token after '.' throws instead of trapping")
    func parsing() throws {
        let predicate = try NSPredicate.parse(format: "%K == $FETCH_SOURCE.%K", arguments: ["city", "address.city"])
        #expect(predicate.predicateFormat == "city == $FETCH_SOURCE.address.city")
        let onSelf = try NSPredicate.parse(format: "name == %K.%K", arguments: ["owner", "name"])
        #expect(onSelf.predicateFormat == "name == owner.name")
        #expect(throws: PredicateFormatError.self) { try NSPredicate.parse(format: "a == $X.%@", arguments: ["b"]) }
        #expect(throws: PredicateFormatError.self) { try NSPredicate.parse(format: "a == $X.%K", arguments: [42]) }
        #expect(throws: PredicateFormatError.self) { try NSPredicate.parse(format: "a == $X.", arguments: []) }
        #expect(throws: PredicateFormatError.self) { try NSPredicate.parse(format: "a == $X.%K", arguments: []) }
    }
}

// MARK: - Fetched properties from Xcode model files

@Suite("Fetched properties from model files", .enabled(if: ModelFixtures.enabled, "shared/fixtures is missing"))
struct FetchedPropertyFixtureTests {
    @Test("momcom's yesBooleans (booleanAttribute = YES) fetches the Entity rows with YES", arguments: StoreKind.allCases)
    func momcomYesBooleans(_ kind: StoreKind) throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("momcom/momcomTests/momcomTests.xcdatamodeld"))
        let context = try kind.context(model)
        try context.performAndWait {
            var objects: [NSManagedObject] = []
            for (index, flag) in [true, false, true].enumerated() {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Entity", into: context)
                object.setValue(flag, forKey: "booleanAttribute")
                object.setValue("e\(index)", forKey: "stringAttribute")
                objects.append(object)
            }
            let value = try #require(objects[1].value(forKey: "yesBooleans") as? [NSManagedObject])
            #expect(Set(value.map(\.objectID)) == Set([objects[0].objectID, objects[2].objectID]))
        }
    }

    @Test("An Apple-compiled model (a store's Z_MODELCACHE): $FETCH_SOURCE.alias and $FETCHED_PROPERTY.userInfo.search", arguments: StoreKind.allCases)
    func compiledModel(_ kind: StoreKind) throws {
        let store = try Fixtures.store("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite")
        let model = try NSManagedObjectModel.fromModelCache(try #require(try ModelFixtures.storeContents(store).modelCache))
        let context = try kind.context(model)
        context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let andrea = insert("Author", ["alias": "Andrea"])
            let alessandro = insert("Author", ["alias": "Alessandro"])
            for (alias, comment) in [("Andrea", "great book"), ("Andrea", "interesting book"), ("Alessandro", "GREAT read"),
                                     ("Andrea", "Great!"), ("Alessandro", "dull")] {
                _ = insert("Feedback", ["authorAlias": alias, "comment": comment])
            }
            // The model's fetched properties, as Xcode compiled them (unsaved objects count, as in any fetch).
            func comments(_ author: NSManagedObject, _ key: String) -> [String] {
                (author.value(forKey: key) as? [NSManagedObject] ?? []).compactMap { $0.value(forKey: "comment") as? String }.sorted()
            }
            #expect(comments(andrea, "feedbacks") == ["Great!", "great book", "interesting book"])
            #expect(comments(andrea, "favFeedbacks") == ["Great!", "great book"])
            #expect(comments(alessandro, "feedbacks") == ["GREAT read", "dull"])
            #expect(comments(alessandro, "favFeedbacks") == ["GREAT read"])
        }
    }
}
