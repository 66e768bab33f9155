import Foundation
import Testing
@testable import OpenCoreData

#if !canImport(Darwin)
// These tests exercise the UndoManager OpenCoreData declares on Linux; on Apple platforms
// Foundation's own class is used and its run-loop grouping differs from the documented Linux rule.

/// Issue #18 (Must 6): `UndoManager` with Apple's API and documented semantics.
@Suite("UndoManager")
struct UndoManagerTests {
    /// A list of integers whose edits register their inverse edit, as Apple's guide describes.
    final class Document: @unchecked Sendable {
        // @unchecked Sendable: used on the test's own thread only; notification observers that
        // edit it run synchronously on that thread, inside the manager's post.
        var items: [Int] = []
        let undoManager: UndoManager

        init(_ undoManager: UndoManager = UndoManager()) {
            self.undoManager = undoManager
        }

        func append(_ value: Int) {
            items.append(value)
            undoManager.registerUndo(withTarget: self) { $0.removeLast() }
        }

        func removeLast() {
            let value = items.removeLast()
            undoManager.registerUndo(withTarget: self) { $0.append(value) }
        }
    }

    // MARK: - Grouping

    @Test("Registrations outside any group open one automatic group; undo() closes it and undoes it as one")
    func automaticGroup() {
        let document = Document()
        let manager = document.undoManager
        #expect(manager.groupsByEvent)
        #expect(!manager.canUndo)
        document.append(1)
        document.append(2)
        document.append(3)
        #expect(manager.groupingLevel == 1)
        #expect(manager.canUndo)
        manager.undo()
        #expect(document.items == [])
        #expect(manager.groupingLevel == 0)
        #expect(!manager.canUndo)
        #expect(manager.canRedo)
    }

    @Test("Each top-level group undoes as one; nested groups undo with their parent, actions in reverse order")
    func nestedGroupsUndoAsOne() {
        let document = Document()
        let manager = document.undoManager
        manager.beginUndoGrouping()
        document.append(1)
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        document.append(2)
        manager.endUndoGrouping()
        document.append(3)
        manager.endUndoGrouping()
        manager.beginUndoGrouping()
        document.append(4)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
        manager.undo()
        #expect(document.items == [1, 2, 3])
        manager.undo()
        #expect(document.items == [])
        #expect(!manager.canUndo)
    }

    @Test("A group's actions run in reverse order of registration, a nested group's in place")
    func reverseOrder() {
        let manager = UndoManager()
        let target = Document(manager)
        var log: [String] = []
        manager.beginUndoGrouping()
        manager.registerUndo(withTarget: target) { _ in log.append("a") }
        manager.beginUndoGrouping()
        manager.registerUndo(withTarget: target) { _ in log.append("b") }
        manager.registerUndo(withTarget: target) { _ in log.append("c") }
        manager.endUndoGrouping()
        manager.registerUndo(withTarget: target) { _ in log.append("d") }
        manager.endUndoGrouping()
        manager.undo()
        #expect(log == ["d", "c", "b", "a"])
    }

