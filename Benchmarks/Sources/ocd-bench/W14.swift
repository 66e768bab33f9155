import Foundation
import OpenCoreData

// W14: a fetched results controller keeps 100,000 results current (issue 19, Must 4). The stored
// users are fetched by an NSFetchedResultsController sectioned by first name (20 sections) and
// sorted by first name, then last name, with a delegate set so that it tracks changes. Two cases:
// - W14-edit: 1,000 single-object edits, each followed by processPendingChanges(): a third
//   change the last name (a move inside the section), a third the first name (a move to another
//   section), a third the age (an update: age is not a sort key). Reported per edit.
// - W14-refetch: one performFetch() of the same controller, what refetching costs instead.
// Target: an edit at least 50× cheaper than a refetch (the target line divides the medians).
// The delegate's reports are checked after the timed part (every edit reported once, with the
// right kind; the controller's order equal to a fresh fetch's), so tracking cannot be skipped.
// Only OpenCoreData has a fetched results controller, so raw SQLite and GRDB have no variant.

enum W14 {
    /// The two cases.
    enum Phase: String, CaseIterable {
        case edit, refetch
        var id: String { "W14-\(rawValue)" }
    }

    static func cases(_ bench: Bench) throws -> [BenchCase] {
        let count = bench.sizes.w14Objects, edits = bench.sizes.w14Edits
        var cases: [BenchCase] = []
        for phase in Phase.allCases where bench.options.selects(phase.id) {
            let unavailable = Variant.notAvailable("no fetched results controller (OpenCoreData's edit and refetch are compared with each other)")
            cases.append(BenchCase(
                id: phase.id,
                summary: phase == .edit
                    ? "\(count) stored users in a controller sectioned by first name, sorted by first then last name: one edit (last name, first name or age, in turn) and processPendingChanges(), per edit (mean of \(edits))"
                    : "the same controller's performFetch() of \(count) users (objects already registered in the context)",
                variants: [
                    .raw: unavailable, .grdbRows: unavailable, .grdbRecords: unavailable,
                    .ocdKVC: try variant(bench, phase: phase, style: .kvc, count: count, edits: edits),
                    .ocdTyped: try variant(bench, phase: phase, style: .typed, count: count, edits: edits),
                ]))
        }
        return cases
    }

