import Foundation

// MARK: - Results of store requests

/// The base class of what `execute(_:)` returns.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstoreresult>.
open class NSPersistentStoreResult: NSObject {}

/// The result of a request that completes later; it reports progress and can be cancelled.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstoreasynchronousresult>.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult {
    /// The context the request runs in.
    public let managedObjectContext: NSManagedObjectContext
    /// The error the request ended with, if any (set before the completion block runs).
    open internal(set) var operationError: (any Error)?
    /// The request's progress: one unit, completed when the request finishes.
    open internal(set) var progress: Progress?

    init(context: NSManagedObjectContext, progress: Progress) {
        managedObjectContext = context
        self.progress = progress
        super.init()
    }

    /// Cancels the request if it has not run yet; its completion block then gets
    /// `NSUserCancelledError` in `operationError` and no results.
    open func cancel() {
        progress?.cancel()
    }
}

/// The result of an asynchronous fetch: `finalResult` once the fetch finished.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsasynchronousfetchresult>.
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult {
    /// The request this is the result of.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    /// The fetched objects, registered in `managedObjectContext`; nil until the fetch finished
    /// or when it failed or was cancelled.
    open internal(set) var finalResult: [ResultType]?

    init(request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, progress: Progress) {
        fetchRequest = request
        super.init(context: context, progress: progress)
    }
}

// MARK: - The request

/// A fetch that runs on the context's queue after `execute(_:)` returned, and hands its
/// results to a completion block there.
///
/// ```swift
/// let request = NSAsynchronousFetchRequest(fetchRequest: Item.fetchRequest()) { result in
///     show(result.finalResult ?? [])
/// }
/// try context.execute(request)
/// ```
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsasynchronousfetchrequest>.
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest {
    /// The fetch to run.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called on the context's queue when the fetch finished, failed or was cancelled.
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// A hint of how many results to expect; 0 when unknown.
    open var estimatedResultCount: Int = 0

    /// Creates an asynchronous fetch of `request` that calls `completionBlock` when done.
    public init(fetchRequest request: NSFetchRequest<ResultType>, completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil) {
        fetchRequest = request
        self.completionBlock = completionBlock
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}

/// A request `execute(_:)` can start (type-erased over the result type).
protocol ExecutableStoreRequest {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult
}

extension NSAsynchronousFetchRequest: ExecutableStoreRequest {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult {
        let progress = Progress(totalUnitCount: 1)
        let result = NSAsynchronousFetchResult(request: self, context: context, progress: progress)
        // The block runs on the context's queue, where the results' objects belong; it is not
        // Sendable (Apple's is not either), so it is carried unchecked to that queue.
        let job = UncheckedBox((self, result))
        context.queue.async {
            let (request, result) = job.value
            if progress.isCancelled {
                result.operationError = CocoaError(.userCancelled)
            } else {
                do {
                    result.finalResult = try result.managedObjectContext.fetch(request.fetchRequest)
                } catch {
                    result.operationError = error
                }
            }
            progress.completedUnitCount = 1
            request.completionBlock?(result)
            result.managedObjectContext.processPendingChanges()
        }
        return result
    }
}

// MARK: - Executing requests

extension NSManagedObjectContext {
    /// Passes a request to the stores without going through the context's objects.
    ///
    /// Runs `NSAsynchronousFetchRequest`s, `NSPersistentHistoryChangeRequest`s and the batch
    /// requests (`NSBatchInsertRequest`, `NSBatchUpdateRequest`, `NSBatchDeleteRequest`; SQLite
    /// stores only, others throw `NSPersistentStoreUnsupportedRequestTypeError`).
    /// `NSSaveChangesRequest`s are always rejected, as Apple documents; save with `save()`. Other request types throw
    /// `NSPersistentStoreUnsupportedRequestTypeError` naming the type.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/execute(_:)>.
    @discardableResult
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        if let history = request as? NSPersistentHistoryChangeRequest { return try executeHistoryRequest(history) }
        if let batch = request as? BatchStoreRequest {
            return try batch.run(in: self)
        }
        if request is NSSaveChangesRequest {
            throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError,
                                     "execute(_:) does not run NSSaveChangesRequest; call save() on the context instead.")
        }
        guard let executable = request as? ExecutableStoreRequest else {
            throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError,
                                     "The stores do not support requests of type \(type(of: request)) yet.")
        }
        return executable.start(in: self)
    }
}

extension NSPersistentStoreCoordinator {
    /// Runs a request in a context; the same as `context.execute(_:)`.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/execute(_:with:)>.
    public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        guard context.persistentStoreCoordinator === self else {
            CoreDataError.programmerError("execute(_:with:) was given a context of another coordinator.")
        }
        return try context.execute(request)
    }
}
