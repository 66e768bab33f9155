import OpenCoreData

// The CRUD tutorial's screen, driven by a script: create, toggle, delete, list sorted by title.
// `crud-example <store.sqlite>` keeps the to-dos in a file; without it they live in memory.
do {
    let storeURL = CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    let viewModel = TodoListViewModel(repository: try TodoRepository(storeURL: storeURL))
    try await viewModel.load()
    for title in ["Write tests", "Buy milk", "Ship it"] { try await viewModel.add(title) }
    print("Created:\n\(viewModel.rendered)\n")
    if let milk = viewModel.todos.first(where: { $0.title == "Buy milk" }) { try await viewModel.toggle(milk) }
    print("Toggled 'Buy milk':\n\(viewModel.rendered)\n")
    if let ship = viewModel.todos.first(where: { $0.title == "Ship it" }) { try await viewModel.delete(ship) }
    print("Deleted 'Ship it':\n\(viewModel.rendered)")
} catch {
    FileHandle.standardError.write(Data("crud-example: \(error.localizedDescription)\n".utf8))
    exit(1)
}
