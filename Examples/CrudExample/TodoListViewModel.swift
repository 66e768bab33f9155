/// What a to-do list screen binds to: the rows, and the actions that change them.
/// (The tutorial's is an `ObservableObject` on the main actor; a plain class is enough here.)
final class TodoListViewModel {
    private let repository: TodoRepository
    private(set) var todos: [TodoRow] = []

    init(repository: TodoRepository) {
        self.repository = repository
    }

    func load() async throws { todos = try await repository.all() }

    func add(_ title: String) async throws {
        _ = try await repository.create(title: title)
        try await load()
    }

    func toggle(_ row: TodoRow) async throws {
        try await repository.toggle(row.id)
        try await load()
    }

    func delete(_ row: TodoRow) async throws {
        try await repository.delete(row.id)
        try await load()
    }

    /// The list as a screen would show it.
    var rendered: String {
        todos.isEmpty ? "(no to-dos)" : todos.map { "\($0.isDone ? "[x]" : "[ ]") \($0.title)" }.joined(separator: "\n")
    }
}
