import OpenCoreData

/// The tutorial's one entity: a to-do with an id, a title and a done flag.
final class Todo: NSManagedObject {
    @Managed var id: UUID?
    @Managed var title: String?
    @Managed var isDone: Bool
}

/// The model, built in code (the tutorial draws it in Xcode's editor).
enum TodoModel {
    static func make() -> NSManagedObjectModel {
        let entity = NSEntityDescription()
        entity.name = "Todo"
        entity.managedObjectClassName = NSStringFromClass(Todo.self)
        entity.properties = [
            attribute("id", .UUIDAttributeType),
            attribute("title", .stringAttributeType),
            attribute("isDone", .booleanAttributeType, default: false),
        ]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }

    private static func attribute(_ name: String, _ type: NSAttributeType, default value: Any? = nil) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = value == nil
        attribute.defaultValue = value
        return attribute
    }
}
