import Foundation

/// A store whose object IDs name reference objects of the store's choosing: `NSIncrementalStore`
/// and `NSAtomicStore`. Both make IDs, read references back and print URIs the same way.
package protocol ReferenceObjectStore: NSPersistentStore {
    /// The reference objects behind the store's object IDs.
    var references: ReferenceObjectTable { get }
}

extension ReferenceObjectStore {
    /// The object ID of an entity's instance named by `reference`; equal references give equal IDs.
    package func makeObjectID(for entity: NSEntityDescription, reference: Any) -> NSManagedObjectID {
        // The coordinator's frozen entity, so the ID matches those the context makes.
        let entity = entity.name.flatMap { persistentStoreCoordinator?.managedObjectModel.entitiesByName[$0] } ?? entity
        let root = entity.rootEntity
        return NSManagedObjectID(entity: entity, root: root, primaryKey: references.key(for: reference, root: root), handle: handle)
    }

    /// The reference object an ID of this store was made with; an ID of another store, or a
    /// temporary ID, is a programmer error (Apple raises).
    package func reference(of objectID: NSManagedObjectID, method: String) -> Any {
        if !objectID.isTemporaryID {
            if objectID.storeHandle === handle, let reference = references.reference(for: objectID.primaryKey) { return reference }
            // An ID from another coordinator's instance of this store (same UUID) names the same record.
            if let other = objectID.persistentStore as? any ReferenceObjectStore, other !== self, other.identifier == identifier,
               let reference = other.references.reference(for: objectID.primaryKey) {
                return reference
            }
        }
        CoreDataError.programmerError("\(method): \(objectID) is not an object ID of the store \(type) \(identifier ?? "").")
    }

    /// The text after `p` in an ID's URI: the reference object.
    package func referenceURIComponent(for objectID: NSManagedObjectID) -> String? {
        references.reference(for: objectID.primaryKey).map { "\($0)" }
    }

    /// The ID a URI's `p…` component names; a reference not named yet in this process is named
    /// now (numbers come back as numbers).
    package func objectID(forReferenceURIComponent component: String, entity: NSEntityDescription) -> NSManagedObjectID? {
        if let key = references.existingKey(text: component, root: entity.rootEntity) {
            return NSManagedObjectID(entity: entity, primaryKey: key, handle: handle)
        }
        let reference: Any = Int64(component).map { $0 as Any } ?? component
        return makeObjectID(for: entity, reference: reference)
    }
}
