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
/// changes nothing the second time. It checks the whole file first and writes everything in one
/// save, so a bad file imports nothing; the error names the record at fault.
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

    /// Imports an archive's JSON: all of it, or (throwing) none of it.
    public func importArchive(_ data: Data) async throws -> ImportSummary {
        let archive = try TodoArchive.decode(data)
        try Self.check(archive)
        return try await container.performBackgroundTask { context in
            var summary = ImportSummary()
            for tag in archive.tags {
                let existing = try TagDAO.entity(id: tag.tagId, in: context)
                if existing == nil { summary.tagsCreated += 1 } else { summary.tagsUpdated += 1 }
                let entity = existing ?? TagEntity(context: context)
                TagDAO.apply(title: tag.title, id: tag.tagId, createdAt: tag.createdAt, updatedAt: tag.updatedAt ?? existing?.updatedAt, to: entity)
            }
            for location in archive.locations {
                let existing = try LocationDAO.entity(id: location.id, in: context)
                if existing == nil { summary.locationsCreated += 1 } else { summary.locationsUpdated += 1 }
                LocationDAO.apply(
                    .init(id: location.id, placeName: location.placeName, latitude: location.latitude ?? 0,
                          longitude: location.longitude ?? 0, altitude: location.altitude ?? 0),
                    to: existing ?? LocationEntity(context: context)
                )
            }
            for (index, todo) in archive.todos.enumerated() {
                let existing = try TodoDAO.entity(id: todo.todoId, in: context)
                if existing == nil { summary.todosCreated += 1 } else { summary.todosUpdated += 1 }
                let draft = TodoDAO.Draft(id: todo.todoId, title: todo.title, tagIds: todo.tags ?? [], locationId: todo.location,
                                          createdAt: todo.createdAt, updatedAt: todo.updatedAt ?? existing?.updatedAt,
                                          completedAt: todo.completedAt)
                do {
                    try TodoDAO.apply(draft, to: existing ?? TodoEntity(context: context), in: context)
                } catch let error as TodoAppError {
                    throw TodoAppError("todos[\(index)] (todoId \(todo.todoId)): \(error.message)")
                }
            }
            try context.save()
            return summary
        }
    }

    /// Checks what can be checked without the store: ids, titles, duplicates, references.
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
            guard todoIds.insert(todo.todoId).inserted else { throw fail(record, "this todoId appears twice") }
        }
    }
}
