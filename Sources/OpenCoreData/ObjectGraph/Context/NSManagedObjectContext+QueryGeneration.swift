import Foundation

/// Which generation of the stores a context reads from.
package enum QueryGenerationState {
    /// Live reads (the default): every read sees the latest committed data.
    case unpinned
    /// `current` was asked for: the context pins itself on its next read.
    case pinnedOnNextRead
    /// Reads go to this generation's snapshots.
    case pinned(StoreReadGeneration)
}

// MARK: - Query generations

extension NSManagedObjectContext {
    /// The token of the generation the context reads from, or nil when it reads live data or
    /// has been told to use the current generation but has not read since.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/querygenerationtoken>.
    public var queryGenerationToken: NSQueryGenerationToken? {
        guard case .pinned(let generation) = queryGenerationState else { return nil }
        return NSQueryGenerationToken(generation: generation.identifier)
    }

    /// Sets the generation of the stores the context reads from.
    ///
    /// - `nil`: read live data again.
    /// - `NSQueryGenerationToken.current`: pin to the stores' state at the context's next read
    ///   (fetch, count, fault); from then on the context sees that state until it saves,
    ///   merges a save, is reset or is set again, whatever other contexts or processes commit.
    /// - another context's `queryGenerationToken`: read the same generation.
    ///
    /// - Throws: `NSCoreDataError` (134060) when a store of the coordinator does not support
    ///   query generations (only SQLite stores do; the error's `NSAffectedStoresErrorKey` names
    ///   it), when the context has no coordinator, or when the token names a generation of
    ///   another coordinator or one no context reads from any more. The context is unchanged.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/setquerygenerationfrom(_:)>.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        guard let generation else {
            queryGenerationState = .unpinned
            return
        }
        guard parentStorage == nil else {
            throw CoreDataError.make(NSCoreDataError, "A child context reads its parent's current state; query generations apply to contexts that read the stores (set one on the root context).")
        }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "The context has no persistent store coordinator; a query generation needs one.")
        }
        try coordinator.checkSupportsQueryGenerations()
        guard let identifier = generation.generation else {
            queryGenerationState = .pinnedOnNextRead
            return
        }
        guard let live = StoreReadGeneration.live(identifier) else {
            throw CoreDataError.make(NSCoreDataError,
                                     "The query generation \(identifier.uuidString) is no longer in use by any context, so its snapshot was released; use NSQueryGenerationToken.current to pin to the stores' state now.")
        }
        guard live.coordinator == ObjectIdentifier(coordinator) else {
            throw CoreDataError.make(NSCoreDataError,
                                     "The query generation \(identifier.uuidString) belongs to another persistent store coordinator.")
        }
        queryGenerationState = .pinned(live)
    }

    // MARK: - Routing reads

    /// Runs `body`'s store reads in the context's query generation, pinning the context first
    /// when it was told to use the current one. Unpinned contexts pay one check.
    @inline(__always)
    func withQueryGeneration<T>(_ body: () throws -> T) throws -> T {
        if case .unpinned = queryGenerationState { return try body() }
        let generation = try pinnedGeneration()
        return try StoreReadGeneration.$current.withValue(generation, operation: body)
    }

    /// The generation the context reads from, taken now if it pins on this read.
    private func pinnedGeneration() throws -> StoreReadGeneration? {
        switch queryGenerationState {
        case .unpinned:
            return nil
        case .pinned(let generation):
            return generation
        case .pinnedOnNextRead:
            guard let coordinator = persistentStoreCoordinator else { return nil }
            let generation = try coordinator.makeReadGeneration()
            queryGenerationState = .pinned(generation)
            return generation
        }
    }

    /// A row read from the store for a refresh: through the row cache (refreshing it) when the
    /// context reads live data, from its generation otherwise.
    func freshSnapshot(for objectID: NSManagedObjectID) throws -> RowSnapshot? {
        if let parent = parentStorage { return try parentSnapshot(for: objectID, parent: parent) }
        guard let coordinator = persistentStoreCoordinator else { return nil }
        if case .unpinned = queryGenerationState { return try coordinator.freshSnapshot(for: objectID, pinnedBy: self) }
        return try withQueryGeneration { try coordinator.uncachedSnapshot(for: objectID) }
    }

    // MARK: - Advancing

    /// Moves a pinned context on to the stores' current state at its next read (reset, merge).
    func advanceQueryGeneration() {
        if case .unpinned = queryGenerationState { return }
        queryGenerationState = .pinnedOnNextRead
    }

    /// After a save of a pinned context: pins it to the state just after the save and returns
    /// the new generation's token (for the DidSave notification); nil for unpinned contexts.
    /// Another process's commit between the save and the snapshot is included in it.
    func advanceQueryGenerationAfterSave() -> NSQueryGenerationToken? {
        if case .unpinned = queryGenerationState { return nil }
        do {
            guard let coordinator = persistentStoreCoordinator else { return nil }
            let generation = try coordinator.makeReadGeneration()
            queryGenerationState = .pinned(generation)
            return NSQueryGenerationToken(generation: generation.identifier)
        } catch {
            Log.objectGraph.error("Could not pin the context to the query generation after its save; it pins on its next read: \(error)")
            queryGenerationState = .pinnedOnNextRead
            return nil
        }
    }
}
