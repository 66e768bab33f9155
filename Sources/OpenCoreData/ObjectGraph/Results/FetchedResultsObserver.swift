import Foundation
import Observation

/// The results of a fetch request as an observable object: `objects` and `sections` change
/// once per change batch, and Observation (`withObservationTracking`, SwiftUI, `Observations`)
/// sees them change. A `@FetchRequest`-like property for code outside SwiftUI, and on Linux.
///
/// Built on a fetched results controller's change tracking, not on refetching. Use it on its
/// context's queue (the main actor for a main-queue context), as the objects it holds.
///
/// ```swift
/// let todos = try FetchedResultsObserver(fetchRequest: request, managedObjectContext: viewContext)
/// withObservationTracking { _ = todos.objects } onChange: { print("changed") }
/// ```
@Observable
public final class FetchedResultsObserver<ResultType: NSFetchRequestResult> {
    /// The results, in order.
    public private(set) var objects: [ResultType] = []
    /// The sections (one unnamed section without a section key path).
    public private(set) var sections: [any NSFetchedResultsSectionInfo] = []
    /// How many change batches have been applied since the fetch.
    public private(set) var changeCount = 0

    @ObservationIgnored private let controller: NSFetchedResultsController<ResultType>
    @ObservationIgnored private var token = 0

    /// Fetches the results and keeps them current. Throws the fetch's error; the request needs
    /// sort descriptors (a programmer error otherwise, as for the controller).
    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
                sectionNameKeyPath: String? = nil) throws {
        controller = NSFetchedResultsController(fetchRequest: fetchRequest, managedObjectContext: context,
                                                sectionNameKeyPath: sectionNameKeyPath, cacheName: nil)
        try controller.performFetch()
        objects = controller.fetchedObjects ?? []
        sections = controller.sections ?? []
        token = controller.core.addListener { [weak self] _ in self?.refresh() }
    }

    deinit {
        controller.core.removeListener(token)
    }

    /// The context the results come from.
    public var managedObjectContext: NSManagedObjectContext { controller.managedObjectContext }

    /// Fetches again (after the request changed, or the context was reset).
    public func refetch() throws {
        try controller.performFetch()
        refresh()
    }

    private func refresh() {
        objects = controller.fetchedObjects ?? []
        sections = controller.sections ?? []
        changeCount += 1
    }
}
