import Foundation
@testable import OpenCoreData

/// Models built in code for the object-graph and store suites.
enum TestModels {
    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil, transient: Bool = false) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = defaultValue
        attribute.isTransient = transient
        return attribute
    }

    static func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool, optional: Bool = true,
                             ordered: Bool = false, deleteRule: NSDeleteRule = .nullifyDeleteRule,
                             minCount: Int = 0, maxCount: Int? = nil) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = maxCount ?? (toMany ? 0 : 1)
        relationship.minCount = minCount
        relationship.isOptional = optional
        relationship.isOrdered = ordered
        relationship.deleteRule = deleteRule
        return relationship
    }

    static func inverse(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
        a.inverseRelationship = b
        b.inverseRelationship = a
    }

    static func entity(_ name: String, className: String? = nil, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = className ?? "NSManagedObject"
        entity.properties = properties
        return entity
    }

    /// The seed to-do model: Todo ↔ Tag (many-to-many), Todo → Location (to-one, inverse to-many).
    static func todoModel() -> NSManagedObjectModel {
        let todo = entity("TodoEntity", [
            attribute("todoId", .UUIDAttributeType),
            attribute("title", .stringAttributeType),
            attribute("done", .booleanAttributeType, optional: false, defaultValue: false),
            attribute("priority", .integer16AttributeType, defaultValue: 0),
            attribute("updatedAt", .dateAttributeType),
        ])
        let tag = entity("TagEntity", [attribute("tagId", .UUIDAttributeType), attribute("name", .stringAttributeType)])
        let location = entity("LocationEntity", [attribute("placeName", .stringAttributeType), attribute("latitude", .doubleAttributeType)])
        let tags = relationship("tags", to: tag, toMany: true)
        let todos = relationship("todos", to: todo, toMany: true)
        inverse(tags, todos)
        let todoLocation = relationship("location", to: location, toMany: false)
        let locationTodos = relationship("todos", to: todo, toMany: true)
        inverse(todoLocation, locationTodos)
        todo.properties += [tags, todoLocation]
        tag.properties += [todos]
        location.properties += [locationTodos]
        let model = NSManagedObjectModel()
        model.entities = [todo, tag, location]
        return model
    }

    /// People with reflexive relationships: mother / father / children, plus friends (many-to-many to self).
    static func personModel() -> NSManagedObjectModel {
        let person = entity("Person", [attribute("name", .stringAttributeType), attribute("age", .integer32AttributeType)])
        let mother = relationship("mother", to: person, toMany: false)
        let children = relationship("children", to: person, toMany: true)
        inverse(mother, children)
        let father = relationship("father", to: person, toMany: false)
        let friends = relationship("friends", to: person, toMany: true)
        inverse(friends, friends)
        person.properties += [mother, children, father, friends]
        let model = NSManagedObjectModel()
        model.entities = [person]
        return model
    }

    /// Delete-rule model: Owner has items with a configurable rule, and a Deny relationship.
    static func deleteRuleModel(rule: NSDeleteRule) -> NSManagedObjectModel {
        let owner = entity("Owner", [attribute("name", .stringAttributeType)])
        let item = entity("Item", [attribute("name", .stringAttributeType)])
        let part = entity("Part", [attribute("name", .stringAttributeType)])
        let items = relationship("items", to: item, toMany: true, deleteRule: rule)
        let itemOwner = relationship("owner", to: owner, toMany: false)
        inverse(items, itemOwner)
        let parts = relationship("parts", to: part, toMany: true, deleteRule: .cascadeDeleteRule)
        let partItem = relationship("item", to: item, toMany: false, deleteRule: .cascadeDeleteRule)
        inverse(parts, partItem)
        owner.properties += [items]
        item.properties += [itemOwner, parts]
        part.properties += [partItem]
        let model = NSManagedObjectModel()
        model.entities = [owner, item, part]
        return model
    }

    static func inMemoryContext(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
