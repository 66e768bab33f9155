import OpenCoreData

/// A to-do as the view model sees it.
struct TodoRow: Sendable, Equatable {
    var id: UUID
    var title: String
    var isDone: Bool
}

/// Create, toggle, delete and list to-dos; the only code that touches Core Data.
final class TodoRepository: Sendable {
    private let container: NSPersistentContainer

    /// A repository over a store file, or an in-memory store when `storeURL` is nil.
    init(storeURL: URL? = nil) throws {
        container = NSPersistentContainer(name: "Todos", managedObjectModel: TodoModel.make())
        let description = storeURL.map(NSPersistentStoreDescription.init(url:)) ?? NSPersistentStoreDescription()
        if storeURL == nil { description.type = NSInMemoryStoreType }
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
    }

    func create(title: String) async throws -> TodoRow {
        try await container.performBackgroundTask { context in
            let todo = Todo(context: context)
            todo.id = UUID()
            todo.title = title
            try context.save()
            return Self.row(todo)
        }
    }

    func toggle(_ id: UUID) async throws {
        try await container.performBackgroundTask { context in
            guard let todo = try Self.todo(id, in: context) else { return }
            todo.isDone.toggle()
            try context.save()
        }
    }

    func delete(_ id: UUID) async throws {
        try await container.performBackgroundTask { context in
            guard let todo = try Self.todo(id, in: context) else { return }
            context.delete(todo)
            try context.save()
        }
    }

    /// Every to-do, sorted by title.
    func all() async throws -> [TodoRow] {
        try await container.performBackgroundTask { context in
            let request = NSFetchRequest<Todo>(entityName: "Todo")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try context.fetch(request).map(Self.row)
        }
    }

    private static func todo(_ id: UUID, in context: NSManagedObjectContext) throws -> Todo? {
        let request = NSFetchRequest<Todo>(entityName: "Todo")
        request.predicate = NSPredicate(format: "id == %@", id)
        return try context.fetch(request).first
    }

    private static func row(_ todo: Todo) -> TodoRow {
        TodoRow(id: todo.id ?? UUID(), title: todo.title ?? "", isDone: todo.isDone)
    }
}
