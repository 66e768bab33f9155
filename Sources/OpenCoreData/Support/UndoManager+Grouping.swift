import Foundation

#if !canImport(Darwin)
extension UndoManager {
    // MARK: - Automatic groups

    /// Closes the automatic group when it is the only open group (and `groupsByEvent` is on).
    ///
    /// Linux has no run loop whose event end Apple's manager waits for: the owner of the manager
    /// (a context's `processPendingChanges()`) calls this where an event would end. Does nothing
    /// when no automatic group is open or explicit groups are still open inside it.
    package func closeAutomaticGroup() {
        guard groupsByEvent, openGroups.count == 1, openGroups[0].kind == .automatic else { return }
        closeInnermostGroup()
    }

    /// Closes the one top-level group `undo()`/`redo()` may find open; more, or a group open
    /// while `groupsByEvent` is off, is a programmer error (Apple raises).
    func closeTopLevelGroup(before method: String) {
        guard !openGroups.isEmpty else { return }
        if openGroups.count > 1 {
            CoreDataError.programmerError("\(method) called with \(openGroups.count) nested undo groups open: close them with endUndoGrouping() (use undoNestedGroup() to undo a nested group).")
        }
        guard groupsByEvent else {
            CoreDataError.programmerError("\(method) called with an undo group open while groupsByEvent is false: close it with endUndoGrouping() first.")
        }
        closeInnermostGroup()
    }

    // MARK: - Opening and closing

    /// Opens a group of `kind`, posting the checkpoint (nested, outside undo/redo) and
    /// `NSUndoManagerDidOpenUndoGroup`.
    func openGroup(_ kind: OpenUndoGroup.Kind) {
        if !openGroups.isEmpty, performing == .nothing {
            post(.NSUndoManagerCheckpoint)
        }
        openGroups.append(OpenUndoGroup(group: UndoGroup(), kind: kind))
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// Closes the innermost (non-performing) group into its parent or onto the undo stack.
    func closeInnermostGroup() {
        // Observers of the checkpoint may still register into the group (Core Data flushes its
        // pending changes there), so it is read only after both notifications.
        post(.NSUndoManagerCheckpoint)
        post(.NSUndoManagerWillCloseUndoGroup)
        let closed = openGroups.removeLast().group
        if !closed.entries.isEmpty {
            if let parent = openGroups.last {
                parent.group.entries.append(.group(closed))
            } else {
                undoStack.append(closed)
                trim(&undoStack)
            }
        }
        post(.NSUndoManagerDidCloseUndoGroup)
    }

    // MARK: - Recording

    /// Appends an action to the innermost open group, opening an automatic one if needed.
    func record(_ action: UndoAction) {
        if performing == .nothing {
            // A new change makes what was undone unreachable, as on Apple platforms.
            redoStack.removeAll()
        }
        if openGroups.isEmpty {
            guard groupsByEvent else {
                CoreDataError.programmerError("registerUndo(withTarget:handler:) called with no undo group open while groupsByEvent is false: call beginUndoGrouping() first.")
            }
            openGroup(.automatic)
        }
        openGroups[openGroups.count - 1].group.entries.append(.action(action))
    }

    /// The group `setActionName(_:)` names: the group collecting an undo's (redo's) registrations,
    /// else the outermost open group, else the last undo group.
    func groupToName() -> UndoGroup? {
        if performing != .nothing {
            return openGroups.last { $0.kind == .performing }?.group
        }
        return openGroups.first?.group ?? undoStack.last
    }

    // MARK: - Performing

    /// Removes and returns the group `undoNestedGroup()` undoes, nil when there is none.
    func popGroupToUndo() -> UndoGroup? {
        guard let innermost = openGroups.last else { return undoStack.popLast() }
        guard let last = innermost.group.entries.last else { return nil }
        guard case .group(let nested) = last else {
            CoreDataError.programmerError("undoNestedGroup() called after undo actions were registered in the open group since its last nested group closed: close the group with endUndoGrouping() first.")
        }
        innermost.group.entries.removeLast()
        return nested
    }

    /// Runs a group's actions as an undo or redo, collecting what they register into one group
    /// for the opposite stack (named as the group was), between the will/did notifications.
    func perform(_ group: UndoGroup, as mode: Performing) {
        let undoing = mode == .undoing
        post(undoing ? .NSUndoManagerWillUndoChange : .NSUndoManagerWillRedoChange)
        let collected = UndoGroup(actionName: group.actionName)
        let depth = openGroups.count
        openGroups.append(OpenUndoGroup(group: collected, kind: .performing))
        performing = mode
        group.performInReverse()
        performing = .nothing
        guard openGroups.count == depth + 1 else {
            CoreDataError.programmerError("An undo or redo action left \(openGroups.count - depth - 1) undo groups open: balance beginUndoGrouping() with endUndoGrouping() inside the action.")
        }
        openGroups.removeLast()
        if !collected.entries.isEmpty {
            if undoing {
                redoStack.append(collected)
                trim(&redoStack)
            } else {
                undoStack.append(collected)
                trim(&undoStack)
            }
        }
        post(undoing ? .NSUndoManagerDidUndoChange : .NSUndoManagerDidRedoChange)
    }

    // MARK: - Notifications

    /// Posts an undo notification on the default center with the manager as its object.
    func post(_ name: Notification.Name) {
        NotificationCenter.default.post(name: name, object: self)
    }
}

// MARK: - Notification names

extension Notification.Name {
    /// Posted whenever an undo manager opens or closes an undo group (except when it opens a
    /// top-level group) and when it checks the redo stack.
    public static let NSUndoManagerCheckpoint = Notification.Name("NSUndoManagerCheckpointNotification")
    /// Posted just before an undo manager performs an undo operation.
    public static let NSUndoManagerWillUndoChange = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted just after an undo manager performs an undo operation.
    public static let NSUndoManagerDidUndoChange = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted just before an undo manager performs a redo operation.
    public static let NSUndoManagerWillRedoChange = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted just after an undo manager performs a redo operation.
    public static let NSUndoManagerDidRedoChange = Notification.Name("NSUndoManagerDidRedoChangeNotification")
    /// Posted whenever an undo manager opens an undo group.
    public static let NSUndoManagerDidOpenUndoGroup = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before an undo manager closes an undo group.
    public static let NSUndoManagerWillCloseUndoGroup = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after an undo manager closes an undo group.
    public static let NSUndoManagerDidCloseUndoGroup = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
}
#endif
