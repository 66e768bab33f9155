import OpenCoreData

// MARK: - Following the to-dos

/// One change a live to-do list reports: what happened to which to-do, and its rows (from 1)
/// before and after, as a table view's batch update numbers them.
public struct TodoChange: Sendable, Equatable {
    /// The kinds of change, as `NSFetchedResultsChangeType` names them.
    public enum Kind: String, Sendable {
        case inserted, deleted, moved, updated
    }

    public var kind: Kind
    /// The to-do as it is now (as it was last seen, for a deleted one).
    public var item: TodoItem
    /// Its row before the batch (deleted, moved, updated).
    public var oldRow: Int?
    /// Its row after the batch (inserted, moved, updated).
    public var newRow: Int?
}

/// What a live to-do list yields: the list at once, then each batch of changes.
public enum TodoFeedEvent: Sendable, Equatable {
    /// The to-dos matching the filter when the list started, newest first.
    case list([TodoItem])
    /// The changes one merge or save made to the list, in `NSFetchedResultsControllerDelegate` order.
    case changes([TodoChange])
}

extension TodoDAO {
    /// A live list of the to-dos a query matches (its paging ignored), newest `updatedAt` first:
    /// an `NSFetchedResultsController` over the container's view context, which yields the list
    /// and then every batch of changes until the stream is dropped.
    ///
    /// Changes reach the view context in one of two ways. When the store posts remote-change
    /// notifications, the store's persistent history after the list's start is merged at each
    /// notification: that covers other processes and every context of this one, through one path.
    /// Otherwise the view context merges the saves of the container's other contexts
    /// (`automaticallyMergesChangesFromParent`). Both at once would merge a save of this process
    /// twice and report its updates twice.
    public func follow(_ query: TodoQuery) -> AsyncThrowingStream<TodoFeedEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<TodoFeedEvent, any Error>.makeStream()
        let container = container
        let context = container.viewContext
        let remote = container.persistentStoreDescriptions.contains {
            ($0.options[NSPersistentStoreRemoteChangeNotificationPostOptionKey] as? NSNumber)?.boolValue == true
        }
        let unpaged = TodoQuery(search: query.search, tagId: query.tagId, isDone: query.isDone)
        context.perform {
            let feed = TodoFeed(context: context, request: Self.request(for: unpaged), continuation: continuation)
            do {
                try feed.start(mergingHistory: remote)
            } catch {
                continuation.finish(throwing: error)
                return
            }
            continuation.onTermination = { _ in
                // Keeps the container (and so its stores) alive as long as the stream.
                withExtendedLifetime(container) {}
                context.perform { feed.stop() }
            }
        }
        return stream
    }
}

// MARK: - The controller's delegate

/// The fetched results controller of a live list and its delegate, turning the controller's
/// reports into `TodoChange`s.
///
/// `@unchecked Sendable` so the stream's termination handler and the remote-change observer can
/// hand it back to its context's queue: every member is used only on that queue (the view
/// context's), as the controller requires.
final class TodoFeed: NSObject, NSFetchedResultsControllerDelegate, @unchecked Sendable {
    private let context: NSManagedObjectContext
    private let controller: NSFetchedResultsController<TodoEntity>
    private let continuation: AsyncThrowingStream<TodoFeedEvent, any Error>.Continuation
    /// The last value of every listed to-do, so a deleted one (whose object can't be read any
    /// more) can still be named.
    private var items: [NSManagedObjectID: TodoItem] = [:]
    private var batch: [TodoChange] = []
    private var historyToken: NSPersistentHistoryToken?
    private var observer: (any NSObjectProtocol)?

    init(context: NSManagedObjectContext, request: NSFetchRequest<TodoEntity>,
         continuation: AsyncThrowingStream<TodoFeedEvent, any Error>.Continuation) {
        self.context = context
        self.continuation = continuation
        controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                sectionNameKeyPath: nil, cacheName: nil)
        super.init()
    }

    /// Fetches the list, yields it, and starts reporting changes.
    func start(mergingHistory: Bool) throws {
        if mergingHistory, let coordinator = context.persistentStoreCoordinator {
            // Taken before the fetch, so that no commit falls between the two.
            historyToken = coordinator.currentPersistentHistoryToken(fromStores: nil)
            observer = NotificationCenter.default.addObserver(
                forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
            ) { [weak self] _ in
                guard let self else { return }
                self.context.perform { self.mergeHistory() }
            }
        } else {
            context.automaticallyMergesChangesFromParent = true
        }
        controller.delegate = self
        try controller.performFetch()
        let objects = controller.fetchedObjects ?? []
        let listed = objects.map(TodoDAO.item(from:))
        for (object, item) in zip(objects, listed) { items[object.objectID] = item }
        continuation.yield(.list(listed))
    }

    func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        observer = nil
        controller.delegate = nil
    }

    /// Merges the transactions committed since the last merge (by any process) into the view
    /// context, one at a time, as Apple's history-processing samples do.
    private func mergeHistory() {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: historyToken)
        let result: NSPersistentHistoryResult?
        do {
            result = try context.execute(request) as? NSPersistentHistoryResult
        } catch {
            continuation.finish(throwing: error)
            return
        }
        guard let transactions = result?.result as? [NSPersistentHistoryTransaction] else { return }
        for transaction in transactions {
            context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            historyToken = transaction.token
        }
    }

    // MARK: - NSFetchedResultsControllerDelegate

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        batch = []
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard let todo = anObject as? TodoEntity else { return }
        let id = todo.objectID
        let kind: TodoChange.Kind
        switch type {
        case .insert: kind = .inserted
        case .delete: kind = .deleted
        case .move: kind = .moved
        case .update: kind = .updated
        }
        let item: TodoItem
        if kind == .deleted {
            guard let last = items.removeValue(forKey: id) else { return }
            item = last
        } else {
            item = TodoDAO.item(from: todo)
            items[id] = item
        }
        batch.append(TodoChange(kind: kind, item: item, oldRow: indexPath.map { $0.item + 1 },
                                newRow: newIndexPath.map { $0.item + 1 }))
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        guard !batch.isEmpty else { return }
        continuation.yield(.changes(batch))
        batch = []
    }
}
