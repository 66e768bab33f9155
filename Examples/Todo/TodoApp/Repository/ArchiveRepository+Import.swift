import OpenCoreData

/// Import: validate the whole file, upsert its rows with `NSBatchInsertRequest`, then link them.
extension ArchiveRepository {
    /// How many ids one `IN` predicate names (well under SQLite's bound-variable limit).
    static let idsPerQuery = 500

    /// The `transactionAuthor` of an import's batch requests and linking save, in persistent history.
    public static let importAuthor = "todo import"

    /// Imports an archive's JSON, matching records by `tagId`, location `id` and `todoId`.
    ///
    /// A file that fails validation (format, ids, titles, duplicates, references to tags or
    /// locations that are neither in the file nor in the store) writes nothing, and the error
    /// names the record. A valid file is written in four transactions: one `NSBatchInsertRequest`
    /// each for tags, locations and to-dos (upserts by their uniqueness constraints, attributes
    /// only), then one save that sets every imported to-do's tags and location. A failure between
    /// them (I/O) leaves part of the file imported; importing the same file again completes it,
    /// because every step is idempotent.
    public func importArchive(_ data: Data) async throws -> ImportSummary {
        let archive = try TodoArchive.decode(data)
        try Self.check(archive)
        return try await container.performBackgroundTask { context in
            context.transactionAuthor = Self.importAuthor
            let stored = try StoredRecords(of: archive, in: context)
            try Self.checkReferences(archive, stored: stored)
            let now = Date()
            try Self.batchInsert("TagEntity", archive.tags.map { tag -> [String: Any] in
                let previous = stored.tags[tag.tagId]
                return ["tagId": tag.tagId, "title": tag.title,
                        "createdAt": tag.createdAt ?? previous?.createdAt ?? now,
                        "updatedAt": tag.updatedAt ?? previous?.updatedAt ?? now]
            }, in: context)
            try Self.batchInsert("LocationEntity", archive.locations.map { location -> [String: Any] in
                ["id": location.id, "placeName": location.placeName, "latitude": location.latitude ?? 0,
                 "longitude": location.longitude ?? 0, "altitude": location.altitude ?? 0]
            }, in: context)
            try Self.batchInsert("TodoEntity", archive.todos.map { todo -> [String: Any] in
                let previous = stored.todos[todo.todoId]
                return ["todoId": todo.todoId, "title": todo.title,
                        "createdAt": todo.createdAt ?? previous?.createdAt ?? now,
                        "updatedAt": todo.updatedAt ?? previous?.updatedAt ?? now,
                        "completedAt": todo.completedAt ?? NSNull()]
            }, in: context)
            try Self.link(archive.todos, in: context)
            return stored.summary(of: archive)
        }
    }

    // MARK: - Validation against the store

    /// Fails on the first to-do naming a tag or location that is neither in the file nor stored.
    static func checkReferences(_ archive: TodoArchive, stored: StoredRecords) throws {
        let fileTags = Set(archive.tags.map(\.tagId))
        let fileLocations = Set(archive.locations.map(\.id))
        for (index, todo) in archive.todos.enumerated() {
            let record = "todos[\(index)] (todoId \(todo.todoId))"
            for tagId in todo.tags ?? [] where !fileTags.contains(tagId) && stored.tags[tagId] == nil {
                throw TodoAppError("\(record): \(TodoAppError.notFound("tag", tagId).message)")
            }
            if let locationId = todo.location, !fileLocations.contains(locationId), !stored.locationIds.contains(locationId) {
                throw TodoAppError("\(record): \(TodoAppError.notFound("location", locationId).message)")
            }
        }
    }

    /// What the store holds before the import, of the records the file names.
    struct StoredRecords {
        typealias Dates = (createdAt: Date?, updatedAt: Date?)

        /// Stored tags named by the file (as records or references): their dates, which the
        /// upsert would otherwise reset when the file leaves them out.
        var tags: [String: Dates] = [:]
        /// Stored to-dos named by the file, with their dates.
        var todos: [String: Dates] = [:]
        /// Stored locations named by the file.
        var locationIds: Set<String> = []

        init(of archive: TodoArchive, in context: NSManagedObjectContext) throws {
            let tagIds = Set(archive.tags.map(\.tagId)).union(archive.todos.lazy.flatMap { $0.tags ?? [] })
            let locationIds = Set(archive.locations.map(\.id)).union(archive.todos.lazy.compactMap(\.location))
            for row in try ArchiveRepository.rows(of: "TagEntity", key: "tagId", in: tagIds, properties: ["createdAt", "updatedAt"], in: context) {
                if let id = row["tagId"] as? String { tags[id] = (row["createdAt"] as? Date, row["updatedAt"] as? Date) }
            }
            for row in try ArchiveRepository.rows(of: "TodoEntity", key: "todoId", in: archive.todos.map(\.todoId),
                                                  properties: ["createdAt", "updatedAt"], in: context) {
                if let id = row["todoId"] as? String { todos[id] = (row["createdAt"] as? Date, row["updatedAt"] as? Date) }
            }
            for row in try ArchiveRepository.rows(of: "LocationEntity", key: "id", in: locationIds, properties: [], in: context) {
                if let id = row["id"] as? String { self.locationIds.insert(id) }
            }
        }

