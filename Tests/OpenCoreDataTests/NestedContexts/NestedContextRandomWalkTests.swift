import Foundation
import Testing
@testable import OpenCoreData

/// Random edits made in a grandchild context, saved up the chain at random points, must leave the
/// store exactly as the same edits made in a root context and saved at the same points.
@Suite("Nested contexts: random walk against a root context")
struct NestedContextRandomWalkTests {
    /// A context and the objects it edits, by key.
    final class Side {
        let context: NSManagedObjectContext
        var todos: [Int: NSManagedObject] = [:]
        var tags: [Int: NSManagedObject] = [:]
        var locations: [Int: NSManagedObject] = [:]
        init(_ context: NSManagedObjectContext) { self.context = context }

        /// Forgets the objects a rollback discarded (inserted since the last save) or deleted.
        func dropUnregistered() {
            todos = todos.filter { $0.value.managedObjectContext === context && !$0.value.isDeleted }
            tags = tags.filter { $0.value.managedObjectContext === context && !$0.value.isDeleted }
            locations = locations.filter { $0.value.managedObjectContext === context && !$0.value.isDeleted }
        }
    }

    /// One edit, applied the same way to both sides.
    static func apply(_ step: Int, _ choice: Int, _ pick: Int, to side: Side) {
        let context = side.context
        let todoKeys = side.todos.keys.sorted()
        let tagKeys = side.tags.keys.sorted()
        let locationKeys = side.locations.keys.sorted()
        func todo() -> NSManagedObject? { todoKeys.isEmpty ? nil : side.todos[todoKeys[pick % todoKeys.count]] }
        switch choice {
        case 0..<3:
            let object = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            object.setValue("todo \(step)", forKey: "title")
            object.setValue(Int16(step % 7), forKey: "priority")
            side.todos[step] = object
        case 3..<5:
            todo()?.setValue("edited \(step)", forKey: "title")
            todo()?.setValue(Int16(pick % 100), forKey: "priority")
        case 5:
            if let object = todo() {
                context.delete(object)
                side.todos = side.todos.filter { $0.value !== object }
            }
        case 6:
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            tag.setValue("tag \(step)", forKey: "name")
            side.tags[step] = tag
        case 7:
            let location = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
            location.setValue("place \(step)", forKey: "placeName")
            side.locations[step] = location
        case 8:
            if let object = todo(), !tagKeys.isEmpty, let tag = side.tags[tagKeys[(pick / 3) % tagKeys.count]] {
                object.mutableSetValue(forKey: "tags").add(tag)
            }
        case 9:
            if let object = todo(), let tags = object.value(forKey: "tags") as? Set<NSManagedObject>,
               let tag = tags.sorted(by: { ($0.value(forKey: "name") as? String ?? "") < ($1.value(forKey: "name") as? String ?? "") }).first {
                object.mutableSetValue(forKey: "tags").remove(tag)
            }
        case 10:
            let location = locationKeys.isEmpty || pick % 4 == 0 ? nil : side.locations[locationKeys[(pick / 5) % locationKeys.count]]
            todo()?.setValue(location, forKey: "location")
        default:
            if !tagKeys.isEmpty, let tag = side.tags[tagKeys[pick % tagKeys.count]] {
                context.delete(tag)
                side.tags = side.tags.filter { $0.value !== tag }
            }
        }
    }

    /// The stored graph, as text that does not depend on object IDs.
    static func dump(_ coordinator: NSPersistentStoreCoordinator) throws -> [String] {
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        return try dump(context: reader)
    }

    static func dump(context reader: NSManagedObjectContext) throws -> [String] {
        try reader.performAndWait {
            let todos = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")).map { todo in
                let tags = (todo.value(forKey: "tags") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
                let location = (todo.value(forKey: "location") as? NSManagedObject)?.value(forKey: "placeName") as? String ?? "-"
                return "todo \(todo.value(forKey: "title") ?? "nil") p\(todo.value(forKey: "priority") ?? "nil") @\(location) \(tags)"
            }
            let tags = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "TagEntity")).map { tag in
                "tag \(tag.value(forKey: "name") ?? "nil") ×\((tag.value(forKey: "todos") as? Set<NSManagedObject>)?.count ?? -1)"
            }
            let locations = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "LocationEntity")).map { location in
                "location \(location.value(forKey: "placeName") ?? "nil") ×\((location.value(forKey: "todos") as? Set<NSManagedObject>)?.count ?? -1)"
            }
            return (todos + tags + locations).sorted()
        }
    }

    @Test("600 random edits in a grandchild, pushed up and saved at random points, store what a root context stores", arguments: StoreKind.allCases, Array(UInt64(1)...UInt64(10)))
    func randomWalk(_ kind: StoreKind, seed: UInt64) throws {
        let model = TestModels.todoModel()
        let root = try kind.context(model)
        let middle = Nesting.child(of: root)
        let leaf = Side(Nesting.child(of: middle))
        let reference = Side(try kind.context(model))
        var generator = SeededGenerator(seed: seed)
        for step in 0..<600 {
            let choice = Int.random(in: 0..<12, using: &generator)
            let pick = Int.random(in: 0..<1_000, using: &generator)
            leaf.context.performAndWait { Self.apply(step, choice, pick, to: leaf) }
            reference.context.performAndWait { Self.apply(step, choice, pick, to: reference) }
            if ProcessInfo.processInfo.environment["OCD_RW_DEBUG"] != nil {
                let a = try Self.dump(context: leaf.context), b = try Self.dump(context: reference.context)
                if a != b {
                    print("DIVERGED at step \(step) choice \(choice) pick \(pick): leaf only \(Set(a).subtracting(b).sorted()) ref only \(Set(b).subtracting(a).sorted())")
                    return
                }
            }
            let action = Int.random(in: 0..<40, using: &generator)
            if ProcessInfo.processInfo.environment["OCD_RW_DEBUG"] != nil { print("step \(step) choice \(choice) action \(action)") }
            switch action {
            case 0..<4:
                // The leaf saves into the middle; the reference saves to its store.
                try leaf.context.performAndWait { try leaf.context.save() }
                try reference.context.performAndWait { try reference.context.save() }
            case 4:
                try leaf.context.performAndWait { try leaf.context.save() }
                try middle.performAndWait { try middle.save() }
                try root.performAndWait { try root.save() }
                try reference.context.performAndWait { try reference.context.save() }
            case 5:
                // Both discard what they did since their last save.
                leaf.context.performAndWait { leaf.context.rollback(); leaf.dropUnregistered() }
                reference.context.performAndWait { reference.context.rollback(); reference.dropUnregistered() }
            case 6:
                try middle.performAndWait { try middle.save() }
            default:
                break
            }
        }
        try leaf.context.performAndWait { try leaf.context.save() }
        try middle.performAndWait { try middle.save() }
        try root.performAndWait { try root.save() }
        try reference.context.performAndWait { try reference.context.save() }
        let stored = try Self.dump(try #require(root.persistentStoreCoordinator))
        let expected = try Self.dump(try #require(reference.context.persistentStoreCoordinator))
        #expect(stored.count > 20)
        #expect(stored == expected, "stored only: \(Set(stored).subtracting(expected).sorted()); expected only: \(Set(expected).subtracting(stored).sorted())")
    }
}
