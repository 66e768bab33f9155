import Foundation
import Testing
@testable import OpenCoreData

final class MTodo: NSManagedObject {
    @Managed var title: String?
    @Managed var done: Bool
    @Managed var priority: Int16
    @Managed var updatedAt: Date?
    @Managed var tags: Set<MTag>
    @Managed("tags") var tagSet: NSSet?
    @Managed var location: MLocation?
    @Managed public var todoId: UUID?
}

final class MTag: NSManagedObject {
    @Managed var name: String?
    @Managed var todos: Set<MTodo>
}

final class MLocation: NSManagedObject {}

extension MLocation {
    @Managed public var placeName: String?
    @Managed public var latitude: Double
    @Managed public var todos: NSSet?
}

@Suite("@Managed properties")
struct ManagedPropertyTests {
    static func model() -> NSManagedObjectModel {
        let model = TestModels.todoModel()
        model.entitiesByName["TodoEntity"]!.managedObjectClassName = "MTodo"
        model.entitiesByName["TagEntity"]!.managedObjectClassName = "MTag"
        model.entitiesByName["LocationEntity"]!.managedObjectClassName = "MLocation"
        return model
    }

    @Test("Typed properties read and write through the graph with change tracking and inverses")
    func typedAccess() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        try context.performAndWait {
            let todo = MTodo(context: context)
            #expect(todo.done == false)
            #expect(todo.title == nil)
            todo.title = "Buy milk"
            todo.done = true
            todo.priority = 3
            let id = UUID()
            todo.todoId = id
            let tag = MTag(context: context)
            tag.name = "home"
            todo.tags.insert(tag)
            let place = MLocation(context: context)
            place.placeName = "Shop"
            place.latitude = 1.5
            todo.location = place
            #expect(tag.todos == [todo])
            #expect(place.todos?.count == 1)
            try context.save()
            todo.title = "Buy oat milk"
            #expect(todo.isUpdated)
            #expect(todo.changedValues()["title"] as? String == "Buy oat milk")
            try context.save()
            context.reset()

            let fetched = try context.fetch(NSFetchRequest<MTodo>(entityName: "TodoEntity"))
            let again = try #require(fetched.first)
            #expect(again.title == "Buy oat milk")
            #expect(again.done)
            #expect(again.priority == 3)
            #expect(again.todoId == id)
            #expect(again.tags.map(\.name) == ["home"])
            #expect(again.tagSet?.count == 1)
            #expect(again.location?.placeName == "Shop")
            #expect(again.location?.latitude == 1.5)
            again.tags = []
            #expect(again.tagSet?.count == 0)
            let reloadedTag = try #require(try context.fetch(NSFetchRequest<MTag>(entityName: "TagEntity")).first)
            #expect(reloadedTag.todos.isEmpty)
        }
    }

    @Test("Fetches return instances of the entity's class")
    func fetchReturnsSubclass() throws {
        let model = Self.model()
        model.registerManagedObjectClasses([MTodo.self, MTag.self, MLocation.self])
        let context = try TestModels.inMemoryContext(model)
        try context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            #expect(tag is MTag)
            try context.save()
            context.reset()
            let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TagEntity"))
            #expect(fetched.first is MTag)
            #expect(MTag.entity().name == "TagEntity")
        }
    }

    @Test("A module-qualified managedObjectClassName is found through the Swift runtime")
    func moduleQualifiedClassName() throws {
        let model = Self.model()
        model.entitiesByName["TagEntity"]!.managedObjectClassName = String(reflecting: MTag.self)
        let context = try TestModels.inMemoryContext(model)
        context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            #expect(tag is MTag)
        }
    }

    @Test("Key paths of @Managed properties map to model keys")
    func keyPathNames() throws {
        let model = Self.model()
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        let todo = try #require(model.entitiesByName["TodoEntity"])
        #expect(NSManagedObject.keyName(for: \MTodo.title, entity: todo) == "title")
        #expect(NSManagedObject.keyName(for: \MTodo.done, entity: todo) == "done")
        #expect(NSManagedObject.keyName(for: \MTodo.tags, entity: todo) == "tags")
        #expect(NSManagedObject.keyName(for: \MTodo.tagSet, entity: todo) == "tags")
        #expect(NSManagedObject.keyName(for: \MTodo.location, entity: todo) == "location")
    }
}

@Suite("Key paths of @Managed subclasses in predicates and sorts")
struct ManagedKeyPathTests {
    @Test("Multi-component key paths follow to-one relationships; #Predicate and keyPath sorts work")
    func predicatesAndSorts() throws {
        let model = ManagedPropertyTests.model()
        model.registerManagedObjectClasses([MTodo.self, MTag.self, MLocation.self])
        let context = try TestModels.inMemoryContext(model)
        let todoEntity = try #require(model.entitiesByName["TodoEntity"])
        #expect(NSManagedObject.keyName(for: \MTodo.location?.placeName, entity: todoEntity) == "location.placeName")
        #expect(MTodo.keyValueCodingName(for: \MTodo.title) == "title")
        try context.performAndWait {
            for (title, place) in [("b", "Home"), ("a", "Office"), ("c", "Home")] {
                let todo = MTodo(context: context)
                todo.title = title
                let location = MLocation(context: context)
                location.placeName = place
                todo.location = location
            }
            try context.save()
            let request = NSFetchRequest<MTodo>(entityName: "TodoEntity")
            request.predicate = NSPredicate(#Predicate<MTodo> { $0.location?.placeName == "Home" })
            request.sortDescriptors = [NSSortDescriptor(keyPath: \MTodo.title, ascending: false)]
            let titles = try context.fetch(request).map { $0.title ?? "" }
            #expect(titles == ["c", "b"])
        }
    }
}

/// The object types Xcode's generated code uses where a Swift type doesn't fit.
final class MXcodeTyped: NSManagedObject {
    @Managed var count: NSNumber?
    @Managed var price: NSDecimalNumber?
    @Managed var payload: NSObject?
    @Managed var words: [String]?
}

@Suite("@Managed properties typed as Xcode generates them")
struct ManagedXcodeTypeTests {
    static func model() -> NSManagedObjectModel {
        let entity = NSEntityDescription()
        entity.name = "Typed"
        entity.managedObjectClassName = "MXcodeTyped"
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        entity.properties = [
            attribute("count", .integer32AttributeType), attribute("price", .decimalAttributeType),
            attribute("payload", .transformableAttributeType), attribute("words", .transformableAttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }

    @Test("NSNumber?, NSDecimalNumber?, NSObject? and a custom class read and write")
    func objectTypedProperties() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        try context.performAndWait {
            let object = MXcodeTyped(context: context)
            #expect(object.count == nil && object.price == nil && object.payload == nil && object.words == nil)
            object.count = NSNumber(value: 42)
            object.price = NSDecimalNumber(string: "9.95")
            object.payload = NSString(string: "opaque")
            object.words = ["a", "b"]
            try context.save()
            context.reset()
            let fetched = try #require(try context.fetch(NSFetchRequest<MXcodeTyped>(entityName: "Typed")).first)
            #expect(fetched.count?.int32Value == 42)
            #expect(fetched.price == NSDecimalNumber(string: "9.95"))
            #expect(fetched.payload as? NSString == "opaque")
            #expect(fetched.words == ["a", "b"])
            fetched.count = nil
            fetched.payload = nil
            #expect(fetched.count == nil && fetched.payload == nil)
        }
    }
}
