import Foundation

#if !canImport(Darwin)
/// A general-purpose recorder of operations that enables undo and redo.
///
/// swift-corelibs-foundation has no `UndoManager`; OpenCoreData declares Apple's API so undo code
/// compiles unchanged on Linux (on Apple platforms Foundation's own class is used). Linux has no
/// run loop to group registrations by event: with `groupsByEvent` (the default) a registration
/// outside any group opens an automatic group, which closes at the next `undo()`, `redo()` or
/// `beginUndoGrouping()`, or when the owner calls `closeAutomaticGroup()` (docs/Deviations.md).
///
/// Mirrors <https://developer.apple.com/documentation/foundation/undomanager>.
open class UndoManager: NSObject, @unchecked Sendable {
    // @unchecked Sendable: as Apple's, an undo manager is used from one thread or queue at a time
    // (the main thread, or the queue of the context that owns it) and takes no lock. It is Sendable
    // only so it can be handed to that queue, as Apple's main-actor class can.

    /// What the manager is performing.
    enum Performing {
        case nothing, undoing, redoing
    }

    // MARK: - State

    /// Closed top-level groups, oldest first.
    var undoStack: [UndoGroup] = []
    /// Groups undo registered, oldest first.
    var redoStack: [UndoGroup] = []
    /// The open groups, outermost first; `groupingLevel` is their count.
    var openGroups: [OpenUndoGroup] = []
    /// Unbalanced `disableUndoRegistration()` calls.
    var disableCount = 0
    /// Set while `undo()`/`redo()` run the actions of a group.
    var performing = Performing.nothing
    private var levelLimit = 0

    /// Creates an undo manager with empty stacks, grouping by event and no level limit.
    public override init() {
        super.init()
    }

    // MARK: - Configuration

    /// Whether a registration outside any group opens a group automatically (default true).
    ///
    /// Apple closes that group at the end of the run loop's event; on Linux it closes at the next
    /// `undo()`, `redo()` or `beginUndoGrouping()`, or at `closeAutomaticGroup()`. When false, a
    /// registration outside any group is a programmer error.
    open var groupsByEvent = true

    /// The maximum number of top-level undo groups kept; 0 (the default) means no limit.
    ///
    /// Closing a group past the limit drops the oldest groups; lowering the limit drops them at once.
    open var levelsOfUndo: Int {
        get { levelLimit }
        set {
            levelLimit = max(0, newValue)
            trim(&undoStack)
            trim(&redoStack)
        }
    }

    // MARK: - State queries

    /// The number of open nested groups (undo groups, or the redo group while undoing).
    open var groupingLevel: Int { openGroups.count }

    /// Whether registrations are recorded: true unless `disableUndoRegistration()` is in effect.
    open var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Whether the manager is running the actions of `undo()` or `undoNestedGroup()`.
    open var isUndoing: Bool { performing == .undoing }

    /// Whether the manager is running the actions of `redo()`.
    open var isRedoing: Bool { performing == .redoing }

    /// Whether there is anything to undo, counting an open group's actions (an open group may
    /// have to be closed before `undo()` can run, as Apple notes).
    open var canUndo: Bool {
        if !undoStack.isEmpty { return true }
        guard let outermost = openGroups.first, outermost.kind != .performing else { return false }
        return !outermost.group.entries.isEmpty
    }

    /// Whether there is anything to redo; posts `NSUndoManagerCheckpoint` first, as Apple's does
    /// when it checks the redo stack.
    open var canRedo: Bool {
        post(.NSUndoManagerCheckpoint)
        return !redoStack.isEmpty
    }

    // MARK: - Registration

    /// Disables the recording of undo operations; calls are counted, each needs an
    /// `enableUndoRegistration()`.
    open func disableUndoRegistration() {
        disableCount += 1
    }

    /// Balances one `disableUndoRegistration()`; a call with none in effect is a programmer error.
    open func enableUndoRegistration() {
        guard disableCount > 0 else {
            CoreDataError.programmerError("enableUndoRegistration() called while no disableUndoRegistration() is in effect.")
        }
        disableCount -= 1
    }

