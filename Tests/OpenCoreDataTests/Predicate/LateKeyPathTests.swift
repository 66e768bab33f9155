import Foundation
import Testing
@testable import OpenCoreData

/// A class only these tests use, so no other test's model names it before they run.
final class LateTodo: NSManagedObject {
    @Managed var title: String?
    @Managed var priority: Int16
    /// Not a model property and reads none: a key path to it never has a key-value coding name.
    var weight: Int { 42 }
}

/// Sort descriptors and predicates made from Swift key paths before any model is loaded
/// (`static let byTitle = NSSortDescriptor(keyPath: \Todo.title, ascending: true)`) get their
/// keys when the fetch runs, as Apple's `NSSortDescriptor(keyPath:)` always has a key.
@Suite("Key paths resolved when the fetch runs")
struct LateKeyPathTests {
    static func model() -> NSManagedObjectModel {
        let todo = TestModels.entity("LateTodoEntity", className: "LateTodo", [
            TestModels.attribute("title", .stringAttributeType),
            TestModels.attribute("priority", .integer16AttributeType, defaultValue: 0),
        ])
        let model = NSManagedObjectModel()
        model.entities = [todo]
        return model
    }

    @Test("A key-path sort and #Predicate made before the model sort and filter on every store")
    func resolvedAtFetch() throws {
        // Made first: no loaded model knows LateTodo's entity yet.
        let byTitle = NSSortDescriptor(keyPath: \LateTodo.title, ascending: false)
        let urgent = try #require(NSPredicate(#Predicate<LateTodo> { $0.priority > 1 }))
        let byPriority = NSExpression(forKeyPath: \LateTodo.priority)
        #expect(byTitle.key == nil, "no model names the key path yet")

        for kind in StoreKind.allCases {
            let context = try kind.context(Self.model())
            try context.performAndWait {
                for (title, priority) in [("b", 2), ("d", 1), ("a", 3), ("c", 5)] {
                    let todo = LateTodo(context: context)
                    todo.title = title
                    todo.priority = Int16(priority)
                }
                try context.save()
                let request = NSFetchRequest<LateTodo>(entityName: "LateTodoEntity")
                request.sortDescriptors = [byTitle]
                #expect(try context.fetch(request).map { $0.title ?? "" } == ["d", "c", "b", "a"], "\(kind)")
                request.predicate = urgent
                #expect(try context.fetch(request).map { $0.title ?? "" } == ["c", "b", "a"], "\(kind)")
                request.predicate = NSComparisonPredicate(leftExpression: byPriority, rightExpression: NSExpression(forConstantValue: 3),
                                                          modifier: .direct, type: .greaterThanOrEqualTo)
                #expect(try context.fetch(request).map { $0.title ?? "" } == ["c", "a"], "\(kind)")
            }
            #expect(byTitle.key == "title", "the descriptor answers its key once the model is loaded")
            #expect(urgent.predicateFormat == "priority > 1")
            #expect(byPriority.description == "priority")
            #expect(byPriority.expressionType == .keyPath && byPriority.keyPath == "priority")
        }
    }

    @Test("A key path that still has no name when the fetch runs stops with a message, never ignores the sort")
    func unresolvableStops() async {
        await #expect(processExitsWith: .failure) {
            let context = try TestModels.inMemoryContext(LateKeyPathTests.model())
            try context.performAndWait {
                _ = LateTodo(context: context)
                let request = NSFetchRequest<LateTodo>(entityName: "LateTodoEntity")
                request.sortDescriptors = [NSSortDescriptor(keyPath: \LateTodo.weight, ascending: true)]
                _ = try context.fetch(request)
            }
        }
    }
}
