import Foundation
import Testing
@testable import OpenCoreData

/// A child's reads and pushes of objects its root parent holds, and of objects it does not
/// hold (the parent's state of those is the store's), on an entity of plain attributes.
@Suite("Nested contexts: rows the parent holds and rows it does not")
struct NestedContextRowTests {
    /// Notes: a title and a score, attributes only.
    static func noteModel() -> NSManagedObjectModel {
        let note = TestModels.entity("Note", [TestModels.attribute("title", .stringAttributeType),
                                              TestModels.attribute("score", .integer64AttributeType, defaultValue: 0)])
        let model = NSManagedObjectModel()
        model.entities = [note]
        return model
    }

    /// A root with saved notes A, B, C (scores 1, 2, 3) that it no longer holds.
    static func rootWithNotes(_ kind: StoreKind) throws -> (root: NSManagedObjectContext, ids: [String: NSManagedObjectID]) {
        let root = try kind.context(noteModel())
        let ids = try root.performAndWait {
            var ids: [String: NSManagedObjectID] = [:]
            for (index, title) in ["A", "B", "C"].enumerated() {
                let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: root)
                note.setValue(title, forKey: "title")
                note.setValue(index + 1, forKey: "score")
                try root.obtainPermanentIDs(for: [note])
                ids[title] = note.objectID
            }
            try root.save()
            root.reset()
            return ids
        }
        return (root, ids)
    }

    /// Every note as a context sees it, by title: (title, score).
    static func notes(_ context: NSManagedObjectContext, refresh: Bool = false) throws -> [String: Int] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.shouldRefreshRefetchedObjects = refresh
        return Dictionary(uniqueKeysWithValues: try context.fetch(request).map {
            ($0.value(forKey: "title") as? String ?? "?", ($0.value(forKey: "score") as? NSNumber)?.intValue ?? -1)
        })
    }

    /// The stored notes, read by a new context on the root's coordinator.
    static func storedNotes(_ root: NSManagedObjectContext) throws -> [String: Int] {
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = root.persistentStoreCoordinator
        return try reader.performAndWait { try notes(reader) }
    }

    /// Saves a change to one note from another context on the root's coordinator.
    static func changeFromOtherContext(_ root: NSManagedObjectContext, _ id: NSManagedObjectID, title: String) throws {
        let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        other.persistentStoreCoordinator = root.persistentStoreCoordinator
        try other.performAndWait {
            try other.existingObject(with: id).setValue(title, forKey: "title")
            try other.save()
        }
    }

    @Test("A child saving objects its parent does not hold: the parent's objects become updated with the child's changed values, and keep the stored values of the others", arguments: StoreKind.allCases)
    func pushIntoObjectsTheParentDoesNotHold(_ kind: StoreKind) throws {
        let (root, ids) = try Self.rootWithNotes(kind)
        let child = Nesting.child(of: root)
        try child.performAndWait {
            for note in try child.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) where note.value(forKey: "title") as? String != "C" {
                note.setValue(((note.value(forKey: "score") as? NSNumber)?.intValue ?? 0) + 10, forKey: "score")
            }
            try child.save()
        }
        try root.performAndWait {
            #expect(Set(root.updatedObjects.map(\.objectID)) == [ids["A"]!, ids["B"]!])
            for object in root.updatedObjects {
                #expect(Set(object.changedValues().keys) == ["score"])
                #expect(object.committedValues(forKeys: ["score"])["score"] as? Int != object.value(forKey: "score") as? Int)
            }
            #expect(try Self.notes(root) == ["A": 11, "B": 12, "C": 3])
            #expect(try Self.storedNotes(root) == ["A": 1, "B": 2, "C": 3])
            try root.save()
        }
        #expect(try Self.storedNotes(root) == ["A": 11, "B": 12, "C": 3])
    }

    @Test("A row another context saved after the child read it: the child's changed property wins, the other properties keep that context's values", arguments: StoreKind.allCases)
    func pushOverARowSavedSinceTheChildReadIt(_ kind: StoreKind) throws {
        let (root, ids) = try Self.rootWithNotes(kind)
        let child = Nesting.child(of: root)
        let a = try child.performAndWait { try child.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first { $0.objectID == ids["A"]! }! }
        try Self.changeFromOtherContext(root, ids["A"]!, title: "A by other")
        try child.performAndWait {
            a.setValue(42, forKey: "score")
            try child.save()
        }
        try root.performAndWait {
            let parentA = try root.existingObject(with: ids["A"]!)
            #expect(parentA.value(forKey: "title") as? String == "A by other")
            #expect(parentA.value(forKey: "score") as? Int == 42)
            try root.save()
        }
        #expect(try Self.storedNotes(root) == ["A by other": 42, "B": 2, "C": 3])
    }

    @Test("A child's fetch sees the values of objects its parent holds, not newer stored ones, as the parent's own fetch does; shouldRefreshRefetchedObjects refreshes them", arguments: StoreKind.allCases)
    func childFetchSeesTheParentsHeldObjects(_ kind: StoreKind) throws {
        let (root, ids) = try Self.rootWithNotes(kind)
        let held = try root.performAndWait {
            let a = try root.existingObject(with: ids["A"]!)
            _ = a.value(forKey: "title")
            return a
        }
        try Self.changeFromOtherContext(root, ids["A"]!, title: "A by other")
        try root.performAndWait { () throws in #expect(try Self.notes(root) == ["A": 1, "B": 2, "C": 3]) }
        let child = Nesting.child(of: root)
        try child.performAndWait { () throws in #expect(try Self.notes(child) == ["A": 1, "B": 2, "C": 3]) }
        let refreshing = Nesting.child(of: root)
        try refreshing.performAndWait { () throws in #expect(try Self.notes(refreshing, refresh: true) == ["A by other": 1, "B": 2, "C": 3]) }
        root.performAndWait { #expect(held.value(forKey: "title") as? String == "A by other") }
    }
}
