import Foundation
import Testing
@testable import OpenCoreData

@Suite("Model descriptions")
struct ModelTests {
    @Test("Inherited properties appear in properties and the by-name dictionaries; Z_ENT order")
    func inheritance() throws {
        let car = TestModels.entity("Car", [TestModels.attribute("maker", .stringAttributeType)])
        let sport = TestModels.entity("SportCar", [TestModels.attribute("topSpeed", .doubleAttributeType)])
        let expensive = TestModels.entity("ExpensiveSportCar", [TestModels.attribute("isLimitedEdition", .booleanAttributeType)])
        let person = TestModels.entity("Person", [TestModels.attribute("name", .stringAttributeType)])
        car.subentities = [sport]
        sport.subentities = [expensive]
        car.isAbstract = false
        let model = NSManagedObjectModel()
        model.entities = [person, expensive, car, sport]
        #expect(expensive.superentity === sport)
        #expect(expensive.properties.map(\.name) == ["maker", "topSpeed", "isLimitedEdition"])
        #expect(Set(expensive.attributesByName.keys) == ["maker", "topSpeed", "isLimitedEdition"])
        #expect(expensive.isKindOf(entity: car))
        #expect(!car.isKindOf(entity: sport))
        #expect(model.entitiesByName["SportCar"] === sport)
        model.freeze()
        // Apple's Z_ENT order: roots alphabetically, each followed by its subentities depth-first.
        #expect([car, sport, expensive, person].map(\.entityNumber) == [1, 2, 3, 4])
        #expect(expensive.layout.indexByName["maker"] == car.layout.indexByName["maker"])
    }

    @Test("Configurations select entities; the default configuration has all")
    func configurations() {
        let a = TestModels.entity("A", []), b = TestModels.entity("B", [])
        let model = NSManagedObjectModel()
        model.entities = [a, b]
        model.setEntities([b], forConfigurationName: "Cloud")
        #expect(model.configurations == ["Cloud"])
        #expect(model.entities(forConfigurationName: "Cloud")?.map(\.name) == ["B"])
        #expect(model.entities(forConfigurationName: nil)?.count == 2)
        #expect(model.entities(forConfigurationName: "Missing") == nil)
    }

    @Test("A coordinator freezes the model; copies stay editable")
    func freezing() {
        let model = TestModels.todoModel()
        #expect(!model.isFrozen)
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        #expect(model.isFrozen)
        let copy = model.copy() as! NSManagedObjectModel
        #expect(!copy.isFrozen)
        copy.entitiesByName["TodoEntity"]?.name = "Todo"
        #expect(copy.entitiesByName["Todo"] != nil)
        #expect(model.entitiesByName["TodoEntity"] != nil)
        // The frozen model's index (built once at freeze) names every entity.
        #expect(Set(model.entitiesByName.keys) == Set(model.entities.compactMap(\.name)))
        #expect(model.entitiesByName["TodoEntity"] === model.entities.first { $0.name == "TodoEntity" })
        let todo = copy.entitiesByName["Todo"]!
        #expect((todo.relationshipsByName["tags"]?.destinationEntity?.name) == "TagEntity")
        #expect(todo.relationshipsByName["tags"]?.inverseRelationship?.name == "todos")
    }

    @Test("Attribute types expose Apple's raw values and the Swift AttributeType")
    func attributeTypes() {
        #expect(NSAttributeType.integer16AttributeType.rawValue == 100)
        #expect(NSAttributeType.UUIDAttributeType.rawValue == 1100)
        #expect(NSAttributeType.transformableAttributeType.rawValue == 1800)
        let attribute = NSAttributeDescription()
        attribute.type = .uuid
        #expect(attribute.attributeType == .UUIDAttributeType)
        #expect(attribute.attributeValueClassName == "NSUUID")
        #expect(NSAttributeType(xmlName: "Integer 64") == .integer64AttributeType)
        #expect(NSDeleteRule.cascadeDeleteRule.rawValue == 2)
    }

