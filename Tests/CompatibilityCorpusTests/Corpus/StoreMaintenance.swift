// Store housekeeping as apps write it: a stack on an explicit store description, batch updates
// and inserts, typed store APIs, URI round trips, and queries with the usual predicate shapes.
import Foundation
import OpenCoreData

enum StoreMaintenance {
    /// A container on an explicit SQLite store description, loaded synchronously.
    static func makeContainer(model: NSManagedObjectModel, at url: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Corpus", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = NSSQLiteStoreType
        description.shouldAddStoreAsynchronously = false
        description.shouldMigrateStoreAutomatically = true
        description.shouldInferMappingModelAutomatically = true
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        container.viewContext.name = "viewContext"
        container.viewContext.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        container.viewContext.shouldDeleteInaccessibleFaults = true
        return container
    }

    /// Inserts items with a batch insert request, one dictionary per item.
    static func batchInsert(titles: [String], into context: NSManagedObjectContext) throws -> Bool {
        let objects: [[String: Any]] = titles.enumerated().map { ["title": $1, "priority": Int16($0)] }
        let request = NSBatchInsertRequest(entity: Item.entity(), objects: objects)
        request.resultType = .statusOnly
        let result = try context.execute(request) as? NSBatchInsertResult
        return result?.result as? Bool ?? false
    }

    /// Inserts items one handler call at a time.
    static func batchInsert(count: Int, into context: NSManagedObjectContext) throws -> [NSManagedObjectID] {
        var index = 0
        let request = NSBatchInsertRequest(entityName: "Item", managedObjectHandler: { object in
            guard index < count else { return true }
            let item = object as! Item
            item.title = "generated \(index)"
            item.priority = 9
            index += 1
            return false
        })
        request.resultType = .objectIDs
        let result = try context.execute(request) as? NSBatchInsertResult
        return result?.result as? [NSManagedObjectID] ?? []
    }

    /// Raises the priority of matching items in the store and refreshes them in the view context.
    static func bumpPriority(matching text: String, container: NSPersistentContainer) throws -> Int {
        let request = NSBatchUpdateRequest(entityName: "Item")
        request.predicate = NSPredicate(format: "title CONTAINS[cd] %@", text)
        request.propertiesToUpdate = ["priority": NSExpression(forConstantValue: 7)]
        request.resultType = .updatedObjectIDsResultType
        let result = try container.viewContext.execute(request) as? NSBatchUpdateResult
        let ids = result?.result as? [NSManagedObjectID] ?? []
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [container.viewContext])
        return ids.count
    }

    /// Items whose titles match any of the words, newest first, using the usual predicate shapes.
    static func search(_ words: [String], before date: Date, in context: NSManagedObjectContext) throws -> [Item] {
        let request: NSFetchRequest<Item> = Item.fetchRequest()
        let matches = words.map { NSPredicate(format: "title BEGINSWITH[c] %@", $0) }
        request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSCompoundPredicate(orPredicateWithSubpredicates: matches),
            NSPredicate(format: "timestamp == nil OR timestamp < %@", date as NSDate),
            NSPredicate(format: "%K >= %d", #"priority"#, 0),
        ])
        request.sortDescriptors = [NSSortDescriptor(keyPath: \Item.priority, ascending: false),
                                   NSSortDescriptor(key: "title", ascending: true)]
        request.fetchBatchSize = 20
        request.returnsObjectsAsFaults = false
        return try context.fetch(request)
    }

    /// The object a URI names, as apps restore selection state.
    static func item(forURI uri: URL, in container: NSPersistentContainer) -> Item? {
        guard let id = container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri) else { return nil }
        return try? container.viewContext.existingObject(with: id) as? Item
    }

    /// Counts items per priority with a grouped dictionary fetch.
    static func countsByPriority(in context: NSManagedObjectContext) throws -> [Int16: Int] {
        let request = NSFetchRequest<NSDictionary>(entityName: "Item")
        let count = NSExpressionDescription()
        count.name = "count"
        count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "title")])
        count.expressionResultType = .integer64AttributeType
        request.propertiesToFetch = ["priority", count]
        request.propertiesToGroupBy = ["priority"]
        request.resultType = .dictionaryResultType
        var counts: [Int16: Int] = [:]
        for row in try context.fetch(request) {
            if let priority = row["priority"] as? Int16, let value = row["count"] as? Int { counts[priority] = value }
        }
        return counts
    }

    /// Removes the store's files, as a "reset" button does.
    static func destroyStore(of container: NSPersistentContainer) throws {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores {
            guard let url = store.url else { continue }
            try coordinator.destroyPersistentStore(at: url, type: .sqlite, options: nil)
        }
    }
}
