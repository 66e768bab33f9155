import Foundation
import Testing
@testable import OpenCoreData

/// Shared setup of the nested-context suites: a root context on a store of each kind, children
/// of it, and to-dos with titles (the seed to-do model: Todo ↔ Tag, Todo → Location).
enum Nesting {
    static func child(of parent: NSManagedObjectContext, _ type: NSManagedObjectContext.ConcurrencyType = .privateQueueConcurrencyType) -> NSManagedObjectContext {
        let child = NSManagedObjectContext(concurrencyType: type)
        child.parent = parent
        return child
    }

    @discardableResult
    static func todo(_ title: String, priority: Int = 0, in context: NSManagedObjectContext) -> NSManagedObject {
        let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
        todo.setValue(title, forKey: "title")
        todo.setValue(priority, forKey: "priority")
        return todo
    }

    /// The titles a context's fetch returns, sorted by title.
    static func titles(_ context: NSManagedObjectContext, _ predicate: NSPredicate? = nil, pending: Bool = true) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
        request.predicate = predicate
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        request.includesPendingChanges = pending
        return try context.fetch(request).map { $0.value(forKey: "title") as? String ?? "?" }
    }

    /// The titles stored, read by a new context on the root's coordinator.
    static func storedTitles(_ root: NSManagedObjectContext) throws -> [String] {
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = root.persistentStoreCoordinator
        return try reader.performAndWait { try titles(reader) }
    }

    /// A root with saved to-dos A, B, C.
    static func rootWithABC(_ kind: StoreKind) throws -> (root: NSManagedObjectContext, ids: [String: NSManagedObjectID]) {
        let root = try kind.context(TestModels.todoModel())
        let ids = try root.performAndWait {
            let objects = ["A", "B", "C"].map { todo($0, in: root) }
            try root.save()
            return Dictionary(uniqueKeysWithValues: objects.map { ($0.value(forKey: "title") as! String, $0.objectID) })
        }
        return (root, ids)
    }
}
