import Foundation

// MARK: - Undo and redo

extension NSManagedObjectContext {
    /// Asks the undo manager to reverse the latest undoable changes (the last step recorded by
    /// `processPendingChanges()`, or the last undo group); does nothing without an undo manager.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/undo()>.
    public func undo() {
        undoManager?.undo()
    }

    /// Asks the undo manager to re-apply the changes the last `undo()` reversed.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/redo()>.
    public func redo() {
        undoManager?.redo()
    }

    // MARK: - Package hooks

    /// Sets up or drops the undo bookkeeping when `undoManager` changes; captures of the current
    /// batch are dropped with the old manager.
    package func undoManagerDidChange() {
        undoTracker = undoManager.map { ContextUndoTracker(manager: $0, context: self) }
    }

    /// Records the batch of changes since the last call as one undo step, then (on Linux) closes
    /// the manager's automatic group: `processPendingChanges()` is where an event ends.
    package func registerPendingUndo() {
        guard let tracker = undoTracker else { return }
        if let step = tracker.takeStep(in: self), tracker.manager.isUndoRegistrationEnabled {
            tracker.manager.registerUndo(withTarget: self) { context in
                context.apply(step, forward: false)
            }
        }
        #if !canImport(Darwin)
        if !tracker.isInCheckpoint { tracker.manager.closeAutomaticGroup() }
        #endif
    }

    /// Processes pending changes when the undo manager checkpoints, leaving its groups to it.
    func processPendingChangesForUndoCheckpoint() {
        guard let tracker = undoTracker, !tracker.isInCheckpoint else { return }
        tracker.isInCheckpoint = true
        defer { tracker.isInCheckpoint = false }
        processPendingChanges()
    }

    /// Empties the undo stack, as `rollback()` and `reset()` do on Apple platforms.
    package func discardUndoHistory() {
        guard let tracker = undoTracker else { return }
        tracker.discardCaptures()
        tracker.manager.removeAllActions()
    }

    /// Delete hook: notes the object's state before its deletion.
    @inline(__always)
    package func undoWillDelete(_ object: NSManagedObject) {
        if let tracker = undoTracker { tracker.willDelete(object, in: self) }
    }

    /// Insert hook: notes whether the object was in the graph before its insertion.
    @inline(__always)
    package func undoWillInsert(_ object: NSManagedObject) {
        if let tracker = undoTracker { tracker.willChangeMembership(of: object, in: self) }
    }

    // MARK: - Applying a step

    /// Puts the step's objects back as they were before it (`forward` false, an undo) or after
    /// it (a redo), registers the opposite action, and posts the changes.
    func apply(_ step: UndoStep, forward: Bool) {
        guard let manager = undoTracker?.manager else { return }
        for change in step.changes {
            let live = forward ? change.isLive : change.wasLive
            guard prepareForUndo(change.object, live: live) else { continue }
            let values = forward ? change.after : change.before
            for (position, index) in change.indices.enumerated() {
                ContextUndoTracker.restore(values[position], of: change.object, at: index)
            }
        }
        for change in step.changes {
            applyMembership(of: change.object, live: forward ? change.isLive : change.wasLive)
        }
        manager.registerUndo(withTarget: self) { context in
            context.apply(step, forward: !forward)
        }
        processPendingChanges()
    }

    /// Makes the object writable for a restore: its fault fired, and, when it must come back
    /// after its deletion was saved, registered again as a new object. False when it cannot be
    /// written (it belongs to no context and stays gone).
    private func prepareForUndo(_ object: NSManagedObject, live: Bool) -> Bool {
        if object._context == nil {
            guard live else { return false }
            // Its row is gone: it comes back as an object to insert, under its old ID.
            _ = object.slots
            object.committed = nil
            for index in object.layout.toManyIndices {
                switch object.slots[index] {
                case .toMany(let storage): storage.committedIDs = nil
                default: object.slots[index] = .toMany(RelationshipStorage(objects: OrderedSetStorage(), committedIDs: nil))
                }
            }
            object._context = self
            registerObject(object)
        }
        guard object._context === self else { return false }
        object.fireFaultIfNeeded()
        return true
    }

    /// Puts the object in the change sets its restored state calls for.
    ///
    /// An object whose row exists is deleted (gone) or updated when its values differ from the
    /// row, so an undo after a save leaves the object with unsaved changes. An object with no
    /// row is inserted (live) or forgotten as a deleted new object is (gone).
    private func applyMembership(of object: NSManagedObject, live: Bool) {
        guard object._context === self else { return }
        let key = ObjectIdentifier(object)
        let hasRow = !object.insertedFlag && object.committed != nil && (!object.deletedFlag || deleted[key] != nil)
        switch (live, hasRow) {
        case (true, true):
            if object.deletedFlag {
                object.deletedFlag = false
                deleted[key] = nil
                pendingDeleted[key] = nil
            }
            if differsFromCommitted(object) {
                updated[key] = object
            } else {
                updated[key] = nil
            }
            pendingUpdated[key] = object
        case (true, false):
            object.deletedFlag = false
            pendingDeleted[key] = nil
            if !object.insertedFlag {
                object.insertedFlag = true
                inserted[key] = object
                insertionOrder.append(object)
                pendingInserted[key] = object
            }
        case (false, true):
            guard !object.deletedFlag else { return }
            object.deletedFlag = true
            deleted[key] = object
            updated[key] = nil
            pendingUpdated[key] = nil
            pendingDeleted[key] = object
        case (false, false):
            if object.insertedFlag {
                object.insertedFlag = false
                inserted[key] = nil
                insertionOrder.removeAll { $0 === object }
                pendingInserted[key] = nil
            }
            if !object.deletedFlag {
                object.deletedFlag = true
                pendingDeleted[key] = object
            }
        }
        scheduleProcessingPendingChanges()
    }

    /// Whether any stored property of a fired object differs from its row.
    private func differsFromCommitted(_ object: NSManagedObject) -> Bool {
        for (index, property) in object.layout.properties.enumerated() where property.isStored {
            if object.slotDiffersFromCommitted(index) { return true }
        }
        return false
    }
}
