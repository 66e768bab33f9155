// A table data source driven by NSFetchedResultsController, as UIKit apps write one: batch
// updates collected between will/did, `switch type` with `@unknown default`, `sections?[…]`,
// `object(at:)`. The table view is replaced by the rows it would show.
import Foundation
import OpenCoreData

final class ItemListDataSource: NSObject, NSFetchedResultsControllerDelegate {
    private(set) var rows: [[String]] = []
    private(set) var batches = 0
    private var pending: [(NSFetchedResultsChangeType, IndexPath?, IndexPath?)] = []
    private var sectionChanges: [(NSFetchedResultsChangeType, Int)] = []

    lazy var fetchedResultsController: NSFetchedResultsController<Item> = {
        let request: NSFetchRequest<Item> = Item.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: false),
                                   NSSortDescriptor(keyPath: \Item.title, ascending: true)]
        request.fetchBatchSize = 20
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "priority", cacheName: "Items")
        controller.delegate = self
        return controller
    }()

    let context: NSManagedObjectContext

    init(context: NSManagedObjectContext) {
        self.context = context
        super.init()
    }

    func load() throws {
        try fetchedResultsController.performFetch()
        reloadData()
    }

    func numberOfSections() -> Int { fetchedResultsController.sections?.count ?? 0 }

    func numberOfRows(inSection section: Int) -> Int {
        guard let sections = fetchedResultsController.sections else { return 0 }
        return sections[section].numberOfObjects
    }

    func title(at indexPath: IndexPath) -> String {
        fetchedResultsController.object(at: indexPath).title ?? ""
    }

    func titleForHeader(inSection section: Int) -> String? {
        fetchedResultsController.sections?[section].name
    }

    private func reloadData() {
        rows = (0..<numberOfSections()).map { section in
            (0..<numberOfRows(inSection: section)).map { title(at: IndexPath(item: $0, section: section)) }
        }
    }

    // MARK: - NSFetchedResultsControllerDelegate

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        pending.removeAll()
        sectionChanges.removeAll()
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        switch type {
        case .insert, .delete:
            sectionChanges.append((type, sectionIndex))
        default:
            break
        }
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        switch type {
        case .insert:
            guard let newIndexPath = newIndexPath else { return }
            pending.append((type, nil, newIndexPath))
        case .delete:
            guard let indexPath = indexPath else { return }
            pending.append((type, indexPath, nil))
        case .update:
            if let indexPath = indexPath, anObject is Item { pending.append((type, indexPath, nil)) }
        case .move:
            if let indexPath = indexPath, let newIndexPath = newIndexPath { pending.append((type, indexPath, newIndexPath)) }
        @unknown default:
            fatalError("Unhandled change type")
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        // A table view would run performBatchUpdates here; the new rows are what it would show.
        batches += 1
        reloadData()
    }

    var lastBatchSize: Int { pending.count + sectionChanges.count }
}
