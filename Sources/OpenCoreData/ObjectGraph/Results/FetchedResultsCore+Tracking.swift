import Foundation

// MARK: - Candidates

/// An object a change batch may have moved into, out of, or within the results.
struct FetchedCandidate {
    let object: NSManagedObject
    /// Where it was placed, if it was a result.
    let old: FetchedKeys?
    /// Where it goes now, if it is a result.
    let new: FetchedKeys?
    /// Whether its state changed (so an unmoved result is reported as updated).
    let updated: Bool
}

/// One candidate's fate in the batch, with its places before and after.
private struct FetchedRecord {
    let candidate: FetchedCandidate
    var oldIndex: Int?
    var newIndex: Int?
    /// Its index path before the batch, and after.
    var oldPath: IndexPath?
    var newPath: IndexPath?
    /// Its neighbours before the batch (for telling a real move from one in place).
    var oldNeighbours: (AnyObject?, AnyObject?) = (nil, nil)
    /// Whether it stays a result with keys that place it differently (set when both are known).
    var keysChanged = false
}

/// Row index → index path over an array of section runs, in O(log sections) (the refetch path's
/// old and new states).
private struct SectionStarts {
    let starts: [Int]

    init(_ runs: [FetchedSectionRun]) {
        var starts: [Int] = []
        starts.reserveCapacity(runs.count)
        var next = 0
        for run in runs {
            starts.append(next)
            next += run.count
        }
        self.starts = starts
    }

    func indexPath(forRow row: Int) -> IndexPath {
        // The last section whose start is at or before `row`.
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= row { low = middle + 1 } else { high = middle }
        }
        let section = max(low - 1, 0)
        return IndexPath(item: row - (starts.isEmpty ? 0 : starts[section]), section: section)
    }
}

extension FetchedResultsCore {
    // MARK: - Receiving changes

    /// Places the objects one `ObjectsDidChange` names and reports what moved.
    func contextDidChange(_ note: Notification) {
        guard hasFetched, tracksObjects, isTracking, let request else { return }
        let info = note.userInfo ?? [:]
        // Apple: after reset() the results are stale until the next performFetch().
        if info[NSInvalidatedAllObjectsKey] != nil { return }

        var touched: [NSManagedObject] = []
        var state: [ObjectIdentifier: (updated: Bool, gone: Bool)] = [:]
        func add(_ object: NSManagedObject, updated: Bool, gone: Bool) {
            let key = ObjectIdentifier(object)
            if let known = state[key] {
                state[key] = (known.updated || updated, known.gone || gone)
            } else {
                state[key] = (updated, gone)
                touched.append(object)
            }
        }
        let inserted = Self.objects(info[NSInsertedObjectsKey])
        let updated = Self.objects(info[NSUpdatedObjectsKey]) + Self.objects(info[NSRefreshedObjectsKey])
        let gone = Self.objects(info[NSDeletedObjectsKey]) + Self.objects(info[NSInvalidatedObjectsKey])
        for object in inserted { add(object, updated: false, gone: false) }
        for object in updated { add(object, updated: true, gone: false) }
        for object in gone { add(object, updated: false, gone: true) }
        if !relatedPaths.isEmpty {
            for object in inserted + updated + gone {
                guard let sources = resultsReading(object) else {
                    // A chain without an inverse: every result may read the object.
                    for row in rows { if let member = row.object as? NSManagedObject { add(member, updated: true, gone: false) } }
                    continue
                }
                for source in sources { add(source, updated: true, gone: false) }
            }
        }

        var candidates: [FetchedCandidate] = []
        for object in touched {
            let key = ObjectIdentifier(object)
            let flags = state[key] ?? (false, false)
            let old = members[key]
            let isResult = !flags.gone && isResult(object, request: request)
            guard old != nil || isResult else { continue }
            candidates.append(FetchedCandidate(object: object, old: old, new: isResult ? keys(of: object) : nil,
                                               updated: flags.updated))
        }
        guard !candidates.isEmpty else { return }

        let limited = request.fetchLimit > 0 || request.fetchOffset > 0
        let changes = (limited ? nil : placeIncrementally(candidates)) ?? refetch(candidates)
        guard !changes.isEmpty else { return }
        bumpVersion()
        deliver(changes)
    }