    /// Registers a closure that undoes a change of `target`, which the manager holds weakly.
    ///
    /// Ignored while registration is disabled. Outside undo and redo it clears the redo stack;
    /// while undoing it goes into the redo group, while redoing into the undo group.
    public func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        record(UndoAction(target: target, handler: handler))
    }

    /// Clears the undo and redo stacks and re-enables registration.
    ///
    /// Open groups stay open (so `endUndoGrouping()` calls still balance) but lose their actions.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        for open in openGroups {
            open.group.entries.removeAll()
        }
        disableCount = 0
    }

    /// Removes every undo and redo action whose target is `target` (groups left empty go too);
    /// does not re-enable registration.
    open func removeAllActions(withTarget target: Any) {
        let object = target as AnyObject
        for group in undoStack + redoStack + openGroups.map(\.group) {
            group.removeActions(withTarget: object)
        }
        undoStack.removeAll { $0.entries.isEmpty }
        redoStack.removeAll { $0.entries.isEmpty }
    }

    // MARK: - Grouping

    /// Opens an undo group, nested in any open group.
    ///
    /// Posts `NSUndoManagerCheckpoint` when the group is nested (not while undoing or redoing),
    /// then `NSUndoManagerDidOpenUndoGroup`. An automatic group open on its own is closed first:
    /// with no run loop, an explicit group is where the current "event" ends.
    open func beginUndoGrouping() {
        closeAutomaticGroup()
        openGroup(.explicit)
    }

    /// Closes the innermost open group; with none open (or only the one collecting an undo's
    /// redo actions) it is a programmer error.
    ///
    /// Posts `NSUndoManagerCheckpoint` and `NSUndoManagerWillCloseUndoGroup` before closing, and
    /// `NSUndoManagerDidCloseUndoGroup` after. An empty group is dropped.
    open func endUndoGrouping() {
        guard let innermost = openGroups.last, innermost.kind != .performing else {
            CoreDataError.programmerError("endUndoGrouping() called with no beginUndoGrouping() in effect.")
        }
        closeInnermostGroup()
    }

    // MARK: - Undo and redo

    /// Closes the top-level group if one is open, then undoes the last group (`undoNestedGroup()`).
    ///
    /// A programmer error while undoing or redoing, with nested groups open, or with a group open
    /// while `groupsByEvent` is false.
    open func undo() {
        guard performing == .nothing else {
            CoreDataError.programmerError("undo() called while \(isUndoing ? "undoing" : "redoing").")
        }
        closeTopLevelGroup(before: "undo()")
        undoNestedGroup()
    }

    /// Undoes the last group, recording what it registers on the redo stack as one group.
    ///
    /// With no group open that is the top of the undo stack; inside an open group it is the last
    /// nested group closed in it, and actions registered in the open group after that nested group
    /// are a programmer error. Posts `NSUndoManagerCheckpoint`, then (when there is something to
    /// undo) `NSUndoManagerWillUndoChange` before the actions and `NSUndoManagerDidUndoChange` after.
    open func undoNestedGroup() {
        guard performing == .nothing else {
            CoreDataError.programmerError("undoNestedGroup() called while \(isUndoing ? "undoing" : "redoing").")
        }
        let groupWasOpen = !openGroups.isEmpty
        post(.NSUndoManagerCheckpoint)
        // A checkpoint observer may have just registered pending changes (Core Data does), which
        // opened an automatic group: those changes are the latest step, so close it and undo them.
        if !groupWasOpen { closeAutomaticGroup() }
        guard let group = popGroupToUndo() else { return }
        perform(group, as: .undoing)
    }

    /// Redoes the last undone group, recording what it registers on the undo stack as one group.
    ///
    /// A top-level group left open is closed first, as `undo()` does, with the same programmer
    /// errors. Posts `NSUndoManagerCheckpoint`, then (when
    /// there is something to redo) `NSUndoManagerWillRedoChange` and `NSUndoManagerDidRedoChange`.
    open func redo() {
        guard performing == .nothing else {
            CoreDataError.programmerError("redo() called while \(isUndoing ? "undoing" : "redoing").")
        }
        closeTopLevelGroup(before: "redo()")
        post(.NSUndoManagerCheckpoint)
        guard let group = redoStack.popLast() else { return }
        perform(group, as: .redoing)
    }

    // MARK: - Action names

    /// Names the current action: the group being recorded (the redo group while undoing), else
    /// the last undo group. An empty string removes the name.
    open func setActionName(_ actionName: String) {
        groupToName()?.actionName = actionName
    }

    /// The name of the action `undo()` would undo; "" if it has none or there is nothing to undo.
    open var undoActionName: String {
        if let outermost = openGroups.first, outermost.kind != .performing, !outermost.group.entries.isEmpty {
            return outermost.group.actionName
        }
        return undoStack.last?.actionName ?? ""
    }

    /// The name of the action `redo()` would redo; "" if it has none or there is nothing to redo.
    open var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// The Undo command's title, such as "Undo Paste" ("Undo" without an action name).
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// The Redo command's title, such as "Redo Paste" ("Redo" without an action name).
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// The Undo command's title for an action name; override to localize.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// The Redo command's title for an action name; override to localize.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    // MARK: - Trimming

    /// Drops the oldest groups past `levelsOfUndo`.
    func trim(_ stack: inout [UndoGroup]) {
        guard levelLimit > 0, stack.count > levelLimit else { return }
        stack.removeFirst(stack.count - levelLimit)
    }
}
#endif
