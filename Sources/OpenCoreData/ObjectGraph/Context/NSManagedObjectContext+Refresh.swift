import Foundation

// MARK: - Refreshing and resetting

extension NSManagedObjectContext {
    /// Updates an object from its row: unchanged objects (or any, when `flag` is false) become
    /// faults that reload on next access; with `flag`, a changed object is reloaded at once and
    /// its pending changes are applied over the new values.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/refresh(_:mergechanges:)>:
    /// turning an object into a fault runs `willTurnIntoFault()`/`didTurnIntoFault()` and breaks
    /// its strong references to related objects; transient values survive only a merging
    /// refresh of a changed object. Objects inserted and not yet saved are left alone.
    public func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        guard object._context === self, !object.insertedFlag else { return }
        let latest = try? freshSnapshot(for: object.objectID)
        refresh(object, mergeChanges: flag, latest: latest ?? nil)
        // Observers (a fetched results controller) re-read it: its values may be the store's now.
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self,
                                        userInfo: [NSRefreshedObjectsKey: Set([object])])
    }

    /// Refreshes `object` with `latest`, its row as just read (nil when it could not be read:
    /// a fault then reads it again when it fires).
    func refresh(_ object: NSManagedObject, mergeChanges flag: Bool, latest: RowSnapshot?) {
        let key = ObjectIdentifier(object)
        // Fetched-property results are kept until the object is refreshed (Apple's rule).
        forgetFetchedProperties(of: object)
        let hasPendingChanges = updated[key] != nil || object.deletedFlag
        guard flag, hasPendingChanges else {
            if !flag {
                updated[key] = nil
                pendingUpdated[key] = nil
                forgetReadFailures(of: object.objectID)
            }
            object.faultBatch = nil
            object.turnIntoFault()
            object.committed = latest
            return
        }
        guard latest != nil || object.committed != nil else { return }
        object.fireFaultIfNeeded()
        // The changes to re-apply: persistent values that differ from the row last read, and
        // every transient value (Apple: a merging refresh does not affect transient properties).
        var changes: [(Int, ObjectSlot)] = []
        for (index, property) in object.layout.properties.enumerated() where property.isTransient || object.slotDiffersFromCommitted(index) {
            changes.append((index, object.slots[index]))
        }
        object.turnIntoFault()
        if let latest { object.committed = latest }
        object.loadSlots()
        object.awakeFromFetch()
        for (index, slot) in changes { object.slots[index] = slot }
    }

    /// Refreshes every registered object as `refresh(_:mergeChanges: true)` does, reading their
    /// rows in one query per store; breaks the retain cycles of unchanged related objects.
    public func refreshAllObjects() {
        // Retained for the walk: turning an object into a fault drops the slots that may hold
        // the last strong reference to a related object, which would then be freed mid-walk.
        let objects = registry.objects
        var latest: [NSManagedObjectID: RowSnapshot] = [:]
        if let coordinator = persistentStoreCoordinator {
            // A child reads its parent's state, which knows the objects the parent inserted.
            let ids = objects.compactMap { $0.insertedFlag || ($0.objectID.isTemporaryID && parentStorage == nil) ? nil : $0.objectID }
            let rows = (try? sourceSnapshots(for: ids)) ?? []
            if parentStorage == nil, case .unpinned = queryGenerationState { coordinator.cacheSnapshots(rows, pinnedBy: self) }
            latest.reserveCapacity(rows.count)
            for row in rows { latest[row.objectID] = row }
        }
        for object in objects where object._context === self && !object.insertedFlag {
            refresh(object, mergeChanges: true, latest: latest[object.objectID])
        }
    }

    /// Lets the row cache drop the rows this context loaded, without touching its objects; a
    /// fault then reads its row from the store. For long walks (migrations) whose contexts
    /// would otherwise pin every row they ever loaded.
    package func releaseRowPins() {
        persistentStoreCoordinator?.unpin(pinnedRows)
        pinnedRows = []
    }

    /// Returns the context to its base state: every registered object becomes an invalid fault
    /// that no longer belongs to it, and pending changes are forgotten.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/reset()>.
    /// Posts `NSManagedObjectContextObjectsDidChange` with `NSInvalidatedAllObjectsKey` (the
    /// invalidated objects' IDs). Reading an invalidated object gives empty values, not a trap.
    public func reset() {
        // Retained for the walk: faulting an object may free the objects it referenced.
        let objects = registry.objects
        registry = IdentityMap()
        retained = [:]
        forgetReadFailures()
        forgetAllFetchedProperties()
        clearChangeSets()
        for object in objects {
            object.insertedFlag = false
            object.deletedFlag = false
            object.faultBatch = nil
            object.turnIntoFault()
            object.committed = nil
            object._context = nil
        }
        persistentStoreCoordinator?.unpin(pinnedRows)
        pinnedRows = []
        advanceQueryGeneration()
        discardUndoHistory()
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self,
                                        userInfo: [NSInvalidatedAllObjectsKey: objects.map(\.objectID)])
    }
}
