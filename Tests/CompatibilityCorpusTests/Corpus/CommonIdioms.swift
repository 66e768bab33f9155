// Idioms that Core Data apps write around their model: Xcode-style to-many accessors, sorted
// arrays of to-many sets, JSON import through Codable, batch deletes merged into the view
// context, persistent history, and async work on a background context.
import Foundation
import OpenCoreData

// MARK: - Generated accessors, as Xcode writes them (without @objc on Linux)

extension Folder {
    public func insertIntoItems(_ value: Item, at idx: Int) {
        self.mutableOrderedSetValue(forKey: "items").insert(value, at: idx)
    }

    public func removeFromItems(at idx: Int) {
        self.mutableOrderedSetValue(forKey: "items").removeObject(at: idx)
    }

    public func addToItems(_ value: Item) {
        self.mutableOrderedSetValue(forKey: "items").add(value)
    }

    public func removeFromItems(_ value: Item) {
        self.mutableOrderedSetValue(forKey: "items").remove(value)
    }

    /// The titles in the folder's order, read through the proxy as views often do.
    public var itemTitles: [String] {
        let items = self.mutableOrderedSetValue(forKey: "items")
        var titles: [String] = []
        for case let item as Item in items {
            titles.append(item.title ?? "")
        }
        return titles
    }

    public var firstItem: Item? {
        mutableOrderedSetValue(forKey: "items").firstObject as? Item
    }
}

extension Tag {
    public func addToItems(_ value: Item) {
        self.mutableSetValue(forKey: "items").add(value)
    }

    public func removeFromItems(_ values: NSSet) {
        self.mutableSetValue(forKey: "items").minus(values as! Set<AnyHashable>)
    }

    /// The tag's items sorted by title, the usual NSSet-to-array step.
    public var sortedItems: [Item] {
        let sort = NSSortDescriptor(key: "title", ascending: true)
        return items?.sortedArray(using: [sort]) as? [Item] ?? []
    }

    public var itemsByPriority: [Item] {
        let set = items as? Set<Item> ?? []
        return set.sorted { $0.priority > $1.priority }
    }
}

// MARK: - JSON import

extension CodingUserInfoKey {
    static let managedObjectContext = CodingUserInfoKey(rawValue: "managedObjectContext")!
}

enum DecoderConfigurationError: Error {
    case missingManagedObjectContext
}

/// The shape of an item in an imported JSON file.
struct ItemPayload: Codable {
    var title: String
    var priority: Int16
    var tags: [String]
}

enum ItemImporter {
    /// Decodes payloads and inserts one item per payload, reusing tags by name.
    static func importItems(from data: Data, into context: NSManagedObjectContext) throws -> [Item] {
        let payloads = try JSONDecoder().decode([ItemPayload].self, from: data)
        var tagsByName: [String: Tag] = [:]
        let existing = try context.fetch(Tag.fetchRequest())
        for tag in existing { if let name = tag.name { tagsByName[name] = tag } }
        var items: [Item] = []
        for payload in payloads {
            let item = Item(context: context)
            item.title = payload.title
            item.priority = payload.priority
            item.uuid = UUID()
            for name in payload.tags {
                let tag = tagsByName[name] ?? {
                    let tag = Tag(context: context)
                    tag.name = name
                    tagsByName[name] = tag
                    return tag
                }()
                tag.addToItems(item)
            }
            items.append(item)
        }
        try context.save()
        return items
    }

    static func exportItems(_ items: [Item]) throws -> Data {
        let payloads = items.map { item in
            ItemPayload(title: item.title ?? "", priority: item.priority,
                        tags: (item.tags?.allObjects as? [Tag] ?? []).compactMap(\.name).sorted())
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(payloads)
    }
}

// MARK: - Batch delete merged into the view context

enum Cleanup {
    /// Deletes every item below a priority in the store and tells the view context.
    static func deleteLowPriority(below priority: Int16, container: NSPersistentContainer) throws -> Int {
        let fetchRequest: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: "Item")
        fetchRequest.predicate = NSPredicate(format: "priority < %d", priority)
        let deleteRequest = NSBatchDeleteRequest(fetchRequest: fetchRequest)
        deleteRequest.resultType = .resultTypeObjectIDs
        let context = container.newBackgroundContext()
        var deleted: [NSManagedObjectID] = []
        try context.performAndWait {
            let result = try context.execute(deleteRequest) as? NSBatchDeleteResult
            deleted = result?.result as? [NSManagedObjectID] ?? []
        }
        let changes: [AnyHashable: Any] = [NSDeletedObjectsKey: deleted]
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [container.viewContext])
        return deleted.count
    }

    /// Sums priorities in the store with an expression description.
    static func prioritySum(in context: NSManagedObjectContext) throws -> Int {
        let request = NSFetchRequest<NSDictionary>(entityName: "Item")
        request.resultType = .dictionaryResultType
        let sum = NSExpressionDescription()
        sum.name = "total"
        sum.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "priority")])
        sum.expressionResultType = .integer64AttributeType
        request.propertiesToFetch = [sum]
        let rows = try context.fetch(request)
        return (rows.first?["total"] as? NSNumber)?.intValue ?? 0
    }
}

// MARK: - Persistent history

final class HistoryProcessor {
    private var lastToken: NSPersistentHistoryToken?
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    /// Merges transactions written by other authors into the view context; answers how many.
    func processNewTransactions() throws -> Int {
        let context = container.newBackgroundContext()
        var transactions: [NSPersistentHistoryTransaction] = []
        let token = lastToken
        try context.performAndWait {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
            if let fetchRequest = NSPersistentHistoryTransaction.fetchRequest {
                fetchRequest.predicate = NSPredicate(format: "author != %@", "importer")
                request.fetchRequest = fetchRequest
            }
            let result = try context.execute(request) as? NSPersistentHistoryResult
            transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
        }
        let viewContext = container.viewContext
        viewContext.performAndWait {
            for transaction in transactions {
                viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            }
        }
        lastToken = transactions.last?.token ?? lastToken
        return transactions.count
    }
}

// MARK: - Async work

enum AsyncWork {
    /// Creates items on a background context with async perform and answers their IDs.
    static func createItems(_ titles: [String], container: NSPersistentContainer) async throws -> [NSManagedObjectID] {
        let context = container.newBackgroundContext()
        context.transactionAuthor = "importer"
        return try await context.perform {
            let items = titles.map { title -> Item in
                let item = Item(context: context)
                item.title = title
                return item
            }
            try context.obtainPermanentIDs(for: items)
            try context.save()
            return items.map(\.objectID)
        }
    }
}