    @Test("Version hashes are stable, 32 bytes, and change with what Apple's algorithm covers")
    func versionHashes() {
        let first = TestModels.todoModel().entityVersionHashesByName
        let second = TestModels.todoModel().entityVersionHashesByName
        #expect(first == second)
        #expect(first.values.allSatisfy { $0.count == 32 })
        let changed = TestModels.todoModel()
        (changed.entitiesByName["TagEntity"]!.attributesByName["name"]!).isOptional = false
        #expect(changed.entityVersionHashesByName["TagEntity"] != first["TagEntity"])
        #expect(changed.entityVersionHashesByName["TodoEntity"] == first["TodoEntity"])
    }

    @Test("entityVersionHashesByName follows edits while the model is editable and equals each entity's versionHash once frozen")
    func versionHashesBeforeAndAfterFreezing() {
        let model = TestModels.todoModel()
        let before = model.entityVersionHashesByName
        model.entitiesByName["TagEntity"]!.versionHashModifier = "2"
        let edited = model.entityVersionHashesByName
        #expect(edited["TagEntity"] != before["TagEntity"])
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        let frozen = model.entityVersionHashesByName
        #expect(frozen == edited)
        #expect(model.entityVersionHashesByName == frozen)
        #expect(frozen == Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name!, $0.versionHash) }))
    }

    @Test("defaultDirectoryURL follows XDG_DATA_HOME on Linux")
    func defaultDirectory() {
        let url = NSPersistentContainer.defaultDirectoryURL()
        #if os(Linux)
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            #expect(url.path == xdg)
        } else {
            #expect(url.path.hasSuffix("/.local/share"))
        }
        #endif
        let container = NSPersistentContainer(name: "Todos", managedObjectModel: TestModels.todoModel())
        #expect(container.persistentStoreDescriptions.first?.url?.lastPathComponent == "Todos.sqlite")
        #expect(container.persistentStoreDescriptions.first?.type == NSSQLiteStoreType)
    }
}

@Suite("Model copies and merges")
struct ModelCopyTests {
    @Test("Merging copies entities; the sources stay intact and copies point at their own properties")
    func mergeAndCopy() throws {
        let todo = TestModels.todoModel()
        todo.entitiesByName["TagEntity"]!.uniquenessConstraints = [["name"]]
        let nameProperty = todo.entitiesByName["TagEntity"]!.propertiesByName["name"]!
        todo.entitiesByName["TagEntity"]!.indexes = [NSFetchIndexDescription(name: "byName", elements: [
            NSFetchIndexElementDescription(property: nameProperty, collationType: .binary),
        ])]
        let people = TestModels.personModel()
        let merged = try #require(NSManagedObjectModel(byMerging: [todo, people]))
        #expect(Set(merged.entitiesByName.keys) == ["TodoEntity", "TagEntity", "LocationEntity", "Person"])
        #expect(todo.entities.count == 3 && todo.entities.allSatisfy { $0.managedObjectModel === todo })
        let mergedTag = try #require(merged.entitiesByName["TagEntity"])
        #expect(mergedTag.indexes.first?.elements.first?.property === mergedTag.propertiesByName["name"])
        #expect(mergedTag.indexes.first?.elements.first?.property !== nameProperty)
        #expect(mergedTag.uniquenessConstraintNames == [["name"]])
        #expect(merged.entitiesByName["Person"]?.relationshipsByName["mother"]?.inverseRelationship?.name == "children")
        #expect(NSManagedObjectModel(byMerging: [todo, todo]) == nil)
    }

    @Test("Derived attributes are read-only")
    func derived() {
        #expect(NSDerivedAttributeDescription().isReadOnly)
    }
}

@Suite("Layout key lookup")
struct LayoutLookupTests {
    @Test("index(forKey:) agrees with the dictionary for short, long, built and non-ASCII keys")
    func agrees() {
        let names = ["i0", "title", "a_rather_long_property_name", "café", "x"]
        let entity = TestModels.entity("E", names.map { TestModels.attribute($0, .stringAttributeType) })
        let model = NSManagedObjectModel()
        model.entities = [entity]
        model.freeze()
        let layout = entity.layout
        for name in names {
            #expect(layout.index(forKey: name) == layout.indexByName[name])
            let built = String(name.reversed().reversed())
            #expect(layout.index(forKey: built) == layout.indexByName[name])
        }
        for missing in ["i1", "", "titl", "a_rather_long_property_nam", "cafe", "X"] {
            #expect(layout.index(forKey: missing) == nil)
        }
    }
}
