import OpenCoreData

/// What an import did.
public struct ImportSummary: Sendable, Equatable, Codable {
    public var tagsCreated = 0
    public var tagsUpdated = 0
    public var locationsCreated = 0
    public var locationsUpdated = 0
    public var todosCreated = 0
    public var todosUpdated = 0
}

/// Export and import of the whole store as a `TodoArchive`.
///
/// Import matches records by `tagId`, location `id` and `todoId`, so importing a file twice
/// updates and never duplicates. It checks the whole file first (against the store too, for the
/// tags and locations to-dos name), so a bad file imports nothing and the error names the record
/// at fault. A good file is then written in separate transactions, not one:
/// `NSBatchInsertRequest` upserts of tags, locations and to-dos, then one save linking each
/// to-do to its tags and location (see ``importArchive(_:)``). A failure between them (an I/O
/// error, say) leaves a partial import, which importing the same file again completes. Batch
/// requests need a SQLite store: on the in-memory store, import fails before writing anything.
public struct ArchiveRepository: Sendable {
    let container: NSPersistentContainer
    let todos: TodoDAO
    let tags: TagDAO
    let locations: LocationDAO

    public init(container: NSPersistentContainer) {
        self.container = container
        todos = TodoDAO(container: container)
        tags = TagDAO(container: container)
        locations = LocationDAO(container: container)
    }

    /// Every tag and location (by name) and every to-do (by `todoId`).
    public func export() async throws -> TodoArchive {
        let tagItems = try await tags.findMany()
        let locationItems = try await locations.findMany()
        // By id, not by date: dates go through JSON in milliseconds, and the order of a file and
        // of its re-export must not depend on what that rounding makes equal.
        let todoItems = try await todos.findMany(TodoQuery()).sorted { $0.id < $1.id }
        return TodoArchive(
            format: TodoArchive.formatName,
            version: 1,
            tags: tagItems.map { .init(tagId: $0.id, title: $0.title, createdAt: $0.createdAt, updatedAt: $0.updatedAt) },
            locations: locationItems.map {
                .init(id: $0.id, placeName: $0.placeName, latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude)
            },
            todos: todoItems.map {
                .init(todoId: $0.id, title: $0.title, createdAt: $0.createdAt, updatedAt: $0.updatedAt,
                      completedAt: $0.completedAt, tags: $0.tags.map(\.id), location: $0.location?.id)
            }
        )
    }

    /// Checks what can be checked without the store: format, ids, titles, duplicates.
    static func check(_ archive: TodoArchive) throws {
        guard archive.format == TodoArchive.formatName else {
            throw TodoAppError("format: expected '\(TodoArchive.formatName)', found '\(archive.format)'")
        }
        guard archive.version == 1 else { throw TodoAppError("version: this todo reads version 1, the file is version \(archive.version)") }
        func fail(_ record: String, _ problem: String) -> TodoAppError { TodoAppError("\(record): \(problem)") }
        var tagIds = Set<String>()
        for (index, tag) in archive.tags.enumerated() {
            let record = "tags[\(index)] (tagId \(tag.tagId))"
            guard UUID(uuidString: tag.tagId) != nil else { throw fail(record, "tagId is not a UUID") }
            guard !tag.title.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail(record, "the title is empty") }
            guard tagIds.insert(tag.tagId).inserted else { throw fail(record, "this tagId appears twice") }
        }
        var locationIds = Set<String>()
        for (index, location) in archive.locations.enumerated() {
            let record = "locations[\(index)] (id \(location.id))"
            guard !location.id.isEmpty else { throw fail(record, "the id is empty") }
            guard !location.placeName.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail(record, "the placeName is empty") }
            guard locationIds.insert(location.id).inserted else { throw fail(record, "this id appears twice") }
        }
        var todoIds = Set<String>()
        for (index, todo) in archive.todos.enumerated() {
            let record = "todos[\(index)] (todoId \(todo.todoId))"
            guard UUID(uuidString: todo.todoId) != nil else { throw fail(record, "todoId is not a UUID") }
            guard !todo.title.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail(record, "the title is empty") }
            // Batch inserts skip validation, so the model's rule is checked here.
            guard todo.title.count <= Validate.maximumTodoTitleLength else {
                throw fail(record, "the title is longer than \(Validate.maximumTodoTitleLength) characters")
            }
            guard todoIds.insert(todo.todoId).inserted else { throw fail(record, "this todoId appears twice") }
        }
    }
}
