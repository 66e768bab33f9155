import Foundation
import Testing
@testable import OpenCoreData

#if !canImport(Darwin)
// Uses the Linux UndoManager's documented grouping rule (processPendingChanges() closes the
// automatic group); on Apple platforms the run loop groups changes instead.

/// Issue #18 (Must 7): `NSManagedObjectContext.undoManager`, `undo()`, `redo()` and
/// `processPendingChanges()` with Apple's documented semantics, on both stores.
@Suite("Context undo")
struct ContextUndoTests {
    typealias M = ContextUndoModel

    /// A context on a new store of `kind` with an undo manager.
    func makeContext(_ kind: StoreKind) throws -> NSManagedObjectContext {
        let context = try kind.context(M.model())
        context.performAndWait { context.undoManager = UndoManager() }
        return context
    }

    // MARK: - Basics

    @Test("undoManager is nil by default (as on iOS) and undo() without one does nothing")
    func nilByDefault() throws {
        let context = try StoreKind.inMemory.context(M.model())
        context.performAndWait {
            #expect(context.undoManager == nil)
            let note = M.insert("Note", "n1", context)
            context.processPendingChanges()
            context.undo()
            #expect(note.isInserted)
            #expect(note.value(forKey: "title") as? String == "n1")
            #expect(context.undoTracker == nil)
        }
    }