        /// Created and updated counts: a record is updated when its id was stored before.
        func summary(of archive: TodoArchive) -> ImportSummary {
            var summary = ImportSummary()
            summary.tagsUpdated = archive.tags.count { tags[$0.tagId] != nil }
            summary.tagsCreated = archive.tags.count - summary.tagsUpdated
            summary.locationsUpdated = archive.locations.count { locationIds.contains($0.id) }
            summary.locationsCreated = archive.locations.count - summary.locationsUpdated
            summary.todosUpdated = archive.todos.count { todos[$0.todoId] != nil }
            summary.todosCreated = archive.todos.count - summary.todosUpdated
            return summary
        }
    }

    /// Dictionaries of `key` and `properties` of the rows whose `key` is one of `ids`, fetched
    /// `idsPerQuery` ids at a time.
    static func rows(of entityName: String, key: String, in ids: some Collection<String>, properties: [String],
                     in context: NSManagedObjectContext) throws -> [NSDictionary] {
        var rows: [NSDictionary] = []
        try forEachChunk(of: Array(ids)) { chunk in
            let request = NSFetchRequest<NSDictionary>(entityName: entityName)
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [key] + properties
            request.predicate = NSPredicate(format: "%K IN %@", key, chunk)
            rows += try context.fetch(request)
        }
        return rows
    }

    static func forEachChunk<T>(of values: [T], _ body: ([T]) throws -> Void) rethrows {
        for start in stride(from: 0, to: values.count, by: idsPerQuery) {
            try body(Array(values[start..<min(start + idsPerQuery, values.count)]))
        }
    }

    // MARK: - Writing

    /// One `NSBatchInsertRequest` upserting `rows` (attributes only: a batch insert can't set
    /// relationships); nothing when there are none.
    static func batchInsert(_ entityName: String, _ rows: [[String: Any]], in context: NSManagedObjectContext) throws {
        guard !rows.isEmpty else { return }
        let request = NSBatchInsertRequest(entityName: entityName, objects: rows)
        request.resultType = .statusOnly
        _ = try context.execute(request)
    }

    /// Sets each imported to-do's tags and location from the file, in one save. To-dos whose
    /// relationships already match are left alone, so a re-import saves (and records) no changes.
    static func link(_ todos: [TodoArchive.Todo], in context: NSManagedObjectContext) throws {
        var tagsById: [String: TagEntity] = [:]
        try forEachChunk(of: Array(Set(todos.flatMap { $0.tags ?? [] }))) { chunk in
            let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
            request.predicate = NSPredicate(format: "tagId IN %@", chunk)
            for tag in try context.fetch(request) { if let id = tag.tagId { tagsById[id] = tag } }
        }
        var locationsById: [String: LocationEntity] = [:]
        try forEachChunk(of: Array(Set(todos.compactMap(\.location)))) { chunk in
            let request: NSFetchRequest<LocationEntity> = LocationEntity.fetchRequest()
            request.predicate = NSPredicate(format: "id IN %@", chunk)
            for location in try context.fetch(request) { if let id = location.id { locationsById[id] = location } }
        }
        // Every fetch first: a fetch merges the context's pending changes into its result by
        // evaluating its predicate against each changed object, so fetching after linking
        // some to-dos would grow with every chunk.
        var entities: [String: TodoEntity] = [:]
        try forEachChunk(of: todos.map(\.todoId)) { chunk in
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.predicate = NSPredicate(format: "todoId IN %@", chunk)
            request.relationshipKeyPathsForPrefetching = ["tags", "location"]
            for todo in try context.fetch(request) { if let id = todo.todoId { entities[id] = todo } }
        }
        for todo in todos {
            // Validation found every reference and the batch requests stored every to-do; one
            // missing now was deleted by another process meanwhile: it stays deleted.
            guard let entity = entities[todo.todoId] else { continue }
            let tags = (todo.tags ?? []).compactMap { tagsById[$0] }
            let current = Set((entity.tags?.allObjects ?? []).compactMap { ($0 as? NSManagedObject)?.objectID })
            if current != Set(tags.map(\.objectID)) { entity.tags = NSSet(array: tags) }
            let location = todo.location.flatMap { locationsById[$0] }
            if entity.location?.objectID != location?.objectID { entity.location = location }
        }
        if context.hasChanges { try context.save() }
    }
}
