import Foundation

// MARK: - Destroying, replacing and migrating stores

extension NSPersistentStoreCoordinator {
    /// Deletes the store at a URL: for SQLite, the database, its `-wal` and `-shm` files and its
    /// external-data folder. A store of this coordinator at that URL is removed first.
    ///
    /// Only a regular file that is a store of the type is deleted (a custom store's folder too):
    /// `/dev/null`, another device, a FIFO, a socket or a symbolic link is refused and left
    /// alone, whoever the process runs as.
    ///
    /// - Throws: `NSFileReadNoSuchFileError` (260) when there is no store at the URL, as Apple's
    ///   does; `NSPersistentStoreInvalidTypeError` (134000) when the path is not a store of the
    ///   type (it is left alone) or the type is unknown.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/destroypersistentstore(at:oftype:options:)>.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        if let store = persistentStore(for: url) { try remove(store) }
        switch storeType {
        case NSSQLiteStoreType:
            try SQLiteStoreFiles.destroy(at: url)
        case NSInMemoryStoreType:
            return
        default:
            guard Self.registeredStoreTypes[storeType] != nil else {
                throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Cannot destroy a store of the unknown type '\(storeType)'.")
            }
            // A custom store keeps its data in the file (or folder) at its URL.
            try StoreFileKind(path: url.path).requireStore(at: url, toActOn: "destroy", accepting: [.regular, .directory])
            try FileManager.default.removeItem(at: url)
        }
    }

    /// Deletes the store at a URL (iOS 15 spelling with `StoreType`).
    public func destroyPersistentStore(at url: URL, type: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyPersistentStore(at: url, ofType: type.rawValue, options: options)
    }

    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`: for SQLite,
    /// a consistent copy through SQLite's backup API (rows still in the source's WAL included),
    /// with its external-data folder. The same URL for both does nothing.
    ///
    /// - Throws: 260 when there is no source store, 259/134000 when a file is not a store; the
    ///   destination is then unchanged.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/replacepersistentstore(at:destinationoptions:withpersistentstorefrom:sourceoptions:oftype:)>.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                     withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                     ofType storeType: String) throws {
        guard storeType == NSSQLiteStoreType else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Replacing a store is supported for '\(NSSQLiteStoreType)' stores, not '\(storeType)'.")
        }
        let timeout = (try? SQLiteStoreOptions(sourceOptions))?.busyTimeout ?? SQLiteStoreOptions.defaultBusyTimeout
        try SQLiteStoreFiles.replace(destinationURL, with: sourceURL, timeout: timeout)
    }

    /// Replaces the store at a URL with a copy of another (iOS 15 spelling with `StoreType`).
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                       withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                       type: NSPersistentStore.StoreType) throws {
        try replacePersistentStore(at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
                                   sourceOptions: sourceOptions, ofType: type.rawValue)
    }

    /// Moves a store to a new location, changing its type if asked: a new store is added at
    /// `url`, every object of `store` is copied into it (attributes and relationships), and
    /// `store` is removed from the coordinator. Returns the new store.
    ///
    /// - Throws: `NSPersistentStoreOperationError` when `store` is not this coordinator's; any
    ///   error of adding or saving the new store, after which the new store is removed again and
    ///   `store` stays.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/migratepersistentstore(_:to:options:withtype:)>.
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                     withType storeType: String) throws -> NSPersistentStore {
        guard store.persistentStoreCoordinator === self else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store \(store) does not belong to this coordinator.")
        }
        let target = try addPersistentStore(ofType: storeType, configurationName: store.configurationName, at: url, options: options)
        do {
            try copyObjects(from: store, to: target)
        } catch {
            try? remove(target)
            throw error
        }
        try remove(store)
        return target
    }

    /// Moves a store to a new location (iOS 15 spelling with `StoreType`).
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
                                       type: NSPersistentStore.StoreType) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: type.rawValue)
    }

    /// Copies every object of one store into another in one save, relationships included.
    private func copyObjects(from source: NSPersistentStore, to target: NSPersistentStore) throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = self
        try context.performAndWait {
            var copies: [NSManagedObjectID: NSManagedObject] = [:]
            var originals: [NSManagedObject] = []
            for entity in managedObjectModel.entities where !entity.isAbstract {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                request.includesSubentities = false
                request.affectedStores = [source]
                for original in try context.fetch(request) {
                    let copy = NSManagedObject(entity: entity, insertInto: context)
                    context.assign(copy, to: target)
                    // Derived attributes are read-only; the target computes them when it saves.
                    for (name, attribute) in entity.attributesByName where !attribute.isTransient && !(attribute is NSDerivedAttributeDescription) {
                        copy.setValue(original.value(forKey: name), forKey: name)
                    }
                    copies[original.objectID] = copy
                    originals.append(original)
                }
            }
            for original in originals {
                guard let copy = copies[original.objectID] else { continue }
                for (name, relationship) in original.entity.relationshipsByName where !relationship.isTransient {
                    let value = original.value(forKey: name)
                    if !relationship.isToMany {
                        copy.setValue((value as? NSManagedObject).flatMap { copies[$0.objectID] }, forKey: name)
                    } else if relationship.isOrdered, let ordered = value as? NSOrderedSet {
                        copy.setValue(NSOrderedSet(array: ordered.array.compactMap { ($0 as? NSManagedObject).flatMap { copies[$0.objectID] } }), forKey: name)
                    } else if let members = value as? Set<NSManagedObject> {
                        copy.setValue(Set(members.compactMap { copies[$0.objectID] }), forKey: name)
                    }
                }
            }
            try context.save()
        }
    }
}
