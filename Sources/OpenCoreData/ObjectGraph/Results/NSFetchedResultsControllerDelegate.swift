import Foundation

// MARK: - Change type

/// The kind of change a fetched results controller reports for an object or a section.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchedresultschangetype>.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// The object or section entered the results.
    case insert = 1
    /// The object or section left the results.
    case delete = 2
    /// The object moved: its sort keys or its section changed.
    case move = 3
    /// The object changed without moving.
    case update = 4
}

// MARK: - Section info

/// A section of a fetched results controller's results.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchedresultssectioninfo>.
public protocol NSFetchedResultsSectionInfo {
    /// The section's name: the string form of its objects' section key path value.
    var name: String { get }
    /// The section's entry in a section index (by default the capitalized first letter of `name`).
    var indexTitle: String? { get }
    /// The number of objects in the section.
    var numberOfObjects: Int { get }
    /// The objects in the section, in the controller's order.
    var objects: [Any]? { get }
}

/// One section as it was when the controller handed it out (a value: later changes don't alter it).
final class FetchedResultsSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    private let members: ArraySlice<FetchedRow>

    init(name: String, indexTitle: String?, members: ArraySlice<FetchedRow>) {
        self.name = name
        self.indexTitle = indexTitle
        self.members = members
    }

    var numberOfObjects: Int { members.count }
    var objects: [Any]? { members.map { $0.object } }
}

// MARK: - Delegate

/// Methods a fetched results controller calls when its results change.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate>.
/// Every method is optional, as Apple's are: the protocol extension supplies the defaults.
/// A controller tracks changes only while it has a delegate (or an observer such as
/// `NSManagedObjectContext.results(for:)`), as Apple's does.
///
/// When the delegate implements `controller(_:didChangeContentWith:)` (the
/// `CollectionDifference<NSManagedObjectID>` form) and the controller has no section key path,
/// only that method is called, as Apple documents. Linux has no `NSDiffableDataSourceSnapshot`,
/// so the snapshot form does not exist (docs/Deviations.md).
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// Called before the controller reports one batch of changes.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// Reports one object's change: deletions and old paths against the state before the batch,
    /// insertions and new paths against the state after it (`UITableView` batch-update rules).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)
    /// Reports a section's insertion or deletion; sent before the batch's object changes.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    didChange sectionInfo: any NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
                    for type: NSFetchedResultsChangeType)
    /// Called after the controller reported one batch of changes.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// The section index title for a section name; `nil` means the controller's default.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    sectionIndexTitleForSectionName sectionName: String) -> String?
    /// Reports one batch as a difference of the fetched objects' IDs (controllers without sections).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

extension NSFetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
    /// Does nothing.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                           at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {}
    /// Does nothing.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                           didChange sectionInfo: any NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
                           for type: NSFetchedResultsChangeType) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    /// Not implemented: the controller uses `sectionIndexTitle(forSectionName:)`.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                           sectionIndexTitleForSectionName sectionName: String) -> String? {
        controller.core.delegateLacksMethod = true
        return nil
    }

    /// Not implemented: the controller sends the per-object and per-section methods instead.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                           didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        controller.core.delegateLacksMethod = true
    }
}

// MARK: - IndexPath

#if !canImport(Darwin)
extension IndexPath {
    /// An index path for a row (an item) in a section, as UIKit and AppKit declare it.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// An index path for a row in a section, as UIKit declares it.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section: the first index (0 for an empty path).
    public var section: Int {
        get { isEmpty ? 0 : self[0] }
        set { if isEmpty { self = IndexPath(indexes: [newValue, 0]) } else { self[0] = newValue } }
    }

    /// The item within the section: the second index (0 when there is none).
    public var item: Int {
        get { count < 2 ? 0 : self[1] }
        set { if count < 2 { self = IndexPath(indexes: [section, newValue]) } else { self[1] = newValue } }
    }

    /// The row within the section; the same as `item`.
    public var row: Int {
        get { item }
        set { item = newValue }
    }
}
#endif
