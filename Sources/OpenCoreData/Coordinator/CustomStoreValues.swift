import Foundation

/// Conversions between the public values custom stores deal in (`String`, `NSNumber`,
/// `NSManagedObjectID`, collections of IDs…) and the store values of row snapshots.
enum CustomStoreValues {
    /// The store value of an attribute's public value; throws when the type is wrong, since a
    /// custom store's values come from outside.
    static func attributeValue(_ value: Any?, index: Int, layout: EntityLayout, entity: NSEntityDescription) throws -> StoreValue {
        guard let value, !(value is NSNull) else { return .null }
        let type = layout.attributeTypes[index]
        if AttributeConversion.isCustom(type) {
            return TransformableCoding.encode(value, attribute: layout.properties[index] as? NSAttributeDescription)
        }
        guard let converted = AttributeConversion.storeValue(value, type: type) else {
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "The store gave \(AttributeConversion.typeName(of: value)) for attribute '\(layout.properties[index].name)' of entity '\(entity.name ?? "?")'.")
        }
        return converted
    }

    /// The destinations a relationship value names: an ID, `NSNull`/nil, or a collection of IDs
    /// (or of managed objects or atomic-store cache nodes, whose IDs are taken).
    static func objectIDs(in value: Any?, relationship: NSRelationshipDescription) throws -> [NSManagedObjectID] {
        guard let value, !(value is NSNull) else { return [] }
        if let id = value as? NSManagedObjectID { return [id] }
        if let object = value as? NSManagedObject { return [object.objectID] }
        if let node = value as? NSAtomicStoreCacheNode { return [node.objectID] }
        let elements: [Any]
        if let array = value as? [Any] {
            elements = array
        } else if let set = value as? Set<NSAtomicStoreCacheNode> {
            // A set has no order: in the order the IDs were made, as stores list rows.
            elements = set.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
        } else if let set = value as? Set<NSManagedObjectID> {
            elements = Array(set)
        } else if let set = value as? Set<NSManagedObject> {
            elements = Array(set)
        } else if let set = value as? NSSet {
            elements = set.allObjects
        } else if let ordered = value as? NSOrderedSet {
            elements = ordered.array
        } else if let array = value as? NSArray {
            elements = array.map { $0 }
        } else {
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "The store gave \(type(of: value)) for relationship '\(relationship.name)'; expected NSManagedObjectID, NSNull or a collection of NSManagedObjectIDs.")
        }
        return try elements.map { element in
            if let id = element as? NSManagedObjectID { return id }
            if let object = element as? NSManagedObject { return object.objectID }
            if let node = element as? NSAtomicStoreCacheNode { return node.objectID }
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "The store gave \(type(of: element)) among the destinations of relationship '\(relationship.name)'.")
        }
    }

    /// The object IDs of a fetch result: IDs, or managed objects whose IDs are taken.
    static func objectIDs(inFetchResult result: Any) throws -> [NSManagedObjectID] {
        guard let elements = result as? [Any] else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "A custom store's fetch returned \(type(of: result)), not an array.")
        }
        return try elements.map { element in
            if let id = element as? NSManagedObjectID { return id }
            if let object = element as? NSManagedObject { return object.objectID }
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "A custom store's fetch returned \(type(of: element)); expected NSManagedObject or NSManagedObjectID.")
        }
    }

    /// A context on the store's coordinator for the custom store's calls: the objects it holds
    /// stand for rows the store reads or writes, and it goes away with the call.
    static func scratchContext(for store: NSPersistentStore) throws -> NSManagedObjectContext {
        guard let coordinator = store.persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store \(store.type) was removed from its coordinator.")
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A managed object in `context` holding a row's values, as the store sees it in a save request.
    static func stagedObject(for snapshot: RowSnapshot, in context: NSManagedObjectContext) -> NSManagedObject {
        // A deleted row the context never read has no values: a plain fault loads them if asked.
        guard snapshot.values.count == snapshot.objectID.entity.layout.slotCount else {
            return context.object(with: snapshot.objectID)
        }
        return context.registeredObject(for: snapshot, refresh: false)
    }
}
