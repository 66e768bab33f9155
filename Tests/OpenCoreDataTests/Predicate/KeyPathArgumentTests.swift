import Foundation
import Testing
@testable import OpenCoreData

final class KTodo: NSManagedObject {
    @Managed var title: String?
    @Managed var priority: Int16
    @Managed var location: KLocation?
}

final class KLocation: NSManagedObject {
    @Managed var placeName: String?
}

/// `#keyPath(Todo.title)` needs the Objective-C runtime; Swift key paths take its place.
@Suite("Swift key paths in place of #keyPath")
struct KeyPathArgumentTests {
    static func context() throws -> NSManagedObjectContext {
        let model = TestModels.todoModel()
        model.entitiesByName["TodoEntity"]!.managedObjectClassName = "KTodo"
        model.entitiesByName["LocationEntity"]!.managedObjectClassName = "KLocation"
        return try TestModels.inMemoryContext(model)
    }

    @Test("%K takes a Swift key path to @Managed properties, through to-one relationships too")
    func keyPathFormatArgument() throws {
        let context = try Self.context()
        try context.performAndWait {
            let todo = KTodo(context: context)
            todo.title = "Buy milk"
            let place = KLocation(context: context)
            place.placeName = "Shop"
            todo.location = place
            try context.save()
            let byTitle = NSPredicate(format: "%K == %@", \KTodo.title, "Buy milk")
            #expect(byTitle.predicateFormat == #"title == "Buy milk""#)
            let request = NSFetchRequest<KTodo>(entityName: "TodoEntity")
            request.predicate = NSPredicate(format: "%K BEGINSWITH %@", \KTodo.location?.placeName, "Sh")
            #expect(try context.fetch(request) == [todo])
        }
    }

    @Test("NSExpression(forKeyPath:) names a Swift key path: the portable spelling of #keyPath")
    func portableKeyName() throws {
        // The names come from the loaded model, which the context keeps alive.
        let context = try Self.context()
        #expect(NSExpression(forKeyPath: \KTodo.title).keyPath == "title")
        #expect(NSExpression(forKeyPath: \KTodo.location?.placeName).keyPath == "location.placeName")
        withExtendedLifetime(context) {}
    }

    @Test("A %K argument that is neither a string nor a nameable key path is a format error, not a trap")
    func badKeyPathArgument() {
        #expect(throws: (any Error).self) { try NSPredicate.parse(format: "%K == 1", arguments: [\String.count]) }
        #expect(throws: (any Error).self) { try NSPredicate.parse(format: "%K == 1", arguments: [42]) }
    }
}