    /// A merge updated rows of objects this context did not hold, so `ObjectsDidChange` could
    /// not list them: one of them may now match. Each of the results' entity is made (a fault
    /// that reads the merged row) and placed like an updated object, as Apple's controller
    /// places such objects since iOS 10.
    func contextDidMerge(_ note: Notification) {
        guard hasFetched, tracksObjects, isTracking, let context, let entity,
              let updated = note.userInfo?[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID> else { return }
        let refreshed = note.userInfo?[NSRefreshedObjectIDsKey] as? Set<NSManagedObjectID> ?? []
        var objects = Set<NSManagedObject>()
        for id in updated where !refreshed.contains(id) && id.entity.isKindOf(entity: entity) {
            let object = context.object(with: id)
            if members[ObjectIdentifier(object)] == nil { objects.insert(object) }
        }
        guard !objects.isEmpty else { return }
        contextDidChange(Notification(name: .NSManagedObjectContextObjectsDidChange, object: context,
                                      userInfo: [NSUpdatedObjectsKey: objects]))
    }

    /// The managed objects in a notification's value (a set, an array, or an `NSSet`).
    private static func objects(_ value: Any?) -> [NSManagedObject] {
        guard let value else { return [] }
        if let set = value as? Set<NSManagedObject> { return Array(set) }
        if let array = value as? [NSManagedObject] { return array }
        return PredicateValue.elements(value)?.values.compactMap { $0 as? NSManagedObject } ?? []
    }

    /// Whether `object` belongs in the results now.
    private func isResult(_ object: NSManagedObject, request: NSFetchRequest<NSFetchRequestResult>) -> Bool {
        guard let context, object.managedObjectContext === context, !object.isDeleted, let entity else { return false }
        let kind = request.includesSubentities ? object.entity.isKindOf(entity: entity)
            : object.entity === entity || object.entity.name == entity.name
        guard kind else { return false }
        return request.predicate?.evaluate(with: object) ?? true
    }

    /// The objects of the results' entity that read `object` through a relationship chain, or
    /// `nil` when a chain has no inverse to follow back.
    private func resultsReading(_ object: NSManagedObject) -> [NSManagedObject]? {
        var found: [NSManagedObject] = []
        for chain in relatedPaths {
            for hop in chain.indices.reversed() {
                guard let destination = chain[hop].destinationEntity, object.entity.isKindOf(entity: destination) else { continue }
                var current = [object]
                for step in stride(from: hop, through: 0, by: -1) {
                    guard let inverse = chain[step].inverseRelationship else { return nil }
                    let name = inverse.name
                    var next: [NSManagedObject] = []
                    for item in current {
                        let value = item.value(forKey: name)
                        if let single = value as? NSManagedObject {
                            next.append(single)
                        } else if let many = PredicateValue.elements(value) {
                            next.append(contentsOf: many.values.compactMap { $0 as? NSManagedObject })
                        }
                    }
                    current = next
                }
                found.append(contentsOf: current)
            }
        }
        return found
    }

    // MARK: - Incremental placing

    /// Moves each candidate out of its old place and into its new one by binary search. Every
    /// step is O(log n) (the results and the sections are `ChunkedList`s): finding a candidate,
    /// its index path, its neighbours, removing and inserting it, and the section it joins or
    /// leaves. Answers `nil`, with the results untouched, when the batch would break the
    /// sections' contiguity (the refetch path then reports it).
    private func placeIncrementally(_ candidates: [FetchedCandidate]) -> FetchedResultsChangeSet? {
        let sectioned = sectionNameKeyPath != nil
        var records: [FetchedRecord] = []
        records.reserveCapacity(candidates.count)
        // The section names the batch touches: whether each had a section before it, and the
        // index of the sections candidates leave.
        var existed: [String: Bool] = [:]
        var leftSections: [String: Int] = [:]
        for candidate in candidates {
            var record = FetchedRecord(candidate: candidate)
            if let old = candidate.old {
                guard let index = index(of: candidate.object, keys: old) else { return nil }
                let path = indexPath(forRow: index)
                record.oldIndex = index
                record.oldPath = path
                record.oldNeighbours = (index > 0 ? rows[index - 1].object : nil,
                                        index + 1 < rows.count ? rows[index + 1].object : nil)
                if let new = candidate.new { record.keysChanged = !samePlace(old, new) }
                leftSections[old.section] = path.section
            }
            for name in [candidate.old?.section, candidate.new?.section] {
                if let name, existed[name] == nil { existed[name] = hasSection(named: name) }
            }
            records.append(record)
        }

        var log: [FetchedSectionEdit] = []
        // Out: every result that leaves or moves, from the back so indices stay valid.
        let leaving = records.indices.filter { records[$0].oldIndex != nil && (records[$0].candidate.new == nil || records[$0].keysChanged) }
            .sorted { records[$0].oldIndex! > records[$1].oldIndex! }
        var removed: [FetchedRow] = []
        for position in leaving {
            let index = records[position].oldIndex!
            let section = section(containing: index).section
            removed.append(rows.remove(at: index))
            countSection(at: section, by: -1, log: &log)
            if sectioned && sections[section].count == 0 { removeSection(at: section, log: &log) }
        }
        // In: every result that enters or moves.
        var valid = true
        let entering = records.indices.filter { records[$0].candidate.new != nil && (records[$0].oldIndex == nil || records[$0].keysChanged) }
        for position in entering {
            let candidate = records[position].candidate
            guard let keys = candidate.new else { continue }
            let index = searchIndex(candidate.object, keys)
            rows.insert(FetchedRow(object: candidate.object, keys: keys), at: index)
            if !placeInSection(row: index, name: keys.section, log: &log) { valid = false }
        }
        if valid && sectioned { valid = duplicatedSectionNames == 0 }
        guard valid else {
            // Put everything back as it was.
            for position in entering {
                if let keys = records[position].candidate.new, let index = index(of: records[position].candidate.object, keys: keys) {
                    rows.remove(at: index)
                }
            }
            for row in removed { rows.insert(row, at: searchIndex(row.object, row.keys)) }
            undoSectionEdits(log)
            return nil
        }

        // Commit the new keys.
        for record in records {
            let key = ObjectIdentifier(record.candidate.object)
            members[key] = record.candidate.new
            if let new = record.candidate.new, let old = record.candidate.old, !record.keysChanged,
               let index = index(of: record.candidate.object, keys: old) {
                rows[index].keys = new
            }
        }
        for position in records.indices {
            guard let new = records[position].candidate.new,
                  let index = index(of: records[position].candidate.object, keys: new) else { continue }
            records[position].newIndex = index
            records[position].newPath = indexPath(forRow: index)
        }

        // Sections, by name: those whose last result left, and those a result started.
        var sectionChanges: [FetchedSectionChange] = []
        if sectioned {
            for (name, index) in leftSections.filter({ !hasSection(named: $0.key) }).sorted(by: { $0.value > $1.value }) {
                sectionChanges.append(FetchedSectionChange(
                    info: FetchedResultsSection(name: name, indexTitle: indexTitle(for: name), members: []),
                    index: index, type: .delete))
            }
            var started: [String: Int] = [:]
            for record in records {
                guard let name = record.candidate.new?.section, existed[name] == false, started[name] == nil,
                      let section = record.newPath?.section else { continue }
                started[name] = section
            }
            for (name, index) in started.sorted(by: { $0.value < $1.value }) {
                let start = sections.weight(before: index)
                let members = rows.elements(in: start..<(start + sections[index].count))
                sectionChanges.append(FetchedSectionChange(
                    info: FetchedResultsSection(name: name, indexTitle: indexTitle(for: name), members: members[...]),
                    index: index, type: .insert))
            }
        }
        return changeSet(records, sections: sectionChanges, reload: false)
    }

    /// Adds the row just inserted at `row` to a section: its neighbour's if it has that name,
    /// else a new section between theirs. Answers false if it lands inside another section.
    private func placeInSection(row: Int, name: String, log: inout [FetchedSectionEdit]) -> Bool {
        guard sectionNameKeyPath != nil else {
            countSection(at: 0, by: 1, log: &log)
            return true
        }
        // Section indices over the runs as they were before this row went in (they cover every
        // row but this one).
        let previous = row > 0 ? section(containing: row - 1).section : nil
        let next = row + 1 < rows.count ? section(containing: row).section : nil
        if let previous, sections[previous].name == name {
            countSection(at: previous, by: 1, log: &log)
            return true
        }
        if let next, sections[next].name == name {
            countSection(at: next, by: 1, log: &log)
            return true
        }
        if let previous, let next, previous == next {
            countSection(at: previous, by: 1, log: &log)  // keeps the counts whole until the batch is undone
            return false
        }
        insertSection(FetchedSectionRun(name: name, count: 1), at: previous.map { $0 + 1 } ?? 0, log: &log)
        return true
    }

    // MARK: - Refetching

    /// Fetches the results again and reports the difference; used for `fetchLimit`/`fetchOffset`
    /// (an object leaving can pull in one that was beyond the limit) and for batches that break
    /// the sections' order. O(n).
    private func refetch(_ candidates: [FetchedCandidate]) -> FetchedResultsChangeSet {
        guard let fetch, let context else { return FetchedResultsChangeSet() }
        let fetched: (NSFetchRequest<NSFetchRequestResult>, [AnyObject])
        do {
            fetched = try fetch(context)
        } catch {
            // No error channel here: the context's next fetch or save reports it.
            context.deferReadFailure(error)
            return FetchedResultsChangeSet()
        }
        let results = fetched.1
        let oldRows = Array(rows), oldSections = Array(sections)
        var newRows = results.map { FetchedRow(object: $0, keys: keys(of: $0)) }
        newRows.sort { order($0, $1) == .orderedAscending }
        let newSections = (try? Self.sectionRuns(of: newRows, sectioned: sectionNameKeyPath != nil))
            ?? Self.looseRuns(of: newRows)
        let oldStarts = SectionStarts(oldSections), newStarts = SectionStarts(newSections)

        var oldIndex: [ObjectIdentifier: Int] = [:]
        for (index, row) in oldRows.enumerated() { oldIndex[ObjectIdentifier(row.object)] = index }
        var newIndex: [ObjectIdentifier: Int] = [:]
        for (index, row) in newRows.enumerated() { newIndex[ObjectIdentifier(row.object)] = index }
        var updated = Set<ObjectIdentifier>()
        for candidate in candidates where candidate.updated { updated.insert(ObjectIdentifier(candidate.object)) }

        func record(_ object: NSManagedObject, old: Int?, new: Int?, updated: Bool) -> FetchedRecord {
            var record = FetchedRecord(candidate: FetchedCandidate(
                object: object, old: old.map { oldRows[$0].keys }, new: new.map { newRows[$0].keys }, updated: updated))
            record.oldIndex = old
            record.newIndex = new
            record.oldPath = old.map(oldStarts.indexPath(forRow:))
            record.newPath = new.map(newStarts.indexPath(forRow:))
            if let old {
                record.oldNeighbours = (old > 0 ? oldRows[old - 1].object : nil,
                                        old + 1 < oldRows.count ? oldRows[old + 1].object : nil)
            }
            if let old = record.candidate.old, let new = record.candidate.new { record.keysChanged = !samePlace(old, new) }
            return record
        }

        var records: [FetchedRecord] = []
        let duplicated = Set(oldSections.map(\.name)).count != oldSections.count || Set(newSections.map(\.name)).count != newSections.count
        if duplicated {
            // Sections that cannot be told apart by name: report everything as gone and back.
            for (index, row) in oldRows.enumerated() {
                if let object = row.object as? NSManagedObject { records.append(record(object, old: index, new: nil, updated: false)) }
            }
            for (index, row) in newRows.enumerated() {
                if let object = row.object as? NSManagedObject { records.append(record(object, old: nil, new: index, updated: false)) }
            }
        } else {
            for (index, row) in oldRows.enumerated() {
                guard let object = row.object as? NSManagedObject else { continue }
                let key = ObjectIdentifier(object)
                let after = newIndex[key]
                if let after, samePlace(row.keys, newRows[after].keys), !updated.contains(key) { continue }
                records.append(record(object, old: index, new: after, updated: updated.contains(key)))
            }
            for (index, row) in newRows.enumerated() where oldIndex[ObjectIdentifier(row.object)] == nil {
                if let object = row.object as? NSManagedObject { records.append(record(object, old: nil, new: index, updated: false)) }
            }
        }

        // Sections, by name (with `duplicated`, every old one goes and every new one comes).
        var sectionChanges: [FetchedSectionChange] = []
        if sectionNameKeyPath != nil {
            let oldNames = Set(oldSections.map(\.name)), newNames = Set(newSections.map(\.name))
            for (index, run) in oldSections.enumerated().reversed() where duplicated || !newNames.contains(run.name) {
                sectionChanges.append(FetchedSectionChange(
                    info: FetchedResultsSection(name: run.name, indexTitle: indexTitle(for: run.name), members: []),
                    index: index, type: .delete))
            }
            for (index, run) in newSections.enumerated() where duplicated || !oldNames.contains(run.name) {
                let start = newStarts.starts[index]
                sectionChanges.append(FetchedSectionChange(
                    info: FetchedResultsSection(name: run.name, indexTitle: indexTitle(for: run.name),
                                                members: newRows[start..<(start + run.count)]),
                    index: index, type: .insert))
            }
        }
        replace(rows: newRows, sections: newSections)
        return changeSet(records, sections: sectionChanges, reload: duplicated)
    }

    // MARK: - Reporting

    /// Turns the records of a batch into the reported changes, the results being in their new state.
    ///
    /// A result whose keys changed is a move unless it kept both neighbours and they did not move
    /// either: then its order against every other result is unchanged and it is an update (no
    /// "move from X to X"). With `reload` (every old section deleted and every new one inserted)
    /// nothing is in place.
    private func changeSet(_ records: [FetchedRecord], sections sectionChanges: [FetchedSectionChange],
                           reload: Bool) -> FetchedResultsChangeSet {
        var changes = FetchedResultsChangeSet()
        changes.sections = sectionChanges

        var moved = Set<ObjectIdentifier>()
        for record in records where record.oldIndex == nil || record.newIndex == nil || record.keysChanged {
            moved.insert(ObjectIdentifier(record.candidate.object))
        }
        func kept(_ neighbour: AnyObject?, _ other: AnyObject?) -> Bool {
            guard let neighbour else { return other == nil }
            return neighbour === other && !moved.contains(ObjectIdentifier(neighbour))
        }

        var deletes: [(Int, FetchedObjectChange)] = [], inserts: [(Int, FetchedObjectChange)] = []
        var moves: [FetchedObjectChange] = [], updates: [FetchedObjectChange] = []
        var removals: [CollectionDifference<NSManagedObjectID>.Change] = []
        var insertions: [CollectionDifference<NSManagedObjectID>.Change] = []
        for record in records {
            let object = record.candidate.object
            let oldPath = record.oldPath, newPath = record.newPath
            switch (record.oldIndex, record.newIndex) {
            case (let old?, nil):
                deletes.append((old, FetchedObjectChange(object: object, type: .delete, indexPath: oldPath, newIndexPath: nil)))
                removals.append(.remove(offset: old, element: object.objectID, associatedWith: nil))
            case (nil, let new?):
                inserts.append((new, FetchedObjectChange(object: object, type: .insert, indexPath: nil, newIndexPath: newPath)))
                insertions.append(.insert(offset: new, element: object.objectID, associatedWith: nil))
            case (let old?, let new?):
                let inPlace = !record.keysChanged || (!reload
                    && record.candidate.old?.section == record.candidate.new?.section
                    && kept(record.oldNeighbours.0, new > 0 ? rows[new - 1].object : nil)
                    && kept(record.oldNeighbours.1, new + 1 < rows.count ? rows[new + 1].object : nil))
                if inPlace {
                    if record.candidate.updated || record.keysChanged {
                        updates.append(FetchedObjectChange(object: object, type: .update, indexPath: oldPath, newIndexPath: newPath))
                    }
                } else {
                    moves.append(FetchedObjectChange(object: object, type: .move, indexPath: oldPath, newIndexPath: newPath))
                    removals.append(.remove(offset: old, element: object.objectID, associatedWith: new))
                    insertions.append(.insert(offset: new, element: object.objectID, associatedWith: old))
                }
            case (nil, nil):
                continue
            }
        }
        changes.objects = deletes.sorted { $0.0 > $1.0 }.map(\.1) + inserts.sorted { $0.0 < $1.0 }.map(\.1) + moves + updates
        changes.difference = CollectionDifference(removals + insertions) ?? CollectionDifference([])!
        return changes
    }
}
