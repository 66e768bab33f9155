import Foundation
@testable import OpenCoreData

/// The model and graph helpers of the context-undo suites.
///
/// Folder →> notes (cascade; inverse `folder`, nullify), Folder →> pinned (ordered; inverse
/// `pinnedIn`), Note ↔ Tag (many-to-many), Note →> attachments (cascade; inverse `note`).
/// Every entity has a `uid` that is never edited, so graphs compare across contexts.
enum ContextUndoModel {
    static func model() -> NSManagedObjectModel {
        let folder = TestModels.entity("Folder", [uid(), TestModels.attribute("name", .stringAttributeType),
                                                 TestModels.attribute("rank", .integer32AttributeType, defaultValue: 0)])
        let note = TestModels.entity("Note", [uid(), TestModels.attribute("title", .stringAttributeType),
                                             TestModels.attribute("score", .integer64AttributeType, defaultValue: 0)])
        let tag = TestModels.entity("Tag", [uid(), TestModels.attribute("name", .stringAttributeType)])
        let attachment = TestModels.entity("Attachment", [uid(), TestModels.attribute("name", .stringAttributeType)])
        let notes = TestModels.relationship("notes", to: note, toMany: true, deleteRule: .cascadeDeleteRule)
        let noteFolder = TestModels.relationship("folder", to: folder, toMany: false)
        TestModels.inverse(notes, noteFolder)
        let pinned = TestModels.relationship("pinned", to: note, toMany: true, ordered: true)
        let pinnedIn = TestModels.relationship("pinnedIn", to: folder, toMany: false)
        TestModels.inverse(pinned, pinnedIn)
        let tags = TestModels.relationship("tags", to: tag, toMany: true)
        let tagNotes = TestModels.relationship("notes", to: note, toMany: true)
        TestModels.inverse(tags, tagNotes)
        let attachments = TestModels.relationship("attachments", to: attachment, toMany: true, deleteRule: .cascadeDeleteRule)
        let attachmentNote = TestModels.relationship("note", to: note, toMany: false)
        TestModels.inverse(attachments, attachmentNote)
        folder.properties += [notes, pinned]
        note.properties += [noteFolder, pinnedIn, tags, attachments]
        tag.properties += [tagNotes]
        attachment.properties += [attachmentNote]
        let model = NSManagedObjectModel()
        model.entities = [folder, note, tag, attachment]
        return model
    }

    private static func uid() -> NSAttributeDescription {
        TestModels.attribute("uid", .stringAttributeType)
    }

    static let entityNames = ["Folder", "Note", "Tag", "Attachment"]

    /// Inserts an object with a uid and a name or title.
    @discardableResult
    static func insert(_ entityName: String, _ uid: String, _ context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entityName, into: context)
        object.setValue(uid, forKey: "uid")
        object.setValue(uid, forKey: entityName == "Note" ? "title" : "name")
        return object
    }

    // MARK: - Graphs

    /// Every live object (registered with `context`, not deleted) among `objects`, described by uid:
    /// attributes as values, relationships as destination uids (sorted unless ordered).
    static func graph(_ objects: [NSManagedObject], in context: NSManagedObjectContext) -> [String: String] {
        var result: [String: String] = [:]
        for object in objects where object.managedObjectContext === context && !object.isDeleted {
            result[uid(object)] = describe(object)
        }
        return result
    }

    /// The graph the store holds, read through a new context on the same coordinator.
    static func storedGraph(of context: NSManagedObjectContext) throws -> [String: String] {
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = context.persistentStoreCoordinator
        return try reader.performAndWait {
            var objects: [NSManagedObject] = []
            for name in entityNames {
                objects += try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: name))
            }
            return graph(objects, in: reader)
        }
    }

    static func uid(_ object: NSManagedObject) -> String {
        object.value(forKey: "uid") as? String ?? "?"
    }

    static func describe(_ object: NSManagedObject) -> String {
        let properties = object.entity.properties.sorted { $0.name < $1.name }
        return properties.map { property -> String in
            let value = object.value(forKey: property.name)
            guard let relationship = property as? NSRelationshipDescription else {
                return "\(property.name)=\(value.map { "\($0)" } ?? "nil")"
            }
            if !relationship.isToMany {
                return "\(property.name)=\((value as? NSManagedObject).map(uid) ?? "nil")"
            }
            if let ordered = value as? NSOrderedSet {
                return "\(property.name)=[\(ordered.array.map { uid($0 as! NSManagedObject) }.joined(separator: ","))]"
            }
            let members = ((value as? NSSet)?.allObjects ?? []).map { uid($0 as! NSManagedObject) }.sorted()
            return "\(property.name)={\(members.joined(separator: ","))}"
        }.joined(separator: " ")
    }

    static func uids(_ objects: Set<NSManagedObject>) -> Set<String> {
        Set(objects.map(uid))
    }
}
