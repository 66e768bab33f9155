import Foundation
import Testing
@testable import OpenCoreData

/// Records the fault lifecycle hooks Apple documents for refresh and reset.
final class FaultHookObject: NSManagedObject {
    var events: [String] = []
    override func willTurnIntoFault() { events.append("willTurnIntoFault") }
    override func didTurnIntoFault() { events.append("didTurnIntoFault") }
    override func awakeFromFetch() { events.append("awakeFromFetch") }
}

@Suite("Refreshing and resetting")
struct RefreshResetTests {
    /// Notes with a title, a priority and a transient scratch value.
    static func model() -> NSManagedObjectModel {
        let note = TestModels.entity("Note", className: "FaultHookObject", [
            TestModels.attribute("title", .stringAttributeType),
            TestModels.attribute("priority", .integer32AttributeType, defaultValue: 0),
            TestModels.attribute("scratch", .stringAttributeType, transient: true),
        ])
        let model = NSManagedObjectModel()
        model.entities = [note]
        return model
    }

    /// A saved note whose transient value is set (and saved with it, so the note is unchanged).
    static func savedNote(_ context: NSManagedObjectContext) throws -> FaultHookObject {
        let note = FaultHookObject(context: context)
        note.setValue("saved", forKey: "title")
        note.setValue("scratch", forKey: "scratch")
        try context.save()
        note.events = []
        return note
    }

    /// Saves a new title for the note from another context (on SQLite, another coordinator).
    static func changeTitleElsewhere(_ other: NSManagedObjectContext, _ id: NSManagedObjectID, to title: String) throws {
        try other.performAndWait {
            try other.existingObject(with: id).setValue(title, forKey: "title")
            try other.save()
        }
    }

    @Test("refresh(_:mergeChanges: true) turns an unchanged object into a fault; its transient value is gone", arguments: StoreKind.allCases)
    func refreshMergingUnchangedObject(_ kind: StoreKind) throws {
        let (context, other) = try kind.contextPair(Self.model())
        try context.performAndWait {
            let note = try Self.savedNote(context)
            try Self.changeTitleElsewhere(other, note.objectID, to: "theirs")
            context.refresh(note, mergeChanges: true)
            #expect(note.isFault)
            #expect(note.events == ["willTurnIntoFault", "didTurnIntoFault"])
            #expect(note.value(forKey: "title") as? String == "theirs")
            #expect(note.value(forKey: "scratch") == nil)
            #expect(!context.hasChanges)
        }
    }

    @Test("refresh(_:mergeChanges: true) of a changed object reloads its row and re-applies its pending changes", arguments: StoreKind.allCases)
    func refreshMergingChangedObject(_ kind: StoreKind) throws {
        let (context, other) = try kind.contextPair(Self.model())
        try context.performAndWait {
            let note = try Self.savedNote(context)
            try other.performAndWait {
                try other.existingObject(with: note.objectID).setValue(7, forKey: "priority")
                try other.save()
            }
            note.setValue("mine", forKey: "title")
            note.setValue("kept", forKey: "scratch")
            context.refresh(note, mergeChanges: true)
            // Apple: the object is turned into a fault, reloaded, and the local changes applied over it.
            #expect(note.events == ["willTurnIntoFault", "didTurnIntoFault", "awakeFromFetch"])
            #expect(!note.isFault)
            #expect(note.value(forKey: "title") as? String == "mine")
            #expect(note.value(forKey: "priority") as? Int == 7)
            #expect(note.value(forKey: "scratch") as? String == "kept")
            #expect(context.updatedObjects == [note])
            try context.save()
        }
        try other.performAndWait {
            let stored = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
            #expect(stored.count == 1)
            #expect(stored.first?.value(forKey: "title") as? String == "mine")
            #expect(stored.first?.value(forKey: "priority") as? Int == 7)
        }
    }

    @Test("refreshAllObjects() faults unchanged objects and keeps the pending changes of changed ones", arguments: StoreKind.allCases)
    func refreshAllObjects(_ kind: StoreKind) throws {
        let (context, other) = try kind.contextPair(Self.model())
        try context.performAndWait {
            let clean = try Self.savedNote(context)
            let dirty = try Self.savedNote(context)
            try Self.changeTitleElsewhere(other, clean.objectID, to: "theirs")
            dirty.setValue("mine", forKey: "title")
            dirty.events = []
            context.refreshAllObjects()
            #expect(clean.isFault)
            #expect(clean.events == ["willTurnIntoFault", "didTurnIntoFault"])
            #expect(!dirty.isFault)
            #expect(dirty.value(forKey: "title") as? String == "mine")
            #expect(dirty.value(forKey: "scratch") as? String == "scratch")
            #expect(clean.value(forKey: "title") as? String == "theirs")
            #expect(context.updatedObjects == [dirty])
        }
    }

    @Test("refresh(_:mergeChanges: false) of an object inserted and saved here discards its unsaved changes", arguments: StoreKind.allCases)
    func refreshDiscardingChangesOfSavedInsert(_ kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        try context.performAndWait {
            let note = try Self.savedNote(context)
            note.setValue("unsaved", forKey: "title")
            #expect(context.hasChanges)
            context.refresh(note, mergeChanges: false)
            #expect(note.isFault)
            #expect(note.events == ["willTurnIntoFault", "didTurnIntoFault"])
            #expect(!note.isUpdated)
            #expect(!context.hasChanges)
            #expect(note.value(forKey: "title") as? String == "saved")
            // Apple: with mergeChanges false, transient values are disposed of.
            #expect(note.value(forKey: "scratch") == nil)
        }
    }

    @Test("reset() turns every registered object into an invalid fault and posts NSInvalidatedAllObjectsKey", arguments: StoreKind.allCases)
    func reset(_ kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange], object: context)
        try context.performAndWait {
            let saved = try Self.savedNote(context)
            let inserted = FaultHookObject(context: context)
            inserted.setValue("new", forKey: "title")
            context.processPendingChanges()
            let before = log.notifications.count
            let ids = [saved.objectID, inserted.objectID]
            context.reset()
            for note in [saved, inserted] {
                #expect(note.isFault)
                #expect(note.managedObjectContext == nil)
                #expect(!note.isInserted && !note.hasChanges)
            }
            #expect(saved.events == ["willTurnIntoFault", "didTurnIntoFault"])
            #expect(context.registeredObjects.isEmpty && !context.hasChanges)
            let notes = log.notifications.dropFirst(before)
            #expect(notes.count == 1)
            let invalidated = notes.first?.userInfo?[NSInvalidatedAllObjectsKey] as? [NSManagedObjectID]
            #expect(Set(invalidated ?? []) == Set(ids))
            // An invalid fault reads as empty instead of trapping; the row is still there.
            #expect(saved.value(forKey: "title") == nil)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 1)
            #expect(try context.existingObject(with: ids[0]) !== saved)
        }
    }
}
