import OpenCoreData

/// A to-do as the repositories hand it out: a value, safe to pass between contexts and tasks.
public struct TodoItem: Sendable, Equatable, Codable {
    /// The `todoId` UUID string.
    public var id: String
    public var title: String
    public var createdAt: Date
    public var updatedAt: Date
    /// When the to-do was done; nil while it is open.
    public var completedAt: Date?
    /// Its tags, sorted by title.
    public var tags: [TagItem]
    public var location: LocationItem?

    /// Whether the to-do is done.
    public var isDone: Bool { completedAt != nil }
}

/// A tag, with the number of to-dos that carry it.
public struct TagItem: Sendable, Equatable, Codable {
    /// The `tagId` UUID string.
    public var id: String
    public var title: String
    public var createdAt: Date?
    public var updatedAt: Date?
    public var todoCount: Int
}

/// A place to-dos can be tied to, with the number of to-dos there.
public struct LocationItem: Sendable, Equatable, Codable {
    /// The location's `id` UUID string.
    public var id: String
    public var placeName: String
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double
    public var todoCount: Int
}

/// What `findMany` returns: a filter, a page of it, sorted by `updatedAt` (newest first).
public struct TodoQuery: Sendable, Equatable {
    /// Text the title contains, ignoring case and diacritics.
    public var search: String?
    /// Only to-dos carrying the tag with this `tagId`.
    public var tagId: String?
    /// Only done (true) or open (false) to-dos; nil for both.
    public var isDone: Bool?
    /// At most this many; nil for all.
    public var limit: Int?
    /// Skip this many first.
    public var offset: Int

    public init(search: String? = nil, tagId: String? = nil, isDone: Bool? = nil, limit: Int? = nil, offset: Int = 0) {
        self.search = search
        self.tagId = tagId
        self.isDone = isDone
        self.limit = limit
        self.offset = offset
    }
}

/// The counts `todo stats` shows.
public struct TodoStats: Sendable, Equatable, Codable {
    public var todos: Int
    public var done: Int
    public var open: Int
    public var tags: Int
    public var locations: Int
    public var untagged: Int
}
