import Foundation
import Testing
@testable import OpenCoreData

/// A model, a recording delegate and a table-view replay for the fetched results controller suites.
enum Live {
    /// `Item` (name, group, rank, visible, list) and `List` (title, items), inverse to each other.
    static func model() -> NSManagedObjectModel {
        let item = TestModels.entity("Item", [
            TestModels.attribute("name", .stringAttributeType),
            TestModels.attribute("key", .stringAttributeType),
            TestModels.attribute("group", .stringAttributeType),
            TestModels.attribute("rank", .integer32AttributeType, defaultValue: 0),
            TestModels.attribute("visible", .booleanAttributeType, optional: false, defaultValue: true),
        ])
        let list = TestModels.entity("List", [TestModels.attribute("title", .stringAttributeType)])
        let toList = TestModels.relationship("list", to: list, toMany: false)
        let items = TestModels.relationship("items", to: item, toMany: true)
        TestModels.inverse(toList, items)
        item.properties.append(toList)
        list.properties.append(items)
        let model = NSManagedObjectModel()
        model.entities = [item, list]
        return model
    }

    @discardableResult
    static func item(_ name: String, group: String = "A", rank: Int = 0, visible: Bool = true,
                     list: NSManagedObject? = nil, in context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        object.setValue(name, forKey: "name")
        object.setValue(name, forKey: "key")
        object.setValue(group, forKey: "group")
        object.setValue(NSNumber(value: rank), forKey: "rank")
        object.setValue(NSNumber(value: visible), forKey: "visible")
        if let list { object.setValue(list, forKey: "list") }
        return object
    }

    static func list(_ title: String, in context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: "List", into: context)
        object.setValue(title, forKey: "title")
        return object
    }

    /// Items sorted by group, rank, name (names are unique in the tests, so the order is total).
    static func request(_ predicate: NSPredicate? = nil, sectioned: Bool = true) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = predicate
        request.sortDescriptors = (sectioned ? [NSSortDescriptor(key: "group", ascending: true)] : [])
            + [NSSortDescriptor(key: "rank", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
        return request
    }

    static func controller(_ context: NSManagedObjectContext, _ predicate: NSPredicate? = nil,
                           sectioned: Bool = true) -> NSFetchedResultsController<NSManagedObject> {
        NSFetchedResultsController(fetchRequest: request(predicate, sectioned: sectioned), managedObjectContext: context,
                                   sectionNameKeyPath: sectioned ? "group" : nil, cacheName: nil)
    }

    /// An item's key: its first name, kept when the name changes (the layouts' identity).
    static func name(_ object: Any?) -> String { ((object as? NSManagedObject)?.value(forKey: "key") as? String) ?? "?" }

    /// The controller's sections as names and item names.
    static func layout<T>(_ controller: NSFetchedResultsController<T>) -> [Section] {
        (controller.sections ?? []).map { Section(name: $0.name, items: ($0.objects ?? []).map(name)) }
    }

    /// What a fresh fetch answers, split into sections the way the controller splits them.
    ///
    /// The predicate is evaluated in memory on every item: a SQLite fetch evaluates it on the
    /// stored rows of unchanged objects, so it misses unsaved changes of related objects (as
    /// Apple's does), which the controller sees.
    static func freshLayout(_ context: NSManagedObjectContext, _ predicate: NSPredicate?, sectioned: Bool) throws -> [Section] {
        let all = request(nil, sectioned: sectioned)
        let objects = try context.fetch(all).filter { predicate?.evaluate(with: $0) ?? true }.sorted(using: all.sortDescriptors ?? [])
        guard sectioned else { return [Section(name: "", items: objects.map(name))] }
        var sections: [Section] = []
        for object in objects {
            let group = object.value(forKey: "group") as? String ?? ""
            if sections.last?.name == group { sections[sections.count - 1].items.append(name(object)) } else {
                sections.append(Section(name: group, items: [name(object)]))
            }
        }
        return sections
    }

    struct Section: Equatable, CustomStringConvertible {
        var name: String
        var items: [String]
        var description: String { "\(name): \(items)" }
    }
}

// MARK: - Recording delegate

/// Records every delegate call, as strings and as structured changes.
final class LiveRecorder: NSFetchedResultsControllerDelegate {
    enum Event: Equatable {
        case will, did
        case section(String, Int, NSFetchedResultsChangeType)
        case object(String, NSFetchedResultsChangeType, IndexPath?, IndexPath?)
    }

