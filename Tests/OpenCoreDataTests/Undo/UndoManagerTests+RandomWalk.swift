import Foundation
import Testing
@testable import OpenCoreData

#if !canImport(Darwin)
extension UndoManagerTests {
    /// What the manager should hold: the state before each undo step and each redo step.
    struct Model {
        var items: [Int] = []
        /// The state before each closed undo group, oldest first.
        var undo: [[Int]] = []
        /// The state each undone group left (what redo restores), oldest first.
        var redo: [[Int]] = []
        /// The state before the open automatic group, if one is open.
        var open: [Int]?
        let levels: Int

        /// Keeps the newest `levels` snapshots, as `levelsOfUndo` keeps groups.
        static func trimmed(_ stack: [[Int]], to levels: Int) -> [[Int]] {
            levels > 0 && stack.count > levels ? Array(stack.suffix(levels)) : stack
        }

        mutating func pushUndo(_ snapshot: [Int]) {
            undo = Self.trimmed(undo + [snapshot], to: levels)
        }

        mutating func pushRedo(_ snapshot: [Int]) {
            redo = Self.trimmed(redo + [snapshot], to: levels)
        }

        /// Closes the automatic group, as `closeAutomaticGroup()`, `undo()`, `redo()` and
        /// `beginUndoGrouping()` do.
        mutating func closeOpenGroup() {
            guard let snapshot = open else { return }
            pushUndo(snapshot)
            open = nil
        }
    }

    @Test("A 1,000-step random walk of edits, automatic and explicit groups, undo and redo matches a model of snapshots; then everything undoes to the oldest kept state and redoes to the end",
          arguments: [0, 25])
    func randomWalk(levels: Int) throws {
        var random = ModelFileFuzzTests.SplitMix64(state: 0x18_06 &+ UInt64(levels))
        let document = Document()
        let manager = document.undoManager
        manager.levelsOfUndo = levels
        var model = Model(levels: levels)

        /// One edit on both the document (which registers its inverse) and the model.
        func edit() {
            if model.items.isEmpty || Int.random(in: 0..<3, using: &random) > 0 {
                let value = Int.random(in: 0..<1_000, using: &random)
                document.append(value)
                model.items.append(value)
            } else {
                document.removeLast()
                model.items.removeLast()
            }
            model.redo.removeAll()
        }

        for step in 0..<1_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                if model.open == nil { model.open = model.items }
                edit()
            case 4:
                manager.closeAutomaticGroup()
                model.closeOpenGroup()
            case 5:
                manager.beginUndoGrouping()
                model.closeOpenGroup()
                let before = model.items
                for _ in 0..<Int.random(in: 1...3, using: &random) { edit() }
                manager.endUndoGrouping()
                model.pushUndo(before)
            case 6, 7:
                manager.undo()
                model.closeOpenGroup()
                if let previous = model.undo.popLast() {
                    model.pushRedo(model.items)
                    model.items = previous
                }
            default:
                manager.redo()
                model.closeOpenGroup()
                if let next = model.redo.popLast() {
                    model.pushUndo(model.items)
                    model.items = next
                }
            }
            try #require(document.items == model.items, "step \(step)")
            try #require(manager.canUndo == (!model.undo.isEmpty || model.open != nil), "step \(step)")
            try #require(manager.canRedo == !model.redo.isEmpty, "step \(step)")
        }

        model.closeOpenGroup()
        let end = model.items
        let start = model.undo.first ?? end
        var undos = 0
        while manager.canUndo {
            manager.undo()
            undos += 1
        }
        #expect(document.items == start)
        #expect(undos == model.undo.count)
        while manager.canRedo { manager.redo() }
        #expect(document.items == end)
    }
}
#endif
