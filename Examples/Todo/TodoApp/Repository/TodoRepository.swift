import OpenCoreData

/// One page of a to-do listing and where it sits in the whole.
public struct TodoPage: Sendable, Equatable, Codable {
    public var items: [TodoItem]
    /// To-dos matching the filter, on every page.
    public var total: Int
    /// 1-based.
    public var page: Int
    public var pageSize: Int
}

/// To-dos as the commands see them: short ids, tags and locations by name, pages from 1.
public struct TodoRepository: Sendable {
    let dao: TodoDAO
    let tags: TagRepository
    let locations: LocationRepository

    public init(container: NSPersistentContainer) {
        dao = TodoDAO(container: container)
        tags = TagRepository(container: container)
        locations = LocationRepository(container: container)
    }

    /// Creates a to-do; tags and the location are found by name and created when missing.
    public func add(title: String, tags tagTitles: [String] = [], location: String? = nil) async throws -> TodoItem {
        let title = try Validate.title(title, of: "to-do")
        var tagIds: [String] = []
        for tagTitle in tagTitles {
            let id = try await tags.findOrCreate(tagTitle).id
            if !tagIds.contains(id) { tagIds.append(id) }
        }
        let locationId = try await location.asyncMap { try await locations.findOrCreate($0).id }
        do {
            return try await dao.createOne(.init(title: title, tagIds: tagIds, locationId: locationId))
        } catch let error as NSError where error.isValidationError {
            throw TodoAppError.notSaved(error, what: "the to-do was not saved")
        }
    }

    /// One page of to-dos, newest first.
    ///
    /// - Parameters:
    ///   - search: Text the title contains, ignoring case and diacritics.
    ///   - tag: Only to-dos with this tag (by title); an unknown tag throws.
    ///   - isDone: Only done (true) or open (false) to-dos.
    ///   - page: 1-based page number.
    ///   - pageSize: To-dos per page, 1...1000.
    public func list(search: String? = nil, tag: String? = nil, isDone: Bool? = nil, page: Int = 1, pageSize: Int = 20) async throws -> TodoPage {
        guard page >= 1 else { throw TodoAppError("--page must be 1 or more (got \(page))") }
        guard (1...1000).contains(pageSize) else { throw TodoAppError("--page-size must be within 1...1000 (got \(pageSize))") }
        let tagId = try await tag.asyncMap { try await tags.find($0).id }
        let query = TodoQuery(search: search, tagId: tagId, isDone: isDone, limit: pageSize, offset: (page - 1) * pageSize)
        let items = try await dao.findMany(query)
        let total = try await dao.count(query)
        return TodoPage(items: items, total: total, page: page, pageSize: pageSize)
    }

    /// A live list of the to-dos matching a filter, newest first and without paging: the list at
    /// once, then each batch of changes saved by this process's contexts or committed by other
    /// processes (see `TodoDAO.follow`), until the stream is dropped.
    ///
    /// - Parameters:
    ///   - search: Text the title contains, ignoring case and diacritics.
    ///   - tag: Only to-dos with this tag (by title); an unknown tag throws.
    ///   - isDone: Only done (true) or open (false) to-dos.
    public func follow(search: String? = nil, tag: String? = nil, isDone: Bool? = nil) async throws
        -> AsyncThrowingStream<TodoFeedEvent, any Error> {
        let tagId = try await tag.asyncMap { try await tags.find($0).id }
        return dao.follow(TodoQuery(search: search, tagId: tagId, isDone: isDone))
    }

    /// The to-do whose id is, or starts with, `id`.
    public func get(_ id: String) async throws -> TodoItem {
        let fullId = try await resolve(id)
        guard let item = try await dao.findOne(id: fullId) else { throw TodoAppError.notFound("to-do", id) }
        return item
    }

    /// Marks a to-do done (now) or open again.
    public func setDone(_ id: String, _ isDone: Bool) async throws -> TodoItem {
        try await update(id, .init(isDone: isDone))
    }

    /// Changes a to-do's title, tags or location; tags to add and the location are created when missing.
    ///
    /// The edit runs in a child context of the view context (a scratchpad, see
    /// `TodoDAO.editOne`): when the model's validation refuses it (a title over 200 characters,
    /// say), nothing is written, not even the tags or location it would have created.
    ///
    /// - Parameter location: A place name; the empty string removes the location.
    public func edit(_ id: String, title: String? = nil, addTags: [String] = [], removeTags: [String] = [], location: String? = nil) async throws -> TodoItem {
        var edit = TodoDAO.Edit()
        edit.title = try title.map { try Validate.title($0, of: "to-do") }
        for tagTitle in addTags {
            let tagTitle = try Validate.title(tagTitle, of: "tag")
            if !edit.addTags.contains(where: { $0.caseInsensitiveCompare(tagTitle) == .orderedSame }) { edit.addTags.append(tagTitle) }
        }
        for tagTitle in removeTags { edit.removeTagIds.append(try await tags.find(tagTitle).id) }
        if let location {
            edit.location = .some(location.isEmpty ? nil : try Validate.title(location, of: "location"))
        }
        let fullId = try await resolve(id)
        let edited: TodoItem?
        do {
            edited = try await dao.editOne(id: fullId, edit)
        } catch let error as NSError where error.isValidationError {
            throw TodoAppError.notSaved(error, what: "the edit was not saved, the to-do is unchanged")
        }
        guard let edited else { throw TodoAppError.notFound("to-do", id) }
        return edited
    }

    /// Deletes a to-do and returns it as it was.
    public func delete(_ id: String) async throws -> TodoItem {
        let item = try await get(id)
        guard try await dao.deleteOne(id: item.id) else { throw TodoAppError.notFound("to-do", id) }
        return item
    }

    /// Counts of to-dos, tags and locations.
    public func stats() async throws -> TodoStats {
        let total = try await dao.count(TodoQuery())
        let done = try await dao.count(TodoQuery(isDone: true))
        let all = try await dao.findMany(TodoQuery())
        return TodoStats(
            todos: total, done: done, open: total - done,
            tags: try await tags.list().count,
            locations: try await locations.list().count,
            untagged: all.filter(\.tags.isEmpty).count
        )
    }

    // MARK: - Helpers

    private func update(_ id: String, _ change: TodoDAO.Change) async throws -> TodoItem {
        let fullId = try await resolve(id)
        guard let item = try await dao.updateOne(id: fullId, change) else { throw TodoAppError.notFound("to-do", id) }
        return item
    }

    /// The full `todoId` of the one to-do whose id starts with `id` (at least 4 characters).
    func resolve(_ id: String) async throws -> String {
        let id = id.trimmingCharacters(in: .whitespaces)
        guard id.count >= 4 else { throw TodoAppError("give at least 4 characters of the to-do's id (got '\(id)')") }
        let matches = try await dao.ids(withPrefix: id)
        switch matches.count {
        case 0: throw TodoAppError.notFound("to-do", id)
        case 1: return matches[0]
        default:
            if let exact = matches.first(where: { $0.caseInsensitiveCompare(id) == .orderedSame }) { return exact }
            throw TodoAppError.ambiguous("to-do", id, matches)
        }
    }
}

extension Optional where Wrapped: Sendable {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
