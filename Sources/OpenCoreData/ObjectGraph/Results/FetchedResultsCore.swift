import Foundation

// MARK: - Rows

/// What a controller ordered an object by when it last placed it: its sort key values and its
/// section name. Kept so that a changed object can be found where it was, whatever it holds now.
package final class FetchedKeys {
    let values: [Any?]
    let section: String

    init(values: [Any?], section: String) {
        self.values = values
        self.section = section
    }
}

/// One result: the object (a managed object, or a dictionary or ID for untracked result types)
/// and the keys it was placed by.
package struct FetchedRow {
    let object: AnyObject
    var keys: FetchedKeys
}

extension FetchedRow: ChunkWeighted {
    var chunkWeight: Int { 1 }
}

/// A run of consecutive results with one section name.
struct FetchedSectionRun: ChunkWeighted {
    var name: String
    var count: Int

    var chunkWeight: Int { count }
}

/// One change to the sections during an incremental batch, kept to undo the batch.
enum FetchedSectionEdit {
    case inserted(at: Int)
    case removed(FetchedSectionRun, at: Int)
    case counted(at: Int, by: Int)
}

// MARK: - Core

/// The state of a fetched results controller, whatever its result type: the ordered results,
/// their sections, and the change tracking. `NSFetchedResultsController<T>` is a typed front on it;
/// the delegate's `NSFetchedResultsController<NSFetchRequestResult>` is another front on the same core.
///
/// Order: the sort descriptors, then (for objects they find equal) the objects' identities, so
/// that every object has one place a binary search finds in O(log *n*) comparisons. The results
/// and the sections are `ChunkedList`s, so that placing a changed object, and turning its row
/// index into an index path, costs O(log *n*) rather than an array's O(*n*) shift.
///
/// `@unchecked Sendable` so that the notification observer's closure may hold it weakly: the core
/// is used only on its context's queue (Apple's rule for the controller), and `ObjectsDidChange`
/// is posted on that queue.
package final class FetchedResultsCore: @unchecked Sendable {
    /// Weak: a controller keeps its context alive itself; a results stream must not.
    private(set) weak var context: NSManagedObjectContext?
    let sectionNameKeyPath: String?
    let cacheName: String?
    weak var delegate: (any NSFetchedResultsControllerDelegate)?
    /// The controller that created the core (for its overridable section index title).
    weak var owner: (any FetchedResultsFront)?
    /// The controller the delegate is handed.
    weak var callbackFront: NSFetchedResultsController<NSFetchRequestResult>?
    /// Set by the delegate protocol's default implementations: the delegate lacks the method just called.
    var delegateLacksMethod = false
    /// Runs the owner's fetch request; answers a snapshot of the request and the results.
    var fetch: ((NSManagedObjectContext) throws -> (NSFetchRequest<NSFetchRequestResult>, [AnyObject]))?

    /// Whether `performFetch()` succeeded once.
    private(set) var hasFetched = false
    /// Bumped whenever the results change (fronts cache typed copies by it).
    private(set) var version = 0
    /// The chunk size of `rows` and `sections` from the next fetch on (tests make it tiny so
    /// that a few hundred results split and merge chunks).
    var chunkCapacity = 512
    /// The results in order.
    var rows = ChunkedList<FetchedRow>()
    /// The sections, as runs over `rows` (weighted by their counts, so a row offset finds its section).
    private(set) var sections = ChunkedList<FetchedSectionRun>()
    /// How many sections have each name, and how many names more than one section has (a
    /// batch that leaves such a name has broken the sections' order).
    private var sectionNameCounts: [String: Int] = [:]
    private(set) var duplicatedSectionNames = 0
    /// The keys each tracked result was placed by.
    var members: [ObjectIdentifier: FetchedKeys] = [:]

    /// The request as of the last `performFetch()`.
    var request: NSFetchRequest<NSFetchRequestResult>?
    var entity: NSEntityDescription?
    var sorts: [NSSortDescriptor] = []
    /// Whether results are managed objects, the only kind that is tracked (as Apple's).
    var tracksObjects = false
    /// Relationship chains from the entity that the predicate, the sort keys or the section key
    /// path read through: a change of an object at their far end can change a result.
    var relatedPaths: [[NSRelationshipDescription]] = []

    /// Observers besides the delegate (async sequences, observable results).
    var listeners: [Int: (FetchedResultsChangeSet) -> Void] = [:]
    private var nextListener = 0
    private var observer: (any NSObjectProtocol)?
    private var mergeObserver: (any NSObjectProtocol)?

    init(context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit { stopTracking() }

    // MARK: - Fetching

    func performFetch() throws {
        guard let fetch, let context else { return }
        let (request, results) = try fetch(context)
        let entity = try context.resolveEntity(of: request)
        // A section key path comes from the app like a sort key: a key the entity lacks is an
        // error naming it, not a trap when the first object is read.
        if let sectionNameKeyPath, request.resultType == .managedObjectResultType {
            try PredicateModelCheck.validate(keyPath: sectionNameKeyPath, entity: entity)
        }
        self.request = request
        self.entity = entity
        sorts = request.sortDescriptors ?? []
        tracksObjects = request.resultType == .managedObjectResultType
        relatedPaths = tracksObjects ? FetchedResultsPaths.relationshipChains(
            from: entity, predicate: request.predicate,
            keyPaths: sorts.compactMap(\.key) + (sectionNameKeyPath.map { [$0] } ?? [])) : []

        var newRows = results.map { FetchedRow(object: $0, keys: keys(of: $0)) }
        if tracksObjects { sortIfNeeded(&newRows) }
        let newSections = try Self.sectionRuns(of: newRows, sectioned: sectionNameKeyPath != nil)
        replace(rows: newRows, sections: newSections)
        hasFetched = true
        version &+= 1
        startTracking()
    }

    /// The keys `object` is placed by now.
    func keys(of object: AnyObject) -> FetchedKeys {
        let values = tracksObjects ? sorts.map { $0.sortValue(of: object) } : []
        return FetchedKeys(values: values, section: sectionName(of: object))
    }

    /// The section name of a result: the string form of its section key path value ("" for nil).
    func sectionName(of object: AnyObject) -> String {
        guard let path = sectionNameKeyPath else { return "" }
        switch KeyValueAccess.value(forKeyPath: path, of: object) {
        case nil, is NSNull: return ""
        case let string as String: return string
        case let number as NSNumber: return number.stringValue
        case let value?: return "\(value)"
        }
    }

    /// Orders `rows` by the controller's order unless the fetch already did (it usually has:
    /// only ties, and strings a store collates differently, need work).
    private func sortIfNeeded(_ rows: inout [FetchedRow]) {
        var sorted = true
        for index in rows.indices.dropFirst() where order(rows[index - 1], rows[index]) == .orderedDescending {
            sorted = false
            break
        }
        if !sorted { rows.sort { order($0, $1) == .orderedAscending } }
    }

    /// Splits ordered rows into runs of one section name; a name that comes back after another
    /// is an error, as Apple reports an "out of order section name".
    static func sectionRuns(of rows: [FetchedRow], sectioned: Bool) throws -> [FetchedSectionRun] {
        guard sectioned else { return [FetchedSectionRun(name: "", count: rows.count)] }
        let runs = looseRuns(of: rows)
        var seen = Set<String>()
        var start = 0
        for run in runs {
            guard seen.insert(run.name).inserted else {
                throw CoreDataError.make(NSCoreDataError, "NSFetchedResultsController: the fetched object at index \(start) has an out of order section name '\(run.name)'. Objects must be sorted by section name: make the first sort descriptor order the section key path's values.")
            }
            start += run.count
        }
        return runs
    }

    /// Runs of equal section names, even when a name comes back (results whose order breaks the
    /// sections; Apple logs an error for them).
    static func looseRuns(of rows: [FetchedRow]) -> [FetchedSectionRun] {
        var runs: [FetchedSectionRun] = []
        for row in rows {
            if let last = runs.indices.last, runs[last].name == row.keys.section { runs[last].count += 1 } else {
                runs.append(FetchedSectionRun(name: row.keys.section, count: 1))
            }
        }
        return runs
    }

    /// Makes `newRows` and `newSections` the results, and every row a member.
    func replace(rows newRows: [FetchedRow], sections newSections: [FetchedSectionRun]) {
        rows = ChunkedList(newRows, capacity: chunkCapacity)
        sections = ChunkedList(newSections, capacity: chunkCapacity)
        sectionNameCounts = [:]
        duplicatedSectionNames = 0
        for run in newSections {
            sectionNameCounts[run.name, default: 0] += 1
            if sectionNameCounts[run.name] == 2 { duplicatedSectionNames += 1 }
        }
        members = [:]
        if tracksObjects {
            members.reserveCapacity(newRows.count)
            for row in newRows { members[ObjectIdentifier(row.object)] = row.keys }
        }
    }

    /// Whether a section has `name` now.
    func hasSection(named name: String) -> Bool { sectionNameCounts[name] != nil }

    // MARK: - Editing sections

    func insertSection(_ run: FetchedSectionRun, at index: Int, log: inout [FetchedSectionEdit]) {
        sections.insert(run, at: index)
        sectionNameCounts[run.name, default: 0] += 1
        if sectionNameCounts[run.name] == 2 { duplicatedSectionNames += 1 }
        log.append(.inserted(at: index))
    }

    func removeSection(at index: Int, log: inout [FetchedSectionEdit]) {
        let run = sections.remove(at: index)
        let left = (sectionNameCounts[run.name] ?? 1) - 1
        if left == 1 { duplicatedSectionNames -= 1 }
        sectionNameCounts[run.name] = left == 0 ? nil : left
        log.append(.removed(run, at: index))
    }

    func countSection(at index: Int, by delta: Int, log: inout [FetchedSectionEdit]) {
        sections[index].count += delta
        log.append(.counted(at: index, by: delta))
    }

    /// Undoes the section edits of a batch, last first.
    func undoSectionEdits(_ log: [FetchedSectionEdit]) {
        var scratch: [FetchedSectionEdit] = []
        for edit in log.reversed() {
            switch edit {
            case .inserted(let index): removeSection(at: index, log: &scratch)
            case .removed(let run, let index): insertSection(run, at: index, log: &scratch)
            case .counted(let index, let delta): countSection(at: index, by: -delta, log: &scratch)
            }
        }
    }

    // MARK: - Order

    /// The controller's order of two rows: sort keys, then identity.
    func order(_ lhs: FetchedRow, _ rhs: FetchedRow) -> ComparisonResult {
        order(lhs.object, lhs.keys, rhs.object, rhs.keys)
    }

    func order(_ lhs: AnyObject, _ lhsKeys: FetchedKeys, _ rhs: AnyObject, _ rhsKeys: FetchedKeys) -> ComparisonResult {
        for (index, descriptor) in sorts.enumerated() {
            let result = descriptor.compareSortValues(lhsKeys.values[index], rhsKeys.values[index])
            if result != .orderedSame { return result }
        }
        let left = ObjectIdentifier(lhs), right = ObjectIdentifier(rhs)
        return left == right ? .orderedSame : (left < right ? .orderedAscending : .orderedDescending)
    }

    /// Whether two sets of keys place an object alike.
    func samePlace(_ lhs: FetchedKeys, _ rhs: FetchedKeys) -> Bool {
        guard lhs.section == rhs.section else { return false }
        for (index, descriptor) in sorts.enumerated()
        where descriptor.compareSortValues(lhs.values[index], rhs.values[index]) != .orderedSame {
            return false
        }
        return true
    }

    /// The first index whose row does not come before (`object`, `keys`): where it is, or would go.
    func searchIndex(_ object: AnyObject, _ keys: FetchedKeys) -> Int {
        rows.partitioningIndex { order($0.object, $0.keys, object, keys) != .orderedAscending }
    }

    /// The index of a tracked result placed by `keys`, or `nil` if it is not there.
    func index(of object: AnyObject, keys: FetchedKeys) -> Int? {
        let index = searchIndex(object, keys)
        return index < rows.count && rows[index].object === object ? index : nil
    }

    // MARK: - Positions

    /// The section index and the offset of its first row, for a row index the sections cover.
    func section(containing index: Int) -> (section: Int, start: Int) {
        let (section, start) = sections.locate(weightOffset: index)
        return (section, start)
    }

    func indexPath(forRow index: Int) -> IndexPath {
        let (section, start) = section(containing: index)
        return IndexPath(item: index - start, section: section)
    }

    func object(at indexPath: IndexPath) -> AnyObject? {
        guard indexPath.count == 2, indexPath.section >= 0, indexPath.section < sections.count,
              indexPath.item >= 0, indexPath.item < sections[indexPath.section].count else { return nil }
        return rows[sections.weight(before: indexPath.section) + indexPath.item].object
    }

    func indexPath(for object: AnyObject) -> IndexPath? {
        guard hasFetched else { return nil }
        if tracksObjects {
            guard let keys = members[ObjectIdentifier(object)], let index = index(of: object, keys: keys) else { return nil }
            return indexPath(forRow: index)
        }
        return rows.enumerated().first { $0.element.object === object }.map { indexPath(forRow: $0.offset) }
    }

    // MARK: - Sections

    func sectionInfos() -> [any NSFetchedResultsSectionInfo]? {
        guard hasFetched else { return nil }
        let all = Array(rows)
        var start = 0
        return sections.map { run in
            defer { start += run.count }
            return FetchedResultsSection(name: run.name, indexTitle: indexTitle(for: run.name),
                                         members: all[start..<(start + run.count)])
        }
    }

    /// The capitalized first letter of a section name (`nil` for an empty name).
    static func defaultIndexTitle(for name: String) -> String? {
        name.first.map { String($0).uppercased() }
    }

    /// The section index title: the delegate's, else the owner's `sectionIndexTitle(forSectionName:)`.
    func indexTitle(for name: String) -> String? {
        if let delegate, let front = callbackFront {
            delegateLacksMethod = false
            let title = delegate.controller(front, sectionIndexTitleForSectionName: name)
            if !delegateLacksMethod { return title }
        }
        return owner?.sectionIndexTitle(forSectionName: name) ?? Self.defaultIndexTitle(for: name)
    }

    func sectionIndexTitles() -> [String] {
        var titles: [String] = []
        for run in sections {
            if let title = indexTitle(for: run.name), !titles.contains(title) { titles.append(title) }
        }
        return titles
    }

    func section(forIndexTitle title: String, at sectionIndex: Int) -> Int {
        if let found = sections.enumerated().first(where: { indexTitle(for: $0.element.name) == title }) { return found.offset }
        return min(max(sectionIndex, 0), max(sections.count - 1, 0))
    }

    // MARK: - Listening

    /// Adds an observer of every change batch; answers its token.
    func addListener(_ listener: @escaping (FetchedResultsChangeSet) -> Void) -> Int {
        nextListener += 1
        listeners[nextListener] = listener
        return nextListener
    }

    func removeListener(_ token: Int) {
        listeners[token] = nil
    }

    /// Whether anyone wants change batches (Apple tracks only for a delegate).
    var isTracking: Bool { delegate != nil || !listeners.isEmpty }

    private func startTracking() {
        guard observer == nil, let context else { return }
        observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { [weak self] note in
            self?.contextDidChange(note)
        }
        mergeObserver = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: context, queue: nil
        ) { [weak self] note in
            self?.contextDidMerge(note)
        }
    }

    func stopTracking() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        if let mergeObserver { NotificationCenter.default.removeObserver(mergeObserver) }
        observer = nil
        mergeObserver = nil
    }

    /// Marks the results changed (fronts drop their typed copies).
    func bumpVersion() { version &+= 1 }
}
