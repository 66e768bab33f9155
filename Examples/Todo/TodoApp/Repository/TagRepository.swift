import OpenCoreData

/// Tags as the commands see them: by title, created on first use, renamed and deleted by title.
public struct TagRepository: Sendable {
    let dao: TagDAO

    public init(container: NSPersistentContainer) {
        dao = TagDAO(container: container)
    }

    /// Creates a tag; throws when one with that title (ignoring case) exists.
    public func add(title: String) async throws -> TagItem {
        let title = try Validate.title(title, of: "tag")
        if try await dao.findOne(title: title) != nil { throw TodoAppError("tag '\(title)' already exists") }
        return try await dao.createOne(title: title)
    }

    /// Every tag, sorted by title.
    public func list(search: String? = nil) async throws -> [TagItem] {
        try await dao.findMany(search: search)
    }

    /// The tag titled `title` (ignoring case), or whose `tagId` is `title`.
    public func find(_ title: String) async throws -> TagItem {
        if let tag = try await dao.findOne(title: title) { return tag }
        if let tag = try await dao.findOne(id: title) { return tag }
        throw TodoAppError.notFound("tag", title)
    }

    /// The tag titled `title`, created when there is none.
    public func findOrCreate(_ title: String) async throws -> TagItem {
        let title = try Validate.title(title, of: "tag")
        if let tag = try await dao.findOne(title: title) { return tag }
        return try await dao.createOne(title: title)
    }

    /// Renames a tag; throws when another tag already has the new title.
    public func rename(_ title: String, to newTitle: String) async throws -> TagItem {
        let newTitle = try Validate.title(newTitle, of: "tag")
        let tag = try await find(title)
        if let other = try await dao.findOne(title: newTitle), other.id != tag.id {
            throw TodoAppError("tag '\(other.title)' already exists")
        }
        guard let renamed = try await dao.updateOne(id: tag.id, title: newTitle) else { throw TodoAppError.notFound("tag", title) }
        return renamed
    }

    /// Deletes a tag; its to-dos stay and lose the tag. Returns the tag as it was.
    public func delete(_ title: String) async throws -> TagItem {
        let tag = try await find(title)
        guard try await dao.deleteOne(id: tag.id) else { throw TodoAppError.notFound("tag", title) }
        return tag
    }
}

/// Checks shared by the repositories.
enum Validate {
    /// `TodoEntity.title`'s maximum length in the model (`maxValueString` in `Todo 2`), which a
    /// save enforces; only import, whose batch inserts skip validation, checks it itself.
    static let maximumTodoTitleLength = 200

    /// `text` trimmed; throws when that leaves nothing.
    static func title(_ text: String, of kind: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw TodoAppError("a \(kind) needs a non-empty title") }
        return trimmed
    }
}
