import Foundation

// MARK: - Saving

extension NSManagedObjectContext {
    /// Writes the unsaved changes to the stores, all or nothing.
    ///
    /// Runs delete rules, `willSave`, validation, then one store transaction. Conflicts are
    /// resolved by `mergePolicy` or reported (`NSManagedObjectMergeError` 133020,
    /// `NSManagedObjectConstraintMergeError` 133021).
    /// - Throws: a validation or store error; when a save fails nothing is written and the
    ///   context keeps its changes.
    public func save() throws {
        guard !isSaving else {
            throw CoreDataError.make(NSCoreDataError, "save() was called while the context was already saving (for example from willSave()).")
        }
        isSaving = true
        defer { isSaving = false }
        processPendingChanges()
        // A fault that could not be fulfilled is reported by the next save, and an object whose
        // values were never read is never written.
        try throwPendingReadFailure()
        guard hasChanges else { return }
        try checkChangedObjectsWereRead()
        let parent = parentStorage
        guard parent != nil || persistentStoreCoordinator != nil else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The context has no persistent store coordinator to save to.")
        }
        NotificationCenter.default.post(name: .NSManagedObjectContextWillSave, object: self)
        for object in changedObjectsInOrder() { object.willSave() }
        processPendingChanges()
        for object in insertionOrder { object.computeDerivedAttributes() }
        for object in Array(updated.values) where !object.deletedFlag { object.computeDerivedAttributes() }
        if !defersValidation { try validateChanges() }
        // A child saves into its parent; only the root context writes to the stores.
        if let parent { return try pushChanges(to: parent) }
        guard let coordinator = persistentStoreCoordinator else { return }

