import Foundation
import Testing
@testable import OpenCoreData

#if !canImport(Darwin)
/// Issue #18 (Must 7, Done-when): 1,000 random edits, each one undo step, undone back to the
/// start graph and redone to the end graph, on both stores.
@Suite("Context undo random walk")
struct ContextUndoRandomWalkTests {
    typealias M = ContextUndoModel

    /// How the walk treats the store.
    enum Start: String, CaseIterable, Sendable {
        /// The start graph is inserted and never saved.
        case unsaved
        /// The start graph is saved before the walk.
        case saved
        /// The start graph is saved, and the walk saves every 97 edits (undo then crosses saves).
        case savingDuringWalk
    }

    /// The walk's state: every object it ever made (held, so undo can bring any back) and uids.
    final class Walk {
        let context: NSManagedObjectContext
        var random: SeededGenerator
        var objects: [NSManagedObject] = []
        var nextUID = 0

        init(context: NSManagedObjectContext, seed: UInt64) {
            self.context = context
            random = SeededGenerator(seed: seed)
        }

        func live(_ entityName: String) -> [NSManagedObject] {
            objects.filter { $0.entity.name == entityName && $0.managedObjectContext === context && !$0.isDeleted }
        }

        func pick(_ entityName: String) -> NSManagedObject? {
            let candidates = live(entityName)
            return candidates.isEmpty ? nil : candidates[Int.random(in: 0..<candidates.count, using: &random)]
        }

        @discardableResult
        func insert(_ entityName: String) -> NSManagedObject {
            nextUID += 1
            let object = M.insert(entityName, "\(entityName.prefix(1).lowercased())\(nextUID)", context)
            objects.append(object)
            return object
        }

        /// The start graph: 3 folders, 12 notes in them (some pinned), 4 tags, 6 attachments.
        func buildStart() {
            let folders = (0..<3).map { _ in insert("Folder") }
            let tags = (0..<4).map { _ in insert("Tag") }
            for index in 0..<12 {
                let note = insert("Note")
                note.setValue(folders[index % 3], forKey: "folder")
                note.mutableSetValue(forKey: "tags").add(tags[index % 4])
                if index % 2 == 0 { folders[(index + 1) % 3].mutableOrderedSetValue(forKey: "pinned").add(note) }
                if index % 2 == 1 { insert("Attachment").setValue(note, forKey: "note") }
            }
        }

