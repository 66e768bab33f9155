import OpenCoreData

/// Reads and writes `TodoEntity` rows, each call on its own background context
/// (`performBackgroundTask`), as the seed app's DAO does. Hands out `TodoItem` values only.
public struct TodoDAO: Sendable {
    /// What `createOne` inserts. Ids and dates are filled in when nil (an import passes them).
    public struct Draft: Sendable, Equatable {
        public var id: String?
        public var title: String
        public var tagIds: [String]
        public var locationId: String?
        public var createdAt: Date?
        public var updatedAt: Date?
        public var completedAt: Date?

        public init(id: String? = nil, title: String, tagIds: [String] = [], locationId: String? = nil,
                    createdAt: Date? = nil, updatedAt: Date? = nil, completedAt: Date? = nil) {
            self.id = id
            self.title = title
            self.tagIds = tagIds
            self.locationId = locationId
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.completedAt = completedAt
        }
    }

    /// What `updateOne` changes; nil fields are left alone.
    public struct Change: Sendable, Equatable {
        public var title: String?
        /// true marks the to-do done (now), false open.
        public var isDone: Bool?
        public var addTagIds: [String] = []
        public var removeTagIds: [String] = []
        /// `.some(nil)` removes the location.
        public var locationId: String??

        public init(title: String? = nil, isDone: Bool? = nil, addTagIds: [String] = [], removeTagIds: [String] = [], locationId: String?? = nil) {
            self.title = title
            self.isDone = isDone
            self.addTagIds = addTagIds
            self.removeTagIds = removeTagIds
            self.locationId = locationId
        }
    }

    let container: NSPersistentContainer

    public init(container: NSPersistentContainer) {
        self.container = container
    }

    // MARK: - CRUD

    /// Inserts a to-do and saves.
    public func createOne(_ draft: Draft) async throws -> TodoItem {
        try await container.performBackgroundTask { context in
            let todo = TodoEntity(context: context)
            try Self.apply(draft, to: todo, in: context)
            try context.save()
            return Self.item(from: todo)
        }
    }

    /// Changes the to-do whose `todoId` is `id` and saves; nil when there is none.
    public func updateOne(id: String, _ change: Change) async throws -> TodoItem? {
        try await container.performBackgroundTask { context in
            guard let todo = try Self.entity(id: id, in: context) else { return nil }
            if let title = change.title { todo.title = title }
            if let isDone = change.isDone { todo.completedAt = isDone ? (todo.completedAt ?? Date()) : nil }
            for tagId in change.addTagIds {
                guard let tag = try TagDAO.entity(id: tagId, in: context) else { throw TodoAppError.notFound("tag", tagId) }
                todo.addToTags(tag)
            }
            for tagId in change.removeTagIds {
                if let tag = try TagDAO.entity(id: tagId, in: context) { todo.removeFromTags(tag) }
            }
            if let locationId = change.locationId {
                if let locationId {
                    guard let location = try LocationDAO.entity(id: locationId, in: context) else {
                        throw TodoAppError.notFound("location", locationId)
                    }
                    todo.location = location
                } else {
                    todo.location = nil
                }
            }
            todo.updatedAt = Date()
            try context.save()
            return Self.item(from: todo)
        }
    }

    /// Deletes the to-do whose `todoId` is `id` and saves; false when there is none.
    public func deleteOne(id: String) async throws -> Bool {
        try await container.performBackgroundTask { context in
            guard let todo = try Self.entity(id: id, in: context) else { return false }
            context.delete(todo)
            try context.save()
            return true
        }
    }

    /// The to-do whose `todoId` is `id`.
    public func findOne(id: String) async throws -> TodoItem? {
        try await container.performBackgroundTask { context in
            try Self.entity(id: id, in: context).map(Self.item(from:))
        }
    }

