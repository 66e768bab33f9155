import Foundation
import OpenCoreData

// The Core Data models of the workloads, built in code. Each has a KVC flavour (entities of
// class NSManagedObject, as in GRDB's Core Data tests) and a typed flavour whose entities map
// to the @Managed subclasses below.

// MARK: - Typed classes

final class ItemObject: NSManagedObject {
    @Managed var i0: Int64?
    @Managed var i1: Int64?
    @Managed var i2: Int64?
    @Managed var i3: Int64?
    @Managed var i4: Int64?
    @Managed var i5: Int64?
    @Managed var i6: Int64?
    @Managed var i7: Int64?
    @Managed var i8: Int64?
    @Managed var i9: Int64?
}

final class UserObject: NSManagedObject {
    @Managed var id: UUID?
    @Managed var firstName: String?
    @Managed var lastName: String?
    @Managed var age: Int64
}

final class ParentObject: NSManagedObject {
    @Managed var name: String?
    @Managed var children: Set<ChildObject>
}

final class ChildObject: NSManagedObject {
    @Managed var name: String?
    @Managed var value: Int64
    @Managed var parent: ParentObject?
}

final class ThingObject: NSManagedObject {
    @Managed var name: String?
    @Managed var category: Int64
    @Managed var value: Int64
}

final class WordObject: NSManagedObject {
    @Managed var name: String?
}

/// The two ways the suite drives OpenCoreData.
enum Style: Sendable {
    case kvc, typed
}

// MARK: - Models

enum Models {
    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        if let defaultValue { attribute.defaultValue = defaultValue }
        return attribute
    }

    static func entity(_ name: String, typed: NSManagedObject.Type?, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        if let typed { entity.managedObjectClassName = String(reflecting: typed) }
        entity.properties = properties
        return entity
    }

    static func model(_ entities: [NSEntityDescription], classes: [NSManagedObject.Type], style: Style) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = entities
        if style == .typed { model.registerManagedObjectClasses(classes) }
        return model
    }

    /// GRDB's `PerformanceModel`: entity `Item`, ten optional Integer 64 attributes `i0`…`i9`.
    static func item(_ style: Style) -> NSManagedObjectModel {
        let item = entity("Item", typed: style == .typed ? ItemObject.self : nil,
                          (0..<10).map { attribute("i\($0)", .integer64AttributeType) })
        return model([item], classes: [ItemObject.self], style: style)
    }

    /// W2 and W10: `User` with a unique UUID `id`.
    static func user(_ style: Style) -> NSManagedObjectModel {
        let user = entity("User", typed: style == .typed ? UserObject.self : nil, [
            attribute("id", .UUIDAttributeType),
            attribute("firstName", .stringAttributeType),
            attribute("lastName", .stringAttributeType),
            attribute("age", .integer64AttributeType, optional: false, defaultValue: 0),
        ])
        user.uniquenessConstraints = [["id"]]
        return model([user], classes: [UserObject.self], style: style)
    }

    /// W3 and W7: `Parent` ⇄ `Child`, to-many `children` (Cascade) with inverse to-one `parent` (Nullify).
    static func family(_ style: Style) -> NSManagedObjectModel {
        let parent = entity("Parent", typed: style == .typed ? ParentObject.self : nil, [attribute("name", .stringAttributeType)])
        let child = entity("Child", typed: style == .typed ? ChildObject.self : nil, [
            attribute("name", .stringAttributeType),
            attribute("value", .integer64AttributeType, optional: false, defaultValue: 0),
        ])
        let children = NSRelationshipDescription()
        children.name = "children"
        children.destinationEntity = child
        children.minCount = 0
        children.maxCount = 0
        children.deleteRule = .cascadeDeleteRule
        let toParent = NSRelationshipDescription()
        toParent.name = "parent"
        toParent.destinationEntity = parent
        toParent.maxCount = 1
        toParent.deleteRule = .nullifyDeleteRule
        children.inverseRelationship = toParent
        toParent.inverseRelationship = children
        parent.properties += [children]
        child.properties += [toParent]
        return model([parent, child], classes: [ParentObject.self, ChildObject.self], style: style)
    }

    /// W5, W6, W8: `Thing(name, category, value)`, with or without a fetch index on `category`.
    static func thing(_ style: Style, indexed: Bool) -> NSManagedObjectModel {
        let category = attribute("category", .integer64AttributeType, optional: false, defaultValue: 0)
        let thing = entity("Thing", typed: style == .typed ? ThingObject.self : nil, [
            attribute("name", .stringAttributeType),
            category,
            attribute("value", .integer64AttributeType, optional: false, defaultValue: 0),
        ])
        if indexed {
            thing.indexes = [NSFetchIndexDescription(name: "byCategory", elements: [NSFetchIndexElementDescription(property: category, collationType: .binary)])]
        }
        return model([thing], classes: [ThingObject.self], style: style)
    }

    /// W5's prefix search: `Word(name)`.
    static func word(_ style: Style) -> NSManagedObjectModel {
        let word = entity("Word", typed: style == .typed ? WordObject.self : nil, [attribute("name", .stringAttributeType)])
        return model([word], classes: [WordObject.self], style: style)
    }
}

// MARK: - Stacks

/// A coordinator with one SQLite store and a main-queue context, as GRDB's Core Data tests use.
final class CoreDataStack {
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    let context: NSManagedObjectContext

    init(model: NSManagedObjectModel, url: URL) throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    /// Removes the store from its coordinator, closing the file.
    func close() throws {
        try coordinator.remove(store)
    }
}