    @Test("Undo restores an attribute value, redo re-applies it; each processPendingChanges() is one step", arguments: StoreKind.allCases)
    func attributeUndoRedo(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let note = M.insert("Note", "n1", context)
            try context.save()
            note.setValue("first", forKey: "title")
            note.setValue(Int64(1), forKey: "score")
            context.processPendingChanges()
            note.setValue("second", forKey: "title")
            context.processPendingChanges()
            context.undo()
            #expect(note.value(forKey: "title") as? String == "first")
            #expect(note.value(forKey: "score") as? Int64 == 1)
            context.undo()
            #expect(note.value(forKey: "title") as? String == "n1")
            #expect(note.value(forKey: "score") as? Int64 == 0)
            #expect(!context.hasChanges, "back to the saved values: nothing left to save")
            context.redo()
            #expect(note.value(forKey: "title") as? String == "first")
            #expect(context.updatedObjects == [note])
            context.redo()
            #expect(note.value(forKey: "title") as? String == "second")
            #expect(context.undoManager?.canRedo == false)
        }
    }

    @Test("Undo restores a to-one relationship on both sides", arguments: StoreKind.allCases)
    func toOneBothSides(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let first = M.insert("Folder", "f1", context)
            let second = M.insert("Folder", "f2", context)
            let note = M.insert("Note", "n1", context)
            note.setValue(first, forKey: "folder")
            try context.save()
            note.setValue(second, forKey: "folder")
            context.processPendingChanges()
            context.undo()
            #expect(note.value(forKey: "folder") as? NSManagedObject === first)
            #expect((first.value(forKey: "notes") as? NSSet)?.contains(note) == true)
            #expect((second.value(forKey: "notes") as? NSSet)?.count == 0)
            context.redo()
            #expect(note.value(forKey: "folder") as? NSManagedObject === second)
            #expect((first.value(forKey: "notes") as? NSSet)?.count == 0)
            #expect((second.value(forKey: "notes") as? NSSet)?.contains(note) == true)
            try context.save()
            #expect(try M.storedGraph(of: context) == M.graph([first, second, note], in: context))
        }
    }

    @Test("Undo restores a many-to-many relationship on both sides", arguments: StoreKind.allCases)
    func toManyBothSides(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let note = M.insert("Note", "n1", context)
            let red = M.insert("Tag", "red", context)
            let blue = M.insert("Tag", "blue", context)
            note.mutableSetValue(forKey: "tags").add(red)
            try context.save()
            note.mutableSetValue(forKey: "tags").remove(red)
            blue.mutableSetValue(forKey: "notes").add(note)
            context.processPendingChanges()
            context.undo()
            #expect(M.uids(Set((note.value(forKey: "tags") as! NSSet).allObjects as! [NSManagedObject])) == ["red"])
            #expect((red.value(forKey: "notes") as? NSSet)?.contains(note) == true)
            #expect((blue.value(forKey: "notes") as? NSSet)?.count == 0)
            #expect(!context.hasChanges)
            context.redo()
            #expect(M.uids(Set((note.value(forKey: "tags") as! NSSet).allObjects as! [NSManagedObject])) == ["blue"])
            #expect((red.value(forKey: "notes") as? NSSet)?.count == 0)
        }
    }

    @Test("Undo restores the positions of an ordered to-many relationship and the inverse of a moved member", arguments: StoreKind.allCases)
    func orderedPositions(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let folder = M.insert("Folder", "f1", context)
            let other = M.insert("Folder", "f2", context)
            let notes = (1...4).map { M.insert("Note", "n\($0)", context) }
            folder.mutableOrderedSetValue(forKey: "pinned").addObjects(from: notes)
            try context.save()
            let pinned = folder.mutableOrderedSetValue(forKey: "pinned")
            pinned.moveObjects(at: IndexSet(integer: 3), to: 0)
            context.processPendingChanges()
            // Pinning n2 in another folder takes it out of this one (to-one inverse).
            other.mutableOrderedSetValue(forKey: "pinned").add(notes[1])
            context.processPendingChanges()
            #expect(M.describe(folder).contains("pinned=[n4,n1,n3]"))
            context.undo()
            #expect(M.describe(folder).contains("pinned=[n4,n1,n2,n3]"))
            #expect(notes[1].value(forKey: "pinnedIn") as? NSManagedObject === folder)
            #expect((other.value(forKey: "pinned") as? NSOrderedSet)?.count == 0)
            context.undo()
            #expect(M.describe(folder).contains("pinned=[n1,n2,n3,n4]"))
            #expect(!context.hasChanges)
            context.redo()
            context.redo()
            #expect(M.describe(folder).contains("pinned=[n4,n1,n3]"))
            try context.save()
            #expect(try M.storedGraph(of: context) == M.graph([folder, other] + notes, in: context))
        }
    }

    @Test("undo() first processes changes not yet processed (the checkpoint), and undoes them as the latest step", arguments: StoreKind.allCases)
    func undoProcessesPendingChangesFirst(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        context.performAndWait {
            let note = M.insert("Note", "n1", context)
            context.processPendingChanges()
            note.setValue("pending", forKey: "title")
            context.undo()
            #expect(note.value(forKey: "title") as? String == "n1")
            #expect(note.isInserted)
            context.undo()
            #expect(!note.isInserted)
        }
    }

    @Test("An explicit undo group spanning several processPendingChanges() undoes as one", arguments: StoreKind.allCases)
    func explicitGroupUndoesAsOne(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let manager = try #require(context.undoManager)
            let note = M.insert("Note", "n1", context)
            try context.save()
            manager.beginUndoGrouping()
            note.setValue("a", forKey: "title")
            context.processPendingChanges()
            note.setValue(Int64(7), forKey: "score")
            context.processPendingChanges()
            manager.endUndoGrouping()
            manager.setActionName("Edit Note")
            #expect(manager.undoActionName == "Edit Note")
            context.undo()
            #expect(note.value(forKey: "title") as? String == "n1")
            #expect(note.value(forKey: "score") as? Int64 == 0)
            #expect(!note.isDeleted)
            #expect(manager.redoActionName == "Edit Note")
            // The step before the group is the (saved) insert: undoing it deletes the object.
            context.undo()
            #expect(note.isDeleted)
        }
    }

    // MARK: - Inserts and deletes

    @Test("Undoing an insert removes the object (it leaves insertedObjects); redo brings it back with its values", arguments: StoreKind.allCases)
    func undoInsert(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let folder = M.insert("Folder", "f1", context)
            try context.save()
            let note = M.insert("Note", "n1", context)
            note.setValue(folder, forKey: "folder")
            context.processPendingChanges()
            context.undo()
            #expect(context.insertedObjects.isEmpty)
            #expect(note.isDeleted)
            #expect(!note.isInserted)
            #expect((folder.value(forKey: "notes") as? NSSet)?.count == 0)
            #expect(!context.hasChanges)
            context.redo()
            #expect(context.insertedObjects == [note])
            #expect(note.value(forKey: "title") as? String == "n1")
            #expect(note.value(forKey: "folder") as? NSManagedObject === folder)
            #expect((folder.value(forKey: "notes") as? NSSet)?.contains(note) == true)
            try context.save()
            #expect(try M.storedGraph(of: context) == M.graph([folder, note], in: context))
        }
    }

    @Test("Undoing a delete brings back the object and everything its Cascade rule removed, with nullified inverses restored", arguments: StoreKind.allCases)
    func undoCascadeDelete(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let folder = M.insert("Folder", "f1", context)
            let notes = (1...2).map { M.insert("Note", "n\($0)", context) }
            let attachment = M.insert("Attachment", "a1", context)
            let tag = M.insert("Tag", "t1", context)
            for note in notes {
                note.setValue(folder, forKey: "folder")
                note.mutableSetValue(forKey: "tags").add(tag)
            }
            attachment.setValue(notes[0], forKey: "note")
            try context.save()
            let all = [folder, attachment, tag] + notes
            let start = M.graph(all, in: context)
            context.delete(folder)
            context.processPendingChanges()
            #expect(context.deletedObjects == Set([folder, attachment] + notes))
            #expect((tag.value(forKey: "notes") as? NSSet)?.count == 0)
            context.undo()
            #expect(context.deletedObjects.isEmpty)
            #expect(!context.hasChanges)
            #expect(M.graph(all, in: context) == start)
            context.redo()
            #expect(context.deletedObjects == Set([folder, attachment] + notes))
            #expect(context.updatedObjects == [tag])
            try context.save()
            #expect(try M.storedGraph(of: context) == M.graph([tag], in: context))
        }
    }

    @Test("ObjectsDidChange is posted for the changes an undo and a redo make", arguments: StoreKind.allCases)
    func notificationsOnUndo(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let note = M.insert("Note", "n1", context)
            try context.save()
            let inserted = M.insert("Tag", "t1", context)
            note.setValue("edited", forKey: "title")
            context.processPendingChanges()
            let recorder = ChangeRecorder(context)
            context.undo()
            #expect(recorder.notes.count == 1)
            #expect(recorder.last(NSUpdatedObjectsKey) == [note])
            #expect(recorder.last(NSDeletedObjectsKey) == [inserted])
            context.redo()
            #expect(recorder.notes.count == 2)
            #expect(recorder.last(NSInsertedObjectsKey) == [inserted])
            #expect(recorder.last(NSUpdatedObjectsKey) == [note])
        }
    }

    // MARK: - Clearing and disabling

    @Test("A new change after an undo clears redo", arguments: StoreKind.allCases)
    func newChangeClearsRedo(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        context.performAndWait {
            let note = M.insert("Note", "n1", context)
            context.processPendingChanges()
            note.setValue("a", forKey: "title")
            context.processPendingChanges()
            context.undo()
            #expect(context.undoManager?.canRedo == true)
            note.setValue("b", forKey: "title")
            context.processPendingChanges()
            #expect(context.undoManager?.canRedo == false)
            context.undo()
            #expect(note.value(forKey: "title") as? String == "n1")
        }
    }

    @Test("rollback() and reset() remove everything from the undo stack", arguments: StoreKind.allCases)
    func rollbackAndResetClearTheStack(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let note = M.insert("Note", "n1", context)
            try context.save()
            note.setValue("a", forKey: "title")
            context.processPendingChanges()
            note.setValue("b", forKey: "title")
            #expect(context.undoManager?.canUndo == true)
            context.rollback()
            #expect(context.undoManager?.canUndo == false)
            #expect(context.undoManager?.canRedo == false)
            #expect(note.value(forKey: "title") as? String == "n1")
            note.setValue("c", forKey: "title")
            context.processPendingChanges()
            context.undo()
            context.reset()
            #expect(context.undoManager?.canUndo == false)
            #expect(context.undoManager?.canRedo == false)
        }
    }

    @Test("disableUndoRegistration() records nothing; fetching and firing faults never register undo", arguments: StoreKind.allCases)
    func disabledAndFetchingRecordNothing(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let manager = try #require(context.undoManager)
            manager.disableUndoRegistration()
            let folder = M.insert("Folder", "f1", context)
            let note = M.insert("Note", "n1", context)
            note.setValue(folder, forKey: "folder")
            context.processPendingChanges()
            manager.enableUndoRegistration()
            #expect(!manager.canUndo)
            try context.save()
            context.reset()
            let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder"))
            let notes = try #require(fetched.first?.value(forKey: "notes") as? NSSet)
            #expect((notes.anyObject() as? NSManagedObject)?.value(forKey: "title") as? String == "n1")
            context.processPendingChanges()
            #expect(!manager.canUndo)
        }
    }

    // MARK: - Undo after save

    @Test("Undo after save: the undone change is a new unsaved change that the next save writes", arguments: StoreKind.allCases)
    func undoAfterSaveMakesObjectsDirty(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let folder = M.insert("Folder", "f1", context)
            let note = M.insert("Note", "n1", context)
            try context.save()
            note.setValue("edited", forKey: "title")
            note.setValue(folder, forKey: "folder")
            context.processPendingChanges()
            try context.save()
            context.undo()
            #expect(context.hasChanges)
            #expect(context.updatedObjects == [note, folder])
            #expect(note.value(forKey: "title") as? String == "n1")
            try context.save()
            #expect(try M.storedGraph(of: context) == M.graph([folder, note], in: context))
            #expect(try M.storedGraph(of: context)["n1"]?.contains("folder=nil") == true)
        }
    }

    @Test("Undo after save brings back inserted-then-saved objects as deletions and deleted-then-saved objects as inserts", arguments: StoreKind.allCases)
    func undoInsertAndDeleteAfterSave(_ kind: StoreKind) throws {
        let context = try makeContext(kind)
        try context.performAndWait {
            let folder = M.insert("Folder", "f1", context)
            let note = M.insert("Note", "n1", context)
            let attachment = M.insert("Attachment", "a1", context)
            note.setValue(folder, forKey: "folder")
            attachment.setValue(note, forKey: "note")
            context.processPendingChanges()
            try context.save()
            let saved = M.graph([folder, note, attachment], in: context)
            context.delete(folder)
            context.processPendingChanges()
            try context.save()
            #expect(try M.storedGraph(of: context).isEmpty)
            context.undo()
            #expect(context.insertedObjects == [folder, note, attachment])
            #expect(M.graph([folder, note, attachment], in: context) == saved)
            try context.save()
            #expect(try M.storedGraph(of: context) == saved)
            // The first step (the inserts) was saved too: undoing it now deletes the rows.
            context.undo()
            #expect(context.deletedObjects == [folder, note, attachment])
            try context.save()
            #expect(try M.storedGraph(of: context).isEmpty)
            context.redo()
            context.redo()
            try context.save()
            #expect(try M.storedGraph(of: context).isEmpty)
            context.undo()
            try context.save()
            #expect(try M.storedGraph(of: context) == saved)
        }
    }
}

/// Collects the context's ObjectsDidChange notifications (posted synchronously on the test's queue).
final class ChangeRecorder: @unchecked Sendable {
    // @unchecked Sendable: the observer runs synchronously inside the context's post, on the
    // queue the test is running on; nothing else touches `notes`.
    private(set) var notes: [Notification] = []
    private var observer: (any NSObjectProtocol)?

    init(_ context: NSManagedObjectContext) {
        observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { [weak self] note in
            self?.notes.append(note)
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    func last(_ key: String) -> Set<NSManagedObject> {
        notes.last?.userInfo?[key] as? Set<NSManagedObject> ?? []
    }
}
#endif
