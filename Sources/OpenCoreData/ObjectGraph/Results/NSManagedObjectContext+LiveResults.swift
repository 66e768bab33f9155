import Foundation

// MARK: - Snapshots

/// The results of a fetch request at one moment, as values that may cross actors: object IDs,
/// split into sections. `NSManagedObjectContext.results(for:)` yields one per change.
public struct FetchedResultsSnapshot: Sendable, Equatable {
    /// One section: its name, its index title and its objects' IDs in order.
    public struct Section: Sendable, Equatable {
        /// The section's name (the section key path's value as a string; "" without sections).
        public let name: String
        /// The section's index title.
        public let indexTitle: String?
        /// The IDs of the section's objects, in the results' order.
        public let objectIDs: [NSManagedObjectID]
    }

    /// The IDs of every result, in order.
    public let objectIDs: [NSManagedObjectID]
    /// The sections; one unnamed section when there is no section key path.
    public let sections: [Section]

    init(_ core: FetchedResultsCore) {
        var sections: [Section] = []
        var start = 0
        var all: [NSManagedObjectID] = []
        all.reserveCapacity(core.rows.count)
        let rows = Array(core.rows)
        for run in core.sections {
            let ids = rows[start..<(start + run.count)].compactMap { ($0.object as? NSManagedObject)?.objectID }
            all.append(contentsOf: ids)
            sections.append(Section(name: run.name, indexTitle: core.indexTitle(for: run.name), objectIDs: ids))
            start += run.count
        }
        self.objectIDs = all
        self.sections = sections
    }
}

// MARK: - Async results

extension NSManagedObjectContext {
    /// The results of `request`, now and after every change that affects them, as an async sequence.
    ///
    /// The first element is the current results; another follows each `processPendingChanges()`,
    /// merge or child push that changes them (one per change batch, as a fetched results
    /// controller reports them: nothing is refetched). Elements are object IDs, so they may cross
    /// actors; turn them into objects with `object(with:)` on this context's queue, or use
    /// `results(for:sectionNameKeyPath:transform:)` to make plain values on the queue.
    ///
    /// The sequence ends when the iterating task is cancelled or the context is deallocated. The
    /// request needs sort descriptors, as a fetched results controller's does; if its fetch fails,
    /// the sequence ends without an element.
    ///
    /// ```swift
    /// for await snapshot in context.results(for: request) {
    ///     print(snapshot.objectIDs.count)
    /// }
    /// ```
    public func results<ResultType>(for request: NSFetchRequest<ResultType>,
                                    sectionNameKeyPath: String? = nil) -> AsyncStream<FetchedResultsSnapshot> {
        liveResults(for: request, sectionNameKeyPath: sectionNameKeyPath) { core in FetchedResultsSnapshot(core) }
    }

    /// The results of `request` as plain values made by `transform` on this context's queue, now
    /// and after every change that affects them.
    ///
    /// ```swift
    /// for await titles in context.results(for: request, transform: { $0.title }) { print(titles) }
    /// ```
    public func results<ResultType, Value: Sendable>(
        for request: NSFetchRequest<ResultType>, sectionNameKeyPath: String? = nil,
        transform: @escaping (ResultType) -> Value
    ) -> AsyncStream<[Value]> {
        liveResults(for: request, sectionNameKeyPath: sectionNameKeyPath) { core in
            core.rows.compactMap { ($0.object as? ResultType).map(transform) }
        }
    }

    /// On this context's queue: fetches, yields the first element, and keeps a controller
    /// yielding one element per change until the session ends.
    private func startLiveResults<ResultType, Element: Sendable>(
        _ request: NSFetchRequest<ResultType>, sectionNameKeyPath: String?,
        snapshot: @escaping (FetchedResultsCore) -> Element,
        continuation: AsyncStream<Element>.Continuation, session: LiveResultsSession
    ) {
        let core = FetchedResultsCore(context: self, sectionNameKeyPath: sectionNameKeyPath, cacheName: nil)
        core.fetch = { context in
            (request.retyped(NSFetchRequestResult.self), try context.fetch(request).map { $0 as AnyObject })
        }
        // Weak: the stream must not keep the core alive once it ends.
        let token = core.addListener { [weak core] _ in
            if let core { continuation.yield(snapshot(core)) }
        }
        do {
            try core.performFetch()
        } catch {
            continuation.finish()
            return
        }
        continuation.yield(snapshot(core))
        guard session.start(core: core, token: token, context: self) else {
            core.removeListener(token)
            core.stopTracking()
            return
        }
        deinitHandlers[session.key] = { continuation.finish() }
    }

    /// Runs a controller for the stream on this context's queue; `snapshot` makes each element there.
    private func liveResults<ResultType, Element: Sendable>(
        for request: NSFetchRequest<ResultType>, sectionNameKeyPath: String?,
        snapshot: @escaping (FetchedResultsCore) -> Element
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1))
        let session = LiveResultsSession()
        continuation.onTermination = { _ in session.end() }
        guard let sorts = request.sortDescriptors, !sorts.isEmpty else {
            CoreDataError.programmerError("results(for:) needs a fetch request with sort descriptors (entity '\(request.entityName ?? "?")').")
        }
        let box = UncheckedSendableBox((request, snapshot))
        perform { [weak self] in
            if let self {
                self.startLiveResults(box.value.0, sectionNameKeyPath: sectionNameKeyPath, snapshot: box.value.1,
                                      continuation: continuation, session: session)
            } else {
                continuation.finish()
            }
        }
        return stream
    }
}

// MARK: - Session

/// The controller behind one results stream, kept until the stream ends.
///
/// `@unchecked Sendable`: `core` and `context` are written once (in `start`) and read once (in
/// `end`) under `lock`; the core is then used only on its context's queue, through `perform`.
final class LiveResultsSession: @unchecked Sendable {
    private let lock = NSLock()
    private var core: FetchedResultsCore?
    private var token = 0
    private weak var context: NSManagedObjectContext?
    private var ended = false

    /// The session's key in its context's `deinitHandlers`.
    var key: Int { ObjectIdentifier(self).hashValue }

    /// Keeps the running controller; false if the stream already ended.
    func start(core: FetchedResultsCore, token: Int, context: NSManagedObjectContext) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !ended else { return false }
        self.core = core
        self.token = token
        self.context = context
        return true
    }

    /// Stops the controller on its context's queue (the stream ended: cancelled, or finished).
    func end() {
        lock.lock()
        ended = true
        let core = self.core, token = self.token, context = self.context
        self.core = nil
        lock.unlock()
        guard let core else { return }
        let box = UncheckedSendableBox(core)
        if let context {
            let key = self.key
            context.perform { [weak context] in
                box.value.removeListener(token)
                box.value.stopTracking()
                context?.deinitHandlers[key] = nil
            }
        }
    }
}

/// Carries a value to a context's queue, where it is used.
///
/// `@unchecked Sendable`: the value is handed from the caller to one `perform` block and used
/// only there (never concurrently).
struct UncheckedSendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