        var attempts = 0
        while true {
            attempts += 1
            let request = try makeSaveRequest()
            do {
                let result = try coordinator.save(request)
                finishSave(result, request: request)
                return
            } catch let conflicts as StoreSaveConflicts {
                // Other writers may commit between a resolution and the next attempt; after
                // `maximumSaveAttempts` the conflicts left are reported as Apple's error policy
                // reports them (133020/133021 with their conflict list), never as this type.
                if attempts < Self.maximumSaveAttempts {
                    try resolve(conflicts)
                    processPendingChanges()
                } else {
                    try resolve(conflicts, policy: .error)
                    throw CoreDataError.make(NSManagedObjectMergeError, "Could not save: the stores kept reporting conflicts after \(attempts) attempts.")
                }
            }
        }
    }

    /// How many times a save is tried while its merge policy resolves conflicts.
    static let maximumSaveAttempts = 8

    /// Inserted, then updated, then deleted objects.
    func changedObjectsInOrder() -> [NSManagedObject] {
        insertionOrder + Array(updated.values) + Array(deleted.values)
    }

    // MARK: - Validation

    /// Validates every changed object; several failures are reported together.
    func validateChanges() throws {
        var errors: [NSError] = []
        func collect(_ body: () throws -> Void) {
            do { try body() } catch let error as NSError {
                if error.code == NSValidationMultipleErrorsError, let detailed = error.userInfo[NSDetailedErrorsKey] as? [NSError] {
                    errors.append(contentsOf: detailed)
                } else {
                    errors.append(error)
                }
            }
        }
        for object in insertionOrder { collect { try object.validateForInsert() } }
        for object in updated.values { collect { try object.validateForUpdate() } }
        for object in deleted.values { collect { try object.validateForDelete() } }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            throw CoreDataError.make(NSValidationMultipleErrorsError, "Multiple validation errors occurred.",
                                     userInfo: [NSDetailedErrorsKey: errors])
        }
    }

    // MARK: - Building the store request

    func makeSaveRequest() throws -> StoreSaveRequest {
        var request = StoreSaveRequest()
        request.transactionAuthor = transactionAuthor
        request.contextName = name
        for object in insertionOrder {
            request.inserted.append(RowSnapshot(objectID: object.objectID, version: 1, values: object.currentStoreValues()))
        }
        for object in updated.values where !object.deletedFlag && !object.insertedFlag {
            guard let committed = object.committed else { continue }
            var changed: [Int] = []
            for index in 0..<object.layout.slotCount where object.layout.properties[index].isStored && object.slotDiffersFromCommitted(index) {
                changed.append(index)
            }
            if changed.isEmpty { continue }
            // Wrapping: the version is read from the store file (Z_OPT) and may be Int64.max; only
            // its equality with the stored one matters to the optimistic-locking check.
            request.updated.append(StoreUpdate(
                snapshot: RowSnapshot(objectID: object.objectID, version: committed.version &+ 1, values: object.currentStoreValues()),
                expectedVersion: committed.version,
                changedIndices: changed,
                committedValues: committed.values))
        }
        for object in deleted.values {
            request.deleted.append(StoreDelete(objectID: object.objectID, expectedVersion: object.committed?.version ?? 0,
                                               committedValues: object.committed?.values ?? []))
        }
        return request
    }

    // MARK: - After a successful save

    func finishSave(_ result: StoreSaveResult, request: StoreSaveRequest) {
        let insertedObjects = insertionOrder
        let updatedObjects = Array(updated.values).filter { !$0.deletedFlag && !$0.insertedFlag }
        let deletedObjects = Array(deleted.values)
        let map = result.permanentIDs
        assignPermanentIDs(insertedObjects.compactMap { object in map.permanentID(for: object.objectID).map { (object, $0) } })
        // The request's snapshots are the saved rows; only references to new objects change IDs.
        // Inserted rows are in insertion order, one per inserted object.
        for (index, object) in insertedObjects.enumerated() {
            object.insertedFlag = false
            let values = index < request.inserted.count ? map.remapped(request.inserted[index].values) : object.currentStoreValues()
            object.committed = RowSnapshot(objectID: object.objectID, version: 1, values: values)
            object.markRelationshipsCommitted()
        }
        var written: [ObjectIdentifier: StoreValues] = [:]
        for update in request.updated {
            if let object = registry[update.snapshot.objectID]?.takeUnretainedValue() {
                written[ObjectIdentifier(object)] = map.remapped(update.snapshot.values)
            }
        }
        for object in updatedObjects {
            // An object whose changes cancelled out (a member removed and added back) was not
            // written, so the store still has its old version.
            let wasWritten = written[ObjectIdentifier(object)] != nil
            let version = (object.committed?.version ?? 0) &+ (wasWritten ? 1 : 0)  // wrapping, as in makeSaveRequest
            let values = written[ObjectIdentifier(object)] ?? object.currentStoreValues()
            object.committed = RowSnapshot(objectID: object.objectID, version: version, values: values)
            object.markRelationshipsCommitted()
        }
        clearChangeSets()
        for object in deletedObjects {
            object.deletedFlag = false
            unregister(object)
        }
        persistentStoreCoordinator?.updateCachedSnapshots(updatedObjects.compactMap(\.committed),
                                                          removing: deletedObjects.map(\.objectID) + result.derivedValueChanges)
        for object in insertedObjects + updatedObjects + deletedObjects { object.didSave() }

        let insertedIDs = Set(insertedObjects.map(\.objectID))
        let updatedIDs = Set(updatedObjects.map(\.objectID))
        let deletedIDs = Set(deletedObjects.map(\.objectID))
        var userInfo: [AnyHashable: Any] = [
            NSInsertedObjectsKey: Set(insertedObjects),
            NSUpdatedObjectsKey: Set(updatedObjects),
            NSDeletedObjectsKey: Set(deletedObjects),
            NSInsertedObjectIDsKey: insertedIDs,
            NSUpdatedObjectIDsKey: updatedIDs,
            NSDeletedObjectIDsKey: deletedIDs,
        ]
        var idInfo: [AnyHashable: Any] = [NSInsertedObjectIDsKey: insertedIDs, NSUpdatedObjectIDsKey: updatedIDs, NSDeletedObjectIDsKey: deletedIDs]
        // Stores that track history name the transaction this save recorded (Apple's "historyToken").
        if !result.historyTransactionNumbers.isEmpty {
            let token = NSPersistentHistoryToken(transactionNumbers: result.historyTransactionNumbers)
            userInfo[NSPersistentHistoryTokenKey] = token
            idInfo[NSPersistentHistoryTokenKey] = token
        }
        // A pinned context moves on to the generation just after its save (Apple's DidSave
        // `queryGeneration`: "query generation token after the save").
        if let generation = advanceQueryGenerationAfterSave() {
            userInfo[NSManagedObjectContextQueryGenerationKey] = generation
            idInfo[NSManagedObjectContextQueryGenerationKey] = generation
        }
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSave, object: self, userInfo: userInfo)
        NotificationCenter.default.post(name: NSManagedObjectContext.didSaveObjectIDsNotification, object: self, userInfo: idInfo)
        let changes = SavedChanges(inserted: insertedIDs, updated: updatedIDs, deleted: deletedIDs)
        persistentStoreCoordinator?.contextDidSave(self, changes: changes)
        notifyChildren(of: changes)
    }

    // MARK: - Conflicts

    /// Resolves a store's conflicts through `policy` (the context's merge policy by default),
    /// which throws Apple's merge errors when it reports them instead.
    func resolve(_ conflicts: StoreSaveConflicts, policy: NSMergePolicy? = nil) throws {
        let policy = policy ?? (mergePolicy as? NSMergePolicy) ?? .error
        if !conflicts.optimistic.isEmpty {
            let mergeConflicts = conflicts.optimistic.compactMap { conflict -> NSMergeConflict? in
                guard let object = registry[conflict.objectID]?.takeUnretainedValue() else { return nil }
                return NSMergeConflict(source: object, newVersion: Int(conflict.current?.version ?? 0),
                                       oldVersion: Int(conflict.expectedVersion),
                                       cachedSnapshot: object.committedValues(forKeys: nil),
                                       persistedSnapshot: conflict.current.map { object.publicValues(of: $0) },
                                       storeSnapshot: conflict.current)
            }
            try policy.resolve(optimisticLockingConflicts: mergeConflicts)
        }
        if !conflicts.constraints.isEmpty {
            let constraintConflicts = conflicts.constraints.map { violation -> NSConstraintConflict in
                let objects = violation.conflictingObjectIDs.compactMap { registry[$0]?.takeUnretainedValue() }
                let databaseObject = violation.databaseSnapshot.map { registeredObject(for: $0, refresh: false) }
                return NSConstraintConflict(constraint: violation.constraint, databaseObject: databaseObject,
                                            databaseSnapshot: violation.databaseSnapshot.flatMap { snapshot in databaseObject?.publicValues(of: snapshot) },
                                            conflictingObjects: objects,
                                            conflictingSnapshots: objects.map { $0.committedValues(forKeys: nil) },
                                            storeSnapshot: violation.databaseSnapshot)
            }
            try policy.resolve(constraintConflicts: constraintConflicts)
        }
    }
}

