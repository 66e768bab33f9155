import Foundation
import Synchronization
import Testing
@testable import OpenCoreData

#if !canImport(Darwin)
extension UndoManagerTests {
    /// The undo notifications one manager posts, by short name ("Checkpoint", "DidOpenUndoGroup", …).
    final class NotificationLog: @unchecked Sendable {
        // @unchecked Sendable: `observers` is written once in init and read in deinit only; the
        // entries the observers append are behind a Mutex.
        static let names: [Notification.Name] = [
            .NSUndoManagerCheckpoint, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
            .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange, .NSUndoManagerDidOpenUndoGroup,
            .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup,
        ]
        private let entries = Mutex<[String]>([])
        private var observers: [any NSObjectProtocol] = []

        init(_ manager: UndoManager) {
            observers = Self.names.map { name in
                NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { [weak self] note in
                    let short = note.name.rawValue.replacingOccurrences(of: "NSUndoManager", with: "")
                        .replacingOccurrences(of: "Notification", with: "")
                    self?.entries.withLock { $0.append(short) }
                }
            }
        }

        /// The names posted since the last call.
        func take() -> [String] {
            entries.withLock { entries in
                defer { entries.removeAll() }
                return entries
            }
        }

        deinit {
            for token in observers {
                NotificationCenter.default.removeObserver(token)
            }
        }
    }

    // MARK: - Notifications

    @Test("Groups: opening a top-level group posts DidOpenUndoGroup only, a nested one a Checkpoint first; closing posts Checkpoint, WillCloseUndoGroup, DidCloseUndoGroup")
    func groupNotifications() {
        let document = Document()
        let manager = document.undoManager
        let log = NotificationLog(manager)
        document.append(1)
        #expect(log.take() == ["DidOpenUndoGroup"])
        manager.beginUndoGrouping()
        // Linux: the explicit group closes the automatic one first.
        #expect(log.take() == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup", "DidOpenUndoGroup"])
        manager.beginUndoGrouping()
        #expect(log.take() == ["Checkpoint", "DidOpenUndoGroup"])
        document.append(2)
        #expect(log.take() == [])
        manager.endUndoGrouping()
        #expect(log.take() == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
        manager.endUndoGrouping()
        #expect(log.take() == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
    }

    @Test("undo() closes the open group, then posts Checkpoint and WillUndoChange before the actions and DidUndoChange after; redo() likewise; canRedo posts a Checkpoint")
    func undoRedoNotifications() {
        let document = Document()
        let manager = document.undoManager
        let log = NotificationLog(manager)
        document.append(1)
        _ = log.take()
        var undoingWhen: [String] = []
        manager.registerUndo(withTarget: document) { _ in undoingWhen = log.take() }
        manager.undo()
        #expect(undoingWhen == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup", "Checkpoint", "WillUndoChange"])
        #expect(log.take() == ["DidUndoChange"])
        manager.redo()
        #expect(log.take() == ["Checkpoint", "WillRedoChange", "DidRedoChange"])
        #expect(!manager.canRedo)
        #expect(log.take() == ["Checkpoint"])
    }

    @Test("Undo notifications go through NotificationCenter.default with the manager as their object")
    func notificationObject() {
        let manager = UndoManager()
        let other = UndoManager()
        let seen = Mutex<[ObjectIdentifier]>([])
        let token = NotificationCenter.default.addObserver(forName: .NSUndoManagerDidOpenUndoGroup, object: nil, queue: nil) { note in
            if let object = note.object as? UndoManager { seen.withLock { $0.append(ObjectIdentifier(object)) } }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        manager.beginUndoGrouping()
        other.beginUndoGrouping()
        let identifiers = seen.withLock { $0 }
        #expect(identifiers.contains(ObjectIdentifier(manager)))
        #expect(identifiers.contains(ObjectIdentifier(other)))
    }

    @Test("A Checkpoint observer's registrations join the group being closed (how Core Data flushes pending changes)")
    func checkpointObserverRegistersIntoGroup() {
        let document = Document()
        let manager = document.undoManager
        let pending = Mutex<[Int]>([2, 3])
        let token = NotificationCenter.default.addObserver(forName: .NSUndoManagerCheckpoint, object: manager, queue: nil) { [document] _ in
            for value in pending.withLock({ values in defer { values.removeAll() }; return values }) {
                document.append(value)
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        document.append(1)
        manager.undo()
        #expect(document.items == [])
        #expect(!manager.canUndo)
        // With no group open, changes flushed at undo()'s own checkpoint are the step it undoes.
        document.append(1)
        manager.closeAutomaticGroup()
        pending.withLock { $0 = [2, 3] }
        manager.undo()
        #expect(document.items == [1])
        manager.undo()
        #expect(document.items == [])
    }

    // MARK: - Programmer errors

    @Test("Misuse Apple raises NSInternalInconsistencyException for stops the process with a message")
    func misuseStops() async {
        await #expect(processExitsWith: .failure) {
            UndoManager().endUndoGrouping()
        }
        await #expect(processExitsWith: .failure) {
            UndoManager().enableUndoRegistration()
        }
        await #expect(processExitsWith: .failure) {
            let manager = UndoManager()
            manager.beginUndoGrouping()
            manager.beginUndoGrouping()
            manager.undo()
        }
        await #expect(processExitsWith: .failure) {
            let manager = UndoManager()
            manager.registerUndo(withTarget: manager) { $0.redo() }
            manager.undo()
        }
        await #expect(processExitsWith: .failure) {
            let manager = UndoManager()
            manager.groupsByEvent = false
            manager.registerUndo(withTarget: manager) { _ in }
        }
        await #expect(processExitsWith: .failure) {
            let manager = UndoManager()
            manager.beginUndoGrouping()
            manager.registerUndo(withTarget: manager) { _ in }
            manager.undoNestedGroup()
        }
    }
}
#endif