        /// Makes one edit that always changes the graph (so it is exactly one undo step).
        func edit(_ step: Int) {
            switch Int.random(in: 0..<9, using: &random) {
            case 0:
                guard let note = pick("Note") else { insert("Note"); return }
                if Bool.random(using: &random) {
                    note.setValue("title \(step)", forKey: "title")
                } else {
                    note.setValue(Int64(step + 1), forKey: "score")
                }
            case 1:
                guard let folder = pick("Folder") else { insert("Folder"); return }
                folder.setValue(Int32(step + 1), forKey: "rank")
            case 2:
                // To-one (and its to-many inverse): move a note to another folder, or out of any.
                guard let note = pick("Note") else { insert("Note"); return }
                let current = note.value(forKey: "folder") as? NSManagedObject
                let others = live("Folder").filter { $0 !== current }
                if current != nil, others.isEmpty || Bool.random(using: &random) {
                    note.setValue(nil, forKey: "folder")
                } else if let target = others.randomElement(using: &random) {
                    note.setValue(target, forKey: "folder")
                } else {
                    insert("Folder").mutableSetValue(forKey: "notes").add(note)
                }
            case 3:
                // Many-to-many: toggle a tag, from either side.
                guard let note = pick("Note"), let tag = pick("Tag") else { insert("Tag"); return }
                let tags = note.mutableSetValue(forKey: "tags")
                if tags.contains(tag) {
                    if Bool.random(using: &random) { tags.remove(tag) } else { tag.mutableSetValue(forKey: "notes").remove(note) }
                } else {
                    if Bool.random(using: &random) { tags.add(tag) } else { tag.mutableSetValue(forKey: "notes").add(note) }
                }
            case 4:
                // Ordered to-many: pin at a position (taking the note from another folder), move, or unpin.
                guard let folder = pick("Folder"), let note = pick("Note") else { insert("Folder"); return }
                let pinned = folder.mutableOrderedSetValue(forKey: "pinned")
                if pinned.contains(note) {
                    if pinned.count >= 2, Bool.random(using: &random) {
                        let from = pinned.index(of: note)
                        var to = Int.random(in: 0..<pinned.count - 1, using: &random)
                        if to >= from { to += 1 }
                        pinned.moveObjects(at: IndexSet(integer: from), to: to)
                    } else {
                        pinned.remove(note)
                    }
                } else {
                    pinned.insert(note, at: Int.random(in: 0...pinned.count, using: &random))
                }
            case 5:
                // Attachment to another note (to-one whose inverse is a cascading to-many).
                guard let attachment = pick("Attachment"), let note = pick("Note"),
                      attachment.value(forKey: "note") as? NSManagedObject !== note else { insert("Attachment"); return }
                attachment.setValue(note, forKey: "note")
            case 6:
                let entityName = M.entityNames[Int.random(in: 0..<4, using: &random)]
                let object = insert(entityName)
                if entityName == "Note", let folder = pick("Folder") { object.setValue(folder, forKey: "folder") }
                if entityName == "Attachment", let note = pick("Note") { object.setValue(note, forKey: "note") }
            case 7:
                // Deleting a note or a folder cascades (notes, attachments); tags nullify.
                let entityName = ["Note", "Tag", "Attachment", "Note"][Int.random(in: 0..<4, using: &random)]
                guard let object = pick(entityName) else { insert(entityName); return }
                context.delete(object)
            default:
                guard let folder = pick("Folder"), live("Folder").count > 2 else { insert("Folder"); return }
                context.delete(folder)
            }
        }
    }

    @Test("1,000 random edits undone one step at a time restore the start graph; redone, the end graph",
          arguments: StoreKind.allCases, Start.allCases)
    func randomWalk(_ kind: StoreKind, _ start: Start) throws {
        let context = try kind.context(M.model())
        try context.performAndWait {
            let walk = Walk(context: context, seed: 0x0DD0_5EED ^ UInt64(start.rawValue.count))
            walk.buildStart()
            if start != .unsaved { try context.save() }
            context.processPendingChanges()
            let manager = UndoManager()
            context.undoManager = manager
            let startGraph = M.graph(walk.objects, in: context)
            let startInserted = M.uids(context.insertedObjects)

            for step in 0..<1_000 {
                walk.edit(step)
                context.processPendingChanges()
                if start == .savingDuringWalk, step % 97 == 96 { try context.save() }
            }
            let endGraph = M.graph(walk.objects, in: context)
            #expect(endGraph != startGraph)

            var undos = 0
            while manager.canUndo {
                context.undo()
                undos += 1
            }
            #expect(undos == 1_000, "each edit is one undo step")
            #expect(M.graph(walk.objects, in: context) == startGraph)
            switch start {
            case .unsaved:
                #expect(M.uids(context.insertedObjects) == startInserted)
                #expect(context.deletedObjects.isEmpty && context.updatedObjects.isEmpty)
            case .saved:
                #expect(!context.hasChanges, "undone back to the saved graph: nothing to save")
            case .savingDuringWalk:
                // Undo across saves leaves unsaved changes (objects deleted and saved come back
                // as inserts, saved inserts become deletes); saving them restores the start rows.
                #expect(context.hasChanges)
            }
            if start != .unsaved {
                try context.save()
                #expect(try M.storedGraph(of: context) == startGraph)
            }

            var redos = 0
            while manager.canRedo {
                context.redo()
                redos += 1
            }
            #expect(redos == 1_000)
            #expect(M.graph(walk.objects, in: context) == endGraph)
            try context.save()
            #expect(try M.storedGraph(of: context) == endGraph)
            #expect(M.graph(walk.objects, in: context) == endGraph)
        }
    }
}
#endif