// MARK: - Store values of an object

extension NSManagedObject {
    /// The object's current values in store form, indexed by slot.
    package func currentStoreValues() -> StoreValues {
        fireFaultIfNeeded()
        if let values = plainStoreValues() { return values }
        var values = StoreValues()
        values.reserveCapacity(layout.slotCount)
        for index in 0..<layout.slotCount {
            let property = layout.properties[index]
            if property.isTransient {
                values.append(.null)
                continue
            }
            switch slots[index] {
            case .value(let value): values.append(value)
            case .custom(let value):
                values.append(TransformableCoding.encode(value, attribute: property as? NSAttributeDescription))
            case .toOne(let object): values.append(object.map { .objectID($0.objectID) } ?? .null)
            case .toMany(let storage): values.append(.objectIDs(storage.objects.map(\.objectID)))
            case .unloadedToMany: values.append(.unloaded)
            }
        }
        return values
    }

    /// `currentStoreValues()` for an entity whose every property is a stored attribute kept in
    /// store form: the slots' values as they are, in one allocation, or the committed row itself
    /// while the object reads it (no allocation). Nil for other entities.
    private func plainStoreValues() -> StoreValues? {
        let layout = self.layout
        let count = layout.slotCount
        guard count > 0, layout.readsCommittedValues, layout.storedAttributeIndices.count == count else { return nil }
        if readsCommitted, let values = committed?.values, values.count == count { return values }
        if readsCommitted { materializeSlots() }
        // Read in place: iterating the slot array copied (and destroyed) every slot.
        // Unsafe invariants: `slots` is used only inside the closure, while `storedSlots` is not
        // mutated; the loop below initializes all `count` values (every slot was checked to be a
        // `.value` first), as `StoreValues(unsafeUninitializedCount:)` requires.
        return storedSlots.withUnsafeBufferPointer { slots -> StoreValues? in
            guard slots.count == count else { return nil }
            for index in 0..<count {
                guard case .value = slots[index] else { return nil }
            }
            return StoreValues(unsafeUninitializedCount: count) { base in
                var holdsReferences = false
                for index in 0..<count {
                    guard case .value(let value) = slots[index] else { preconditionFailure("checked above") }
                    if value.holdsReference { holdsReferences = true }
                    (base + index).initialize(to: value)
                }
                return holdsReferences
            }
        }
    }

    /// The public values of a snapshot, keyed by property name (for conflict reports).
    package func publicValues(of snapshot: RowSnapshot) -> [String: Any] {
        var result: [String: Any] = [:]
        for (index, property) in layout.properties.enumerated() where property.isStored && !layout.isRelationship[index] {
            guard index < snapshot.values.count else { continue }
            let value = snapshot.values[index]
            if AttributeConversion.isCustom(layout.attributeTypes[index]) {
                if case .data(let data) = value { result[property.name] = TransformableCoding.decode(data, attribute: property as? NSAttributeDescription) ?? NSNull() }
                continue
            }
            result[property.name] = AttributeConversion.publicValue(value, type: layout.attributeTypes[index]) ?? NSNull()
        }
        return result
    }

    /// Records the loaded to-many destinations as saved.
    func markRelationshipsCommitted() {
        for index in layout.toManyIndices {
            if case .toMany(let storage) = slots[index] {
                storage.committedIDs = storage.objects.map(\.objectID)
            }
        }
    }
}