    @Test("An empty group is not an undo step")
    func emptyGroupDropped() {
        let document = Document()
        let manager = document.undoManager
        document.append(1)
        manager.beginUndoGrouping()
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.items == [])
    }

    @Test("undoNestedGroup() undoes the last nested group closed inside the open group and leaves the group open")
    func undoNestedGroup() {
        let document = Document()
        let manager = document.undoManager
        manager.beginUndoGrouping()
        document.append(1)
        manager.beginUndoGrouping()
        document.append(2)
        document.append(3)
        manager.endUndoGrouping()
        manager.undoNestedGroup()
        #expect(document.items == [1])
        #expect(manager.groupingLevel == 1)
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.items == [])
        // The nested undo's redo group went on the redo stack below the top-level one.
        manager.redo()
        #expect(document.items == [1])
        manager.redo()
        #expect(document.items == [1, 2, 3])
    }

    @Test("With groupsByEvent off, explicit groups work as usual")
    func explicitGroupsWithoutEvents() {
        let document = Document()
        let manager = document.undoManager
        manager.groupsByEvent = false
        manager.beginUndoGrouping()
        document.append(1)
        manager.endUndoGrouping()
        manager.beginUndoGrouping()
        document.append(2)
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.items == [1])
        manager.redo()
        #expect(document.items == [1, 2])
    }

    // MARK: - Automatic groups on Linux (no run loop)

    @Test("Linux: closeAutomaticGroup() ends the automatic group where an event would end, so the next registration starts a new step")
    func closeAutomaticGroupEndsStep() {
        let document = Document()
        let manager = document.undoManager
        document.append(1)
        document.append(2)
        manager.closeAutomaticGroup()
        #expect(manager.groupingLevel == 0)
        document.append(3)
        manager.closeAutomaticGroup()
        manager.undo()
        #expect(document.items == [1, 2])
        manager.undo()
        #expect(document.items == [])
    }

    @Test("Linux: an explicit beginUndoGrouping() closes the automatic group first; closeAutomaticGroup() leaves explicit groups open")
    func explicitGroupEndsAutomaticGroup() {
        let document = Document()
        let manager = document.undoManager
        document.append(1)
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 1)
        document.append(2)
        manager.closeAutomaticGroup()
        #expect(manager.groupingLevel == 1)
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.items == [1])
        manager.undo()
        #expect(document.items == [])
    }

    @Test("Linux: closeAutomaticGroup() does nothing while groupsByEvent is off or nothing was registered")
    func closeAutomaticGroupWithoutGroup() {
        let document = Document()
        let manager = document.undoManager
        manager.closeAutomaticGroup()
        #expect(manager.groupingLevel == 0)
        document.append(1)
        manager.groupsByEvent = false
        manager.closeAutomaticGroup()
        #expect(manager.groupingLevel == 1)
        manager.endUndoGrouping()
        manager.undo()
        #expect(document.items == [])
    }

    // MARK: - Undo and redo

    @Test("Redo re-applies an undone group: actions registered while undoing go on the redo stack, while redoing on the undo stack")
    func redoAfterUndo() {
        let document = Document()
        let manager = document.undoManager
        var seen: [String] = []
        document.append(1)
        manager.registerUndo(withTarget: document) { _ in
            seen.append("undoing=\(manager.isUndoing) redoing=\(manager.isRedoing)")
        }
        manager.undo()
        #expect(seen == ["undoing=true redoing=false"])
        #expect(!manager.isUndoing)
        #expect(document.items == [])
        #expect(manager.canRedo)
        manager.redo()
        #expect(document.items == [1])
        #expect(!manager.canRedo)
        #expect(manager.canUndo)
        manager.undo()
        #expect(document.items == [])
        manager.redo()
        #expect(document.items == [1])
    }

    @Test("A new registration outside undo and redo clears the redo stack")
    func registrationClearsRedo() {
        let document = Document()
        let manager = document.undoManager
        document.append(1)
        manager.closeAutomaticGroup()
        document.append(2)
        manager.undo()
        #expect(manager.canRedo)
        document.append(3)
        #expect(!manager.canRedo)
        manager.redo()
        #expect(document.items == [1, 3])
        manager.undo()
        #expect(document.items == [1])
    }

    @Test("undo() and redo() with nothing to do change nothing")
    func nothingToUndo() {
        let manager = UndoManager()
        manager.undo()
        manager.redo()
        #expect(!manager.canUndo)
        #expect(!manager.canRedo)
        #expect(manager.groupingLevel == 0)
    }

    @Test("The manager holds its targets weakly: a deallocated target is not kept alive and its actions do nothing")
    func weakTarget() {
        let manager = UndoManager()
        weak var weakDocument: Document?
        var ran = false
        do {
            let document = Document(manager)
            weakDocument = document
            manager.registerUndo(withTarget: document) { _ in ran = true }
        }
        #expect(weakDocument == nil)
        manager.undo()
        #expect(!ran)
    }

    // MARK: - Levels and removal

    @Test("levelsOfUndo keeps the newest groups: closing past the limit drops the oldest, lowering it drops them at once, 0 means no limit")
    func levelsOfUndo() {
        let document = Document()
        let manager = document.undoManager
        #expect(manager.levelsOfUndo == 0)
        manager.levelsOfUndo = 3
        for value in 1...5 {
            document.append(value)
            manager.closeAutomaticGroup()
        }
        for _ in 1...5 { manager.undo() }
        #expect(document.items == [1, 2])
        for _ in 1...3 { manager.redo() }
        #expect(document.items == [1, 2, 3, 4, 5])
        manager.levelsOfUndo = 1
        manager.undo()
        manager.undo()
        #expect(document.items == [1, 2, 3, 4])
        manager.levelsOfUndo = 0
        manager.redo()
        for value in 6...20 {
            document.append(value)
            manager.closeAutomaticGroup()
        }
        for _ in 6...20 { manager.undo() }
        #expect(document.items == [1, 2, 3, 4, 5])
    }

    @Test("removeAllActions() clears both stacks and re-enables registration")
    func removeAllActions() {
        let document = Document()
        let manager = document.undoManager
        document.append(1)
        manager.closeAutomaticGroup()
        document.append(2)
        manager.undo()
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        manager.removeAllActions()
        #expect(!manager.canUndo)
        #expect(!manager.canRedo)
        #expect(manager.isUndoRegistrationEnabled)
        document.append(3)
        manager.undo()
        #expect(document.items == [1])
    }

    @Test("removeAllActions(withTarget:) removes only that target's actions from both stacks and does not re-enable registration")
    func removeAllActionsWithTarget() {
        let manager = UndoManager()
        let first = Document(manager)
        let second = Document(manager)
        first.append(1)
        second.append(10)
        manager.closeAutomaticGroup()
        first.append(2)
        manager.closeAutomaticGroup()
        second.append(20)
        manager.closeAutomaticGroup()
        manager.undo()
        #expect(manager.canRedo)
        manager.disableUndoRegistration()
        manager.removeAllActions(withTarget: second)
        #expect(!manager.isUndoRegistrationEnabled)
        #expect(!manager.canRedo)
        manager.enableUndoRegistration()
        manager.undo()
        #expect(first.items == [1])
        #expect(second.items == [10])
        manager.undo()
        #expect(first.items == [])
        #expect(second.items == [10])
        #expect(!manager.canUndo)
    }

    // MARK: - Registration switch

    @Test("disableUndoRegistration() is counted: registrations are dropped until as many enableUndoRegistration() calls balance it")
    func disableEnableCounting() {
        let document = Document()
        let manager = document.undoManager
        #expect(manager.isUndoRegistrationEnabled)
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        document.append(1)
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        document.append(2)
        #expect(!manager.canUndo)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        document.append(3)
        manager.undo()
        #expect(document.items == [1, 2])
    }

    // MARK: - Action names

    @Test("Action names: setActionName names the current group, undo/redo names follow the stacks, menu titles append them, \"\" removes a name")
    func actionNames() {
        let document = Document()
        let manager = document.undoManager
        #expect(manager.undoActionName == "")
        #expect(manager.undoMenuItemTitle == "Undo")
        document.append(1)
        manager.setActionName("Add One")
        #expect(manager.undoActionName == "Add One")
        manager.closeAutomaticGroup()
        document.append(2)
        #expect(manager.undoActionName == "")
        manager.setActionName("Add Two")
        manager.closeAutomaticGroup()
        #expect(manager.undoMenuItemTitle == "Undo Add Two")
        manager.undo()
        #expect(manager.undoActionName == "Add One")
        #expect(manager.redoActionName == "Add Two")
        #expect(manager.redoMenuItemTitle == "Redo Add Two")
        manager.redo()
        #expect(manager.undoActionName == "Add Two")
        #expect(manager.redoActionName == "")
        #expect(manager.redoMenuItemTitle == "Redo")
        manager.setActionName("")
        #expect(manager.undoActionName == "")
        #expect(manager.undoMenuTitle(forUndoActionName: "Paste") == "Undo Paste")
        #expect(manager.redoMenuTitle(forUndoActionName: "Paste") == "Redo Paste")
    }

    @Test("setActionName while undoing names the redo group")
    func actionNameWhileUndoing() {
        let document = Document()
        let manager = document.undoManager
        document.append(1)
        manager.setActionName("Add")
        manager.registerUndo(withTarget: document) { _ in manager.setActionName("Renamed") }
        manager.undo()
        #expect(manager.redoActionName == "Renamed")
    }
}
#endif
