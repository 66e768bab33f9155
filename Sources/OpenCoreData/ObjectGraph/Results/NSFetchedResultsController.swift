import Foundation

// MARK: - NSFetchedResultsController

/// Keeps the results of a fetch request current as its context changes, in sections, and
/// reports each change to a delegate.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller>.
///
/// ```swift
/// let request = NSFetchRequest<Todo>(entityName: "Todo")
/// request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
/// let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                             sectionNameKeyPath: nil, cacheName: nil)
/// controller.delegate = self
/// try controller.performFetch()
/// ```
///
/// The controller tracks its own context: the context's `processPendingChanges()` (which a save
/// and every `perform` block run), merges of other contexts' saves, and pushes from child
/// contexts. Each changed object costs O(log *n*) comparisons to place; nothing is refetched
/// (unless the request has a `fetchLimit` or `fetchOffset`, which are kept exact by refetching).
///
/// `ResultType` is unconstrained so that `NSFetchedResultsController<NSFetchRequestResult>`,
/// the type delegate methods take, compiles on Linux (a protocol existential does not conform to
/// its protocol there). The delegate receives a controller of that type sharing this one's
/// state: `==` holds between the two, `===` does not (docs/Deviations.md).
///
/// Use a controller on its context's queue, as Apple requires.
open class NSFetchedResultsController<ResultType>: NSObject {
    /// The shared state; the delegate's `NSFetchRequestResult`-typed controller shares it.
    package let core: FetchedResultsCore
    /// The fetch request, as given; changes take effect at the next `performFetch()`.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// The context fetched in and tracked (held here: the core holds it weakly).
    public let managedObjectContext: NSManagedObjectContext
    /// Whether this controller created `core` (its deinit stops the tracking).
    private let ownsCore: Bool
    /// This controller as the delegate methods' type, when `ResultType` is another type.
    private var erasedFront: NSFetchedResultsController<NSFetchRequestResult>?
    /// `fetchedObjects` cast to `ResultType`, for the core's version it was made at.
    private var typedObjects: (version: Int, objects: [ResultType])?

    /// Creates a controller for a request with at least one sort descriptor.
    ///
    /// A request without sort descriptors is a programmer error, as Apple raises an exception.
    /// `sectionNameKeyPath` splits the results into sections; the first sort descriptor must
    /// order the objects so that each section's objects are contiguous (`performFetch()` throws
    /// otherwise). `cacheName` is kept but nothing is cached on disk (docs/Deviations.md).
    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
                sectionNameKeyPath: String?, cacheName name: String?) {
        guard let sorts = fetchRequest.sortDescriptors, !sorts.isEmpty else {
            CoreDataError.programmerError("An instance of NSFetchedResultsController requires a fetch request with sort descriptors (entity '\(fetchRequest.entityName ?? "?")').")
        }
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.core = FetchedResultsCore(context: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: name)
        self.ownsCore = true
        super.init()
        core.fetch = { context in
            let snapshot = fetchRequest.retyped(NSFetchRequestResult.self)
            let results = try context.fetch(fetchRequest)
            return (snapshot, results.map { $0 as AnyObject })
        }
        core.owner = self
        if let erased = self as? NSFetchedResultsController<NSFetchRequestResult> {
            core.callbackFront = erased
        }
    }

    /// A controller sharing `core`, as the delegate's type.
    package init(sharing core: FetchedResultsCore, request: NSFetchRequest<ResultType>, context: NSManagedObjectContext) {
        self.core = core
        self.managedObjectContext = context
        self.fetchRequest = request
        self.ownsCore = false
        super.init()
    }

    deinit {
        if ownsCore { core.stopTracking() }
    }

    // MARK: - Configuration

    /// The key path whose value names each object's section, or `nil` for one section.
    public var sectionNameKeyPath: String? { core.sectionNameKeyPath }
    /// The name given at creation; nothing is cached under it on Linux.
    public var cacheName: String? { core.cacheName }

    /// The object told about changes (held weakly, as Apple's).
    ///
    /// Setting one starts change tracking after the next (or the last) `performFetch()`.
    public weak var delegate: (any NSFetchedResultsControllerDelegate)? {
        get { core.delegate }
        set {
            if newValue != nil { prepareCallbacks() }
            core.delegate = newValue
        }
    }

    /// Deletes the named cache; `nil` deletes every cache. Nothing is cached on Linux, so this
    /// has nothing to remove.
    open class func deleteCache(withName name: String?) {}

    // MARK: - Fetching

    /// Fetches the results, splits them into sections, and starts tracking changes.
    ///
    /// Throws the fetch's error, or `NSCoreDataError` when a section's objects are not
    /// contiguous in the first sort descriptor's order. Call it again after changing
    /// `fetchRequest` (or after the context's `reset()`).
    open func performFetch() throws {
        prepareCallbacks()
        try core.performFetch()
        typedObjects = nil
    }

    /// The fetched objects in order; `nil` before `performFetch()`.
    public var fetchedObjects: [ResultType]? {
        guard core.hasFetched else { return nil }
        if let typedObjects, typedObjects.version == core.version { return typedObjects.objects }
        let objects = core.rows.compactMap { $0.object as? ResultType }
        typedObjects = (core.version, objects)
        return objects
    }

    /// The object at an index path; a path outside the results is a programmer error.
    public func object(at indexPath: IndexPath) -> ResultType {
        guard let object = core.object(at: indexPath) as? ResultType else {
            CoreDataError.programmerError("NSFetchedResultsController: no object at index \(indexPath.item) in section at index \(indexPath.section).")
        }
        return object
    }

    /// The index path of an object, or `nil` when it is not in the results.
    public func indexPath(forObject object: ResultType) -> IndexPath? {
        core.indexPath(for: object as AnyObject)
    }

    // MARK: - Sections

    /// The sections, in order; `nil` before `performFetch()`.
    public var sections: [any NSFetchedResultsSectionInfo]? { core.sectionInfos() }

    /// The section index entry for a section name: its capitalized first letter.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        FetchedResultsCore.defaultIndexTitle(for: sectionName)
    }

    /// The section index titles, one per distinct title of the sections, in section order.
    open var sectionIndexTitles: [String] { core.sectionIndexTitles() }

    /// The section a section index entry leads to: the first section with that index title.
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        core.section(forIndexTitle: title, at: sectionIndex)
    }

    // MARK: - Equality

    /// Controllers are equal when they share their state (the delegate's controller equals its own).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FetchedResultsFront else { return false }
        return other.sharedCore === core
    }

    /// A hash of the shared state's identity.
    open override var hash: Int { ObjectIdentifier(core).hashValue }

    // MARK: - Callbacks

    /// Makes sure the core can hand the delegate a controller of the delegate's type.
    private func prepareCallbacks() {
        guard ownsCore, core.callbackFront == nil else { return }
        let erased = NSFetchedResultsController<NSFetchRequestResult>(
            sharing: core, request: fetchRequest.retyped(NSFetchRequestResult.self), context: managedObjectContext)
        erasedFront = erased
        core.callbackFront = erased
    }
}

// MARK: - Front

/// What the core needs from the controller that owns it, whatever its result type.
package protocol FetchedResultsFront: AnyObject {
    var sharedCore: FetchedResultsCore { get }
    func sectionIndexTitle(forSectionName sectionName: String) -> String?
}

extension NSFetchedResultsController: FetchedResultsFront {
    package var sharedCore: FetchedResultsCore { core }
}
