import OpenCoreData

/// Reads and writes `TagEntity` rows, each call on its own background context.
public struct TagDAO: Sendable {
    let container: NSPersistentContainer

    public init(container: NSPersistentContainer) {
        self.container = container
    }

    // MARK: - CRUD

    /// Inserts a tag and saves; `id` and the dates are filled in when nil.
    public func createOne(title: String, id: String? = nil, createdAt: Date? = nil, updatedAt: Date? = nil) async throws -> TagItem {
        try await container.performBackgroundTask { context in
            let tag = Self.insert(title: title, id: id, createdAt: createdAt, updatedAt: updatedAt, into: context)
            try context.save()
            return Self.item(from: tag)
        }
    }

    /// Renames the tag whose `tagId` is `id` and saves; nil when there is none.
    public func updateOne(id: String, title: String) async throws -> TagItem? {
        try await container.performBackgroundTask { context in
            guard let tag = try Self.entity(id: id, in: context) else { return nil }
            tag.title = title
            tag.updatedAt = Date()
            try context.save()
            return Self.item(from: tag)
        }
    }

    /// Deletes the tag and saves; its to-dos stay (the relationship's rule is Nullify).
    public func deleteOne(id: String) async throws -> Bool {
        try await container.performBackgroundTask { context in
            guard let tag = try Self.entity(id: id, in: context) else { return false }
            context.delete(tag)
            try context.save()
            return true
        }
    }

    /// The tag whose `tagId` is `id`.
    public func findOne(id: String) async throws -> TagItem? {
        try await container.performBackgroundTask { context in
            try Self.entity(id: id, in: context).map(Self.item(from:))
        }
    }

    /// The tag titled `title`, ignoring case.
    public func findOne(title: String) async throws -> TagItem? {
        try await container.performBackgroundTask { context in
            try Self.entity(title: title, in: context).map(Self.item(from:))
        }
    }

    /// Tags whose title contains `search`, sorted by title, one page of them.
    public func findMany(search: String? = nil, limit: Int? = nil, offset: Int = 0) async throws -> [TagItem] {
        try await container.performBackgroundTask { context in
            let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
            if let search, !search.isEmpty {
                request.predicate = NSPredicate(format: "title CONTAINS[cd] %@", search)
            }
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true), NSSortDescriptor(key: "tagId", ascending: true)]
            request.fetchOffset = max(0, offset)
            request.fetchLimit = max(0, limit ?? 0)
            return try context.fetch(request).map(Self.item(from:))
        }
    }

    // MARK: - In a context

    /// The tag whose `tagId` is `id`, in `context`.
    static func entity(id: String, in context: NSManagedObjectContext) throws -> TagEntity? {
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        request.predicate = NSPredicate(format: "tagId == %@", id)
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// The oldest tag titled `title` (ignoring case), in `context`.
    static func entity(title: String, in context: NSManagedObjectContext) throws -> TagEntity? {
        let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
        request.predicate = NSPredicate(format: "title ==[c] %@", title)
        request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    /// A new tag in `context`; `id` and the dates are filled in when nil.
    static func insert(title: String, id: String? = nil, createdAt: Date? = nil, updatedAt: Date? = nil,
                       into context: NSManagedObjectContext) -> TagEntity {
        let tag = TagEntity(context: context)
        apply(title: title, id: id, createdAt: createdAt, updatedAt: updatedAt, to: tag)
        return tag
    }

    static func apply(title: String, id: String?, createdAt: Date?, updatedAt: Date?, to tag: TagEntity) {
        let now = Date()
        tag.tagId = id ?? tag.tagId ?? UUID().uuidString
        tag.title = title
        tag.createdAt = createdAt ?? tag.createdAt ?? now
        tag.updatedAt = updatedAt ?? now
    }

    /// The value of a tag.
    static func item(from tag: TagEntity) -> TagItem {
        TagItem(id: tag.tagId ?? "", title: tag.title ?? "", createdAt: tag.createdAt, updatedAt: tag.updatedAt,
                todoCount: tag.todos?.count ?? 0)
    }
}