    private static func variant(_ bench: Bench, phase: Phase, style: Style, count: Int, edits: Int) throws -> Variant {
        let source = try Users.coreDataStore(bench, count: count, style: style)
        let model = Models.user(style)
        return .run {
            // Nothing is saved, so every run reads the same fixture.
            let stack = try CoreDataStack(model: model, url: source)
            defer { try? stack.close() }
            let request = NSFetchRequest<NSManagedObject>(entityName: "User")
            request.sortDescriptors = [NSSortDescriptor(key: "firstName", ascending: true),
                                       NSSortDescriptor(key: "lastName", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context,
                                                        sectionNameKeyPath: "firstName", cacheName: nil)
            let counter = ChangeCounter()
            controller.delegate = counter
            try controller.performFetch()
            let objects = controller.fetchedObjects ?? []
            try check(objects.count == count, "W14 fetched \(objects.count) users, expected \(count)")
            try check(controller.sections?.count == Users.firstNames.count, "W14 has \(controller.sections?.count ?? 0) sections")

            switch phase {
            case .refetch:
                let seconds = try timed { try controller.performFetch() }
                try check(controller.fetchedObjects?.count == count, "W14 refetched \(controller.fetchedObjects?.count ?? 0) users")
                return seconds
            case .edit:
                let plan = (0..<edits).map { Edit(step: $0, object: objects[($0 * 7_919) % count]) }
                let seconds = timed {
                    for edit in plan {
                        edit.apply(style: style)
                        stack.context.processPendingChanges()
                    }
                }
                try verify(counter, plan: plan, controller: controller, context: stack.context)
                return seconds / Double(edits)
            }
        }
    }

    // MARK: - Edits

    /// One edit: the kind turns with the step, the object is spread over the results.
    private struct Edit {
        enum Kind { case lastName, firstName, age }
        let kind: Kind
        let object: NSManagedObject
        let step: Int

        init(step: Int, object: NSManagedObject) {
            self.step = step
            self.object = object
            kind = [Kind.lastName, .firstName, .age][step % 3]
        }

        func apply(style: Style) {
            switch (kind, style) {
            case (.lastName, _):
                // Another user's last name with a suffix: lands elsewhere in the same section.
                let name = Users.lastName((step &* 104_729) % 99_991) + "x"
                if style == .typed { (object as! UserObject).lastName = name } else { object.setValue(name, forKey: "lastName") }
            case (.firstName, _):
                let current = object.value(forKey: "firstName") as? String
                let index = Users.firstNames.firstIndex { $0 == current } ?? 0
                let name = Users.firstNames[(index + 1 + step % (Users.firstNames.count - 1)) % Users.firstNames.count]
                if style == .typed { (object as! UserObject).firstName = name } else { object.setValue(name, forKey: "firstName") }
            case (.age, .typed):
                (object as! UserObject).age += 1
            case (.age, .kvc):
                let age = (object.value(forKey: "age") as? NSNumber)?.int64Value ?? 0
                object.setValue(NSNumber(value: age + 1), forKey: "age")
            }
        }
    }

    /// Counts what the controller reported, per batch.
    private final class ChangeCounter: NSFetchedResultsControllerDelegate {
        var batches = 0
        var moves = 0
        var sectionMoves = 0
        var updates = 0
        var other = 0
        /// The objects reported, in order.
        var reported: [ObjectIdentifier] = []

        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { batches += 1 }

        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                        at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
            reported.append(ObjectIdentifier(anObject as AnyObject))
            switch type {
            case .move:
                moves += 1
                if indexPath?.section != newIndexPath?.section { sectionMoves += 1 }
            case .update: updates += 1
            default: other += 1
            }
        }
    }

    /// Checks that each edit was reported once, as the right kind, and that the controller's
    /// results equal a fresh fetch's.
    private static func verify(_ counter: ChangeCounter, plan: [Edit], controller: NSFetchedResultsController<NSManagedObject>,
                               context: NSManagedObjectContext) throws {
        let edits = plan.count
        try check(counter.batches == edits, "W14 saw \(counter.batches) change batches, expected \(edits)")
        try check(counter.reported == plan.map { ObjectIdentifier($0.object) }, "W14: the reported objects are not the edited ones")
        try check(counter.other == 0, "W14 saw \(counter.other) inserts or deletes")
        let sectionEdits = plan.filter { $0.kind == .firstName }.count
        let ageEdits = plan.filter { $0.kind == .age }.count
        try check(counter.sectionMoves == sectionEdits, "W14 saw \(counter.sectionMoves) section moves, expected \(sectionEdits)")
        // A last-name edit that keeps both neighbours is rightly an update; nearly all move.
        try check(counter.updates >= ageEdits && counter.moves >= sectionEdits + (edits - sectionEdits - ageEdits) / 2,
                  "W14 saw \(counter.moves) moves and \(counter.updates) updates for \(edits) edits")
        let fresh = NSFetchedResultsController(fetchRequest: controller.fetchRequest, managedObjectContext: context,
                                               sectionNameKeyPath: "firstName", cacheName: nil)
        try fresh.performFetch()
        let tracked = (controller.fetchedObjects ?? []).map(ObjectIdentifier.init)
        try check(tracked == (fresh.fetchedObjects ?? []).map(ObjectIdentifier.init), "W14: the tracked order differs from a fresh fetch")
        try check(controller.sections?.map(\.numberOfObjects) == fresh.sections?.map(\.numberOfObjects),
                  "W14: the tracked sections differ from a fresh fetch's")
    }
}
