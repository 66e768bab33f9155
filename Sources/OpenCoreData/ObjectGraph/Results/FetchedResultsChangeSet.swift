import Foundation

/// One object's reported change.
package struct FetchedObjectChange {
    /// The object (a managed object: only those are tracked).
    package let object: AnyObject
    package let type: NSFetchedResultsChangeType
    /// Where it was, before the batch (`nil` for an insertion).
    package let indexPath: IndexPath?
    /// Where it is, after the batch (`nil` for a deletion).
    package let newIndexPath: IndexPath?
}

/// One section's reported insertion or deletion.
package struct FetchedSectionChange {
    package let info: any NSFetchedResultsSectionInfo
    package let index: Int
    package let type: NSFetchedResultsChangeType
}

/// What one change batch did to a controller's results, in the order Apple's delegate hears it:
/// section changes (deletions by descending old index, then insertions by ascending new index),
/// then object changes (deletions by descending old path, insertions by ascending new path,
/// moves, updates).
package struct FetchedResultsChangeSet {
    package var sections: [FetchedSectionChange] = []
    package var objects: [FetchedObjectChange] = []
    /// The same batch as a difference of the fetched object IDs (no sections, no updates).
    package var difference = CollectionDifference<NSManagedObjectID>([])!

    package var isEmpty: Bool { sections.isEmpty && objects.isEmpty }
}

// MARK: - Delivery

extension FetchedResultsCore {
    /// Tells the delegate and the listeners about one batch.
    func deliver(_ changes: FetchedResultsChangeSet) {
        guard !changes.isEmpty else { return }
        if let delegate, let front = callbackFront {
            tell(delegate, front, changes)
        }
        for listener in listeners.values { listener(changes) }
    }

    private func tell(_ delegate: any NSFetchedResultsControllerDelegate,
                      _ front: NSFetchedResultsController<NSFetchRequestResult>, _ changes: FetchedResultsChangeSet) {
        if sectionNameKeyPath == nil {
            // Apple: a delegate implementing the difference form hears only that.
            delegateLacksMethod = false
            delegate.controller(front, didChangeContentWith: changes.difference)
            if !delegateLacksMethod { return }
        }
        delegate.controllerWillChangeContent(front)
        for change in changes.sections {
            delegate.controller(front, didChange: change.info, atSectionIndex: change.index, for: change.type)
        }
        for change in changes.objects {
            delegate.controller(front, didChange: change.object, at: change.indexPath, for: change.type,
                                newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(front)
    }
}
