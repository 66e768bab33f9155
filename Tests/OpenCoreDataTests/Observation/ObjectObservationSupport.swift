import Foundation
import Testing
@testable import OpenCoreData

final class OTodo: NSManagedObject {
    @Managed var title: String?
    @Managed var done: Bool
    @Managed var priority: Int16
    @Managed var tags: Set<OTag>
    @Managed var location: OLocation?

    /// A computed property: observing it watches the keys it reads.
    var summary: String { "\(title ?? "") (\(priority))" }
}

final class OTag: NSManagedObject {
    @Managed var name: String?
    @Managed var todos: Set<OTodo>
}

final class OLocation: NSManagedObject {
    @Managed var placeName: String?
    @Managed var todos: Set<OTodo>
}

/// Setup shared by the object observation suites: the seed to-do model with typed classes.
enum Observed {
    static func model() -> NSManagedObjectModel {
        let model = TestModels.todoModel()
        model.entitiesByName["TodoEntity"]!.managedObjectClassName = "OTodo"
        model.entitiesByName["TagEntity"]!.managedObjectClassName = "OTag"
        model.entitiesByName["LocationEntity"]!.managedObjectClassName = "OLocation"
        model.registerManagedObjectClasses([OTodo.self, OTag.self, OLocation.self])
        return model
    }

    /// A context on a new store of `kind` holding saved to-dos with these titles.
    static func context(_ kind: StoreKind, titles: [String]) throws -> (NSManagedObjectContext, [OTodo]) {
        let context = try kind.context(model())
        let todos = try context.performAndWait {
            let todos = titles.map { title in
                let todo = OTodo(context: context)
                todo.title = title
                return todo
            }
            try context.save()
            return todos
        }
        return (context, todos)
    }

    /// Another private-queue context on `context`'s coordinator.
    static func sibling(of context: NSManagedObjectContext) -> NSManagedObjectContext {
        let sibling = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        sibling.persistentStoreCoordinator = context.persistentStoreCoordinator
        return sibling
    }

    /// `context`'s object for `object`'s ID, as its class.
    static func todo(_ object: OTodo, in context: NSManagedObjectContext) throws -> OTodo {
        let id = object.objectID
        return try context.performAndWait { try #require(try context.existingObject(with: id) as? OTodo) }
    }

    /// Returns once `context`'s queue has run every block enqueued on it before the call.
    static func drain(_ context: NSManagedObjectContext) {
        context.performAndWait {}
    }

    /// The number of observers `context`'s hub holds, after removals enqueued so far have run.
    static func observerCount(_ context: NSManagedObjectContext) -> Int {
        context.performAndWait { context.objectObservationHub?.count ?? 0 }
    }
}
