import Foundation

extension NSEntityDescription {
    /// The entity with a name in the model of a context's coordinator.
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName]
    }

    /// Creates and inserts an object of the named entity, as an instance of the entity's class.
    ///
    /// An unknown entity name stops with a message, as Apple raises an exception.
    public class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            CoreDataError.programmerError("insertNewObject(forEntityName:into:): no entity named '\(entityName)' in the context's model.")
        }
        let type = ClassRegistry.shared.objectClass(for: entity)
        return type.init(entity: entity, insertInto: context)
    }
}