    /// The page of to-dos the query asks for, newest `updatedAt` first.
    public func findMany(_ query: TodoQuery) async throws -> [TodoItem] {
        try await container.performBackgroundTask { context in
            try context.fetch(Self.request(for: query)).map(Self.item(from:))
        }
    }

    /// How many to-dos match the query's filter (its paging ignored).
    public func count(_ query: TodoQuery) async throws -> Int {
        try await container.performBackgroundTask { context in
            let request = Self.request(for: TodoQuery(search: query.search, tagId: query.tagId, isDone: query.isDone))
            return try context.count(for: request)
        }
    }

    /// The `todoId`s that start with `prefix` (ignoring case), so users can type a short id.
    public func ids(withPrefix prefix: String) async throws -> [String] {
        try await container.performBackgroundTask { context in
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.predicate = NSPredicate(format: "todoId BEGINSWITH[c] %@", prefix)
            return try context.fetch(request).compactMap(\.todoId).sorted()
        }
    }

    // MARK: - In a context

    /// The fetch request for a query: filter, sort by `updatedAt` descending (ties by id), page.
    static func request(for query: TodoQuery) -> NSFetchRequest<TodoEntity> {
        var formats: [String] = []
        var arguments: [Any] = []
        if let search = query.search, !search.isEmpty {
            formats.append("title CONTAINS[cd] %@")
            arguments.append(search)
        }
        if let tagId = query.tagId {
            formats.append("ANY tags.tagId == %@")
            arguments.append(tagId)
        }
        if let isDone = query.isDone {
            formats.append(isDone ? "completedAt != nil" : "completedAt == nil")
        }
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        if !formats.isEmpty {
            request.predicate = NSPredicate(format: formats.joined(separator: " AND "), argumentArray: arguments)
        }
        request.sortDescriptors = [
            NSSortDescriptor(key: "updatedAt", ascending: false),
            NSSortDescriptor(key: "todoId", ascending: true),
        ]
        request.fetchOffset = max(0, query.offset)
        request.fetchLimit = max(0, query.limit ?? 0)
        return request
    }

    /// The to-do whose `todoId` is `id`, in `context`.
    static func entity(id: String, in context: NSManagedObjectContext) throws -> TodoEntity? {
        let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
        request.predicate = NSPredicate(format: "todoId == %@", id)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// Sets every field of the draft on `todo`, replacing its tags and location.
    static func apply(_ draft: Draft, to todo: TodoEntity, in context: NSManagedObjectContext) throws {
        let now = Date()
        todo.todoId = draft.id ?? todo.todoId ?? UUID().uuidString
        todo.title = draft.title
        todo.createdAt = draft.createdAt ?? todo.createdAt ?? now
        todo.updatedAt = draft.updatedAt ?? now
        todo.completedAt = draft.completedAt
        var tags: [TagEntity] = []
        for tagId in draft.tagIds {
            guard let tag = try TagDAO.entity(id: tagId, in: context) else { throw TodoAppError.notFound("tag", tagId) }
            tags.append(tag)
        }
        todo.tags = NSSet(array: tags)
        if let locationId = draft.locationId {
            guard let location = try LocationDAO.entity(id: locationId, in: context) else {
                throw TodoAppError.notFound("location", locationId)
            }
            todo.location = location
        } else {
            todo.location = nil
        }
    }

    /// The value of a to-do.
    static func item(from todo: TodoEntity) -> TodoItem {
        let tags = (todo.tags?.allObjects ?? []).compactMap { $0 as? TagEntity }
            .map(TagDAO.item(from:))
            .sorted { ($0.title, $0.id) < ($1.title, $1.id) }
        return TodoItem(
            id: todo.todoId ?? "",
            title: todo.title ?? "",
            createdAt: todo.createdAt ?? .distantPast,
            updatedAt: todo.updatedAt ?? .distantPast,
            completedAt: todo.completedAt,
            tags: tags,
            location: todo.location.map(LocationDAO.item(from:))
        )
    }
}
