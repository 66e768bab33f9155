import Foundation

#if !canImport(Darwin)
// MARK: - Undo groups

/// One undo group of `UndoManager`: actions and closed nested groups, in registration order.
///
/// A class so that the open group an action is appended to is shared by the manager's stack of
/// open groups and, once closed, by its parent group or the undo/redo stack.
final class UndoGroup {
    /// An action or a closed nested group.
    enum Entry {
        case action(UndoAction)
        case group(UndoGroup)
    }

    /// Registration order; performed in reverse. Never holds an empty nested group (closing one
    /// drops it), so a group with entries has at least one action at some depth.
    var entries: [Entry] = []
    /// The name `setActionName(_:)` gave the group ("" for none).
    var actionName = ""

    init(actionName: String = "") {
        self.actionName = actionName
    }

    /// Performs every action, the last registered first (nested groups as a whole, in place).
    func performInReverse() {
        for entry in entries.reversed() {
            switch entry {
            case .action(let action): action.perform()
            case .group(let group): group.performInReverse()
            }
        }
    }

    /// Removes the actions whose target is `object`, and the nested groups left empty.
    func removeActions(withTarget object: AnyObject) {
        entries.removeAll { entry in
            switch entry {
            case .action(let action):
                return action.target === object
            case .group(let group):
                group.removeActions(withTarget: object)
                return group.entries.isEmpty
            }
        }
    }
}

// MARK: - Undo actions

/// One registered undo operation: its target (held weakly, as Apple holds it unowned) and the
/// closure that reverts the change.
final class UndoAction {
    /// The target, for `removeAllActions(withTarget:)`; nil once it is deallocated.
    weak var target: AnyObject?
    /// Calls the handler with the target, or does nothing when the target is gone.
    let perform: () -> Void

    init<TargetType: AnyObject>(target: TargetType, handler: @escaping (TargetType) -> Void) {
        self.target = target
        // The closure holds the target weakly too, so the manager never keeps a target alive
        // (Apple's: "an unowned reference to the target to prevent retain cycles").
        perform = { [weak target] in
            if let target { handler(target) }
        }
    }
}

// MARK: - Open groups

/// A group the manager has open, and why it was opened.
struct OpenUndoGroup {
    /// Why the group is open.
    enum Kind {
        /// `beginUndoGrouping()`.
        case explicit
        /// The first registration outside any group while `groupsByEvent` is true.
        case automatic
        /// The group collecting what an undo (redo) registers, for the redo (undo) stack.
        case performing
    }

    let group: UndoGroup
    let kind: Kind
}
#endif
