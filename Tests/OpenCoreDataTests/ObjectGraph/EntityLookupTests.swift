import Foundation
import Testing
@testable import OpenCoreData

/// A class no model names.
final class UnclaimedObject: NSManagedObject {}

/// A class whose entity is in a loaded model.
final class ClaimedNote: NSManagedObject {
    @Managed var text: String?

    /// `Self(context:)` in a class method, as model layers write factories.
    static func make(in context: NSManagedObjectContext, text: String) -> Self {
        let note = Self(context: context)
        note.text = text
        return note
    }
}

@Suite("Entity lookup and initializers")
struct EntityLookupTests {
    static func model() -> NSManagedObjectModel {
        let note = TestModels.entity("Note", className: "ClaimedNote", [TestModels.attribute("text", .stringAttributeType)])
        let model = NSManagedObjectModel()
        model.entities = [note]
        return model
    }

    @Test("entity() of a class no loaded model claims is an unnamed entity, as on Apple platforms")
    func unclaimedClassEntity() {
        let entity = UnclaimedObject.entity()
        #expect(entity.name == nil)
        #expect(entity.properties.isEmpty)
        #expect(entity.managedObjectClassName.hasSuffix("UnclaimedObject"))
        #expect(UnclaimedObject.fetchRequest().entityName == "UnclaimedObject")
    }

    @Test("init() makes an object of the class's entity that belongs to no context; insert(_:) adds it")
    func plainInit() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        try context.performAndWait {
            let note = ClaimedNote()
            #expect(note.entity.name == "Note")
            #expect(note.managedObjectContext == nil)
            note.text = "detached"
            context.insert(note)
            #expect(note.isInserted)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<ClaimedNote>(entityName: "Note")) == 1)
        }
    }

    @Test("Self(context:) works in class methods of subclasses")
    func selfInitInClassMethod() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        context.performAndWait {
            let note = ClaimedNote.make(in: context, text: "hello")
            #expect(note.isInserted && note.text == "hello")
        }
    }

    @Test("Coordinator and container subclasses can be made with Self(...)")
    func requiredStackInitializers() {
        final class Coordinator: NSPersistentStoreCoordinator, @unchecked Sendable {
            static func make(_ model: NSManagedObjectModel) -> Self { Self(managedObjectModel: model) }
        }
        final class Container: NSPersistentContainer, @unchecked Sendable {
            static func make(_ model: NSManagedObjectModel) -> Self { Self(name: "Notes", managedObjectModel: model) }
        }
        let model = Self.model()
        #expect(Coordinator.make(model).managedObjectModel === model)
        #expect(Container.make(model).name == "Notes")
    }

    @Test("NSManagedObjectContext(.mainQueue) and (.privateQueue) are Apple's iOS 15 spellings")
    func concurrencyTypeSpellings() {
        #expect(NSManagedObjectContext(.privateQueue).concurrencyType == .privateQueueConcurrencyType)
        let type: NSManagedObjectContextConcurrencyType = .mainQueue
        #expect(type == .mainQueueConcurrencyType)
    }
}
