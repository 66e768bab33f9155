import OpenCoreData

// MARK: - Editing in a scratchpad

extension TodoDAO {
    /// What `editOne` changes; nil fields are left alone.
    public struct Edit: Sendable, Equatable {
        public var title: String?
        /// Tag titles to add: each tag is found by title (ignoring case), or created with the edit.
        public var addTags: [String]
        /// `tagId`s of tags to remove.
        public var removeTagIds: [String]
        /// A place name, found (ignoring case) or created with the edit; `.some(nil)` removes the location.
        public var location: String??

        public init(title: String? = nil, addTags: [String] = [], removeTagIds: [String] = [], location: String?? = nil) {
            self.title = title
            self.addTags = addTags
            self.removeTagIds = removeTagIds
            self.location = location
        }
    }

    /// Edits the to-do whose `todoId` is `id` in a child context of the container's view
    /// context, as an app's edit sheet does; nil when there is none.
    ///
    /// The child is a scratchpad: everything the edit makes (new tags, a new location) exists
    /// only there until its save validates the to-do and pushes the edit into the view context,
    /// whose save then writes the store. When the child's save fails validation, the child is
    /// rolled back and dropped and the error (Apple's `NSError`) is thrown: the view context
    /// and the store never saw the edit.
    public func editOne(id: String, _ edit: Edit) async throws -> TodoItem? {
        let viewContext = container.viewContext
        let scratchpad = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        scratchpad.parent = viewContext
        scratchpad.name = "todo edit"
        let edited = try await scratchpad.perform { () throws -> TodoItem? in
            guard let todo = try Self.entity(id: id, in: scratchpad) else { return nil }
            try Self.apply(edit, to: todo, in: scratchpad)
            do {
                try scratchpad.save()
            } catch {
                scratchpad.rollback()
                throw error
            }
            return Self.item(from: todo)
        }
        guard let edited else { return nil }
        try await viewContext.perform {
            do {
                try viewContext.save()
            } catch {
                // The store refused the edit (I/O, a constraint): the view context drops it too.
                viewContext.rollback()
                throw error
            }
        }
        return edited
    }

    /// Applies an edit to `todo` in `context`, finding or creating tags and the location there.
    static func apply(_ edit: Edit, to todo: TodoEntity, in context: NSManagedObjectContext) throws {
        if let title = edit.title { todo.title = title }
        for title in edit.addTags {
            todo.addToTags(try TagDAO.entity(title: title, in: context) ?? TagDAO.insert(title: title, into: context))
        }
        for tagId in edit.removeTagIds {
            if let tag = try TagDAO.entity(id: tagId, in: context) { todo.removeFromTags(tag) }
        }
        if let location = edit.location {
            if let placeName = location {
                todo.location = try LocationDAO.entity(placeName: placeName, in: context)
                    ?? LocationDAO.insert(.init(placeName: placeName), into: context)
            } else {
                todo.location = nil
            }
        }
        todo.updatedAt = Date()
    }
}