    var events: [Event] = []

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { events.append(.will) }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { events.append(.did) }
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        events.append(.section(sectionInfo.name, sectionIndex, type))
    }
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        events.append(.object(Live.name(anObject), type, indexPath, newIndexPath))
    }

    /// The events since the last call, cleared.
    func take() -> [Event] {
        defer { events = [] }
        return events
    }
}

// MARK: - Table view replay

/// Applies one batch of reported changes to the old sections with `UITableView` batch-update
/// rules: deletions and move sources at old index paths, then section deletions; section
/// insertions at new indices; insertions and move targets at new index paths, ascending.
/// Records a problem for anything a table view would refuse.
enum TableReplay {
    /// Applies several batches (each between `will` and `did`) in turn.
    static func applyBatches(_ events: [LiveRecorder.Event], to old: [Live.Section]) -> (result: [Live.Section], problems: [String]) {
        var sections = old, problems: [String] = [], batch: [LiveRecorder.Event] = []
        for event in events {
            batch.append(event)
            if event == .did {
                let step = apply(batch, to: sections)
                sections = step.result
                problems += step.problems
                batch = []
            }
        }
        if !batch.isEmpty { problems.append("unfinished batch \(batch)") }
        return (sections, problems)
    }

    static func apply(_ events: [LiveRecorder.Event], to old: [Live.Section]) -> (result: [Live.Section], problems: [String]) {
        var problems: [String] = []
        let batch = events.filter { $0 != .will && $0 != .did }
        if !batch.isEmpty && (events.first != .will || events.last != .did) { problems.append("batch not wrapped in will/did: \(events)") }
        var sectionDeletes = Set<Int>(), sectionInserts: [(Int, String)] = []
        var removals: [IndexPath] = [], additions: [(IndexPath, String)] = []
        var sawObject = false
        for event in batch {
            switch event {
            case .section(let name, let index, .delete):
                if sawObject { problems.append("section change after an object change") }
                if !old.indices.contains(index) || old[index].name != name { problems.append("bad section delete \(name) at \(index)") }
                sectionDeletes.insert(index)
            case .section(let name, let index, .insert):
                if sawObject { problems.append("section change after an object change") }
                sectionInserts.append((index, name))
            case .object(let name, .delete, let path?, nil):
                sawObject = true
                if item(old, path) != name { problems.append("delete of \(name) at \(path) finds \(item(old, path) ?? "nothing")") }
                removals.append(path)
            case .object(let name, .insert, nil, let path?):
                sawObject = true
                additions.append((path, name))
            case .object(let name, .move, let from?, let to?):
                sawObject = true
                if item(old, from) != name { problems.append("move of \(name) from \(from) finds \(item(old, from) ?? "nothing")") }
                removals.append(from)
                additions.append((to, name))
            case .object(let name, .update, let path?, _):
                sawObject = true
                if item(old, path) != name { problems.append("update of \(name) at \(path) finds \(item(old, path) ?? "nothing")") }
            default:
                problems.append("malformed event \(event)")
            }
        }
        if Set(removals).count != removals.count { problems.append("a row removed twice") }
        var sections = old
        for path in removals.sorted(by: >) {
            guard sections.indices.contains(path.section), sections[path.section].items.indices.contains(path.item) else { continue }
            sections[path.section].items.remove(at: path.item)
        }
        for index in sectionDeletes.sorted(by: >) where sections.indices.contains(index) {
            if !sections[index].items.isEmpty { problems.append("deleted section \(sections[index].name) still has rows") }
            sections.remove(at: index)
        }
        for (index, name) in sectionInserts.sorted(by: { $0.0 < $1.0 }) {
            guard index <= sections.count else { problems.append("section insert beyond the end"); continue }
            sections.insert(Live.Section(name: name, items: []), at: index)
        }
        for (path, name) in additions.sorted(by: { $0.0 < $1.0 }) {
            guard sections.indices.contains(path.section), path.item <= sections[path.section].items.count else {
                problems.append("insert of \(name) at \(path) is out of bounds")
                continue
            }
            sections[path.section].items.insert(name, at: path.item)
        }
        return (sections, problems)
    }

    private static func item(_ sections: [Live.Section], _ path: IndexPath) -> String? {
        guard sections.indices.contains(path.section), sections[path.section].items.indices.contains(path.item) else { return nil }
        return sections[path.section].items[path.item]
    }
}
