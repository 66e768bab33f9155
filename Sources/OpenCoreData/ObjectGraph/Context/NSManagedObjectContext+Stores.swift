import Foundation

// MARK: - Choosing the store of new objects

extension NSManagedObjectContext {
    /// Specifies the store in which a newly inserted object will be saved.
    ///
    /// The object gets its permanent ID in `store` at once, so the next save writes it there.
    /// As Apple raises an exception, it stops with a message when `object` is not a managed
    /// object inserted into this context and not yet saved, or when `store` does not belong to
    /// the context's coordinator or does not hold the object's entity.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/assign(_:to:)>.
    public func assign(_ object: Any, to store: NSPersistentStore) {
        guard let object = object as? NSManagedObject else {
            CoreDataError.programmerError("assign(_:to:) takes a managed object, got \(type(of: object)).")
        }
        let entityName = object.entity.name ?? "?"
        guard object._context === self, object.insertedFlag else {
            CoreDataError.programmerError("An object of entity '\(entityName)' can be assigned to a store only while it is newly inserted into this context.")
        }
        guard let coordinator = persistentStoreCoordinator, store.persistentStoreCoordinator === coordinator else {
            CoreDataError.programmerError("The store \(store.url?.path ?? store.type) does not belong to this context's coordinator.")
        }
        guard !coordinator.stores(for: object.entity, affectedStores: [store]).isEmpty else {
            CoreDataError.programmerError("The store \(store.url?.path ?? store.type) does not hold entity '\(entityName)'.")
        }
        guard object._objectID.isTemporaryID || object._objectID.storeHandle !== store.handle else { return }
        do {
            guard let id = try coordinator.permanentIDs(for: [object.entity], in: store).first else { return }
            assignPermanentID(id, to: object)
        } catch {
            // Reserving a key failed in the store itself (I/O, a read-only file): not the
            // caller's mistake, and Apple's method cannot report it. The save reports it.
            Log.objectGraph.error("Could not assign an object of entity '\(entityName)' to \(store.url?.path ?? store.type): \(error)")
        }
    }
}
