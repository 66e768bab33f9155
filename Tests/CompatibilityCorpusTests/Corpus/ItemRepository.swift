// A repository and a DAO with typed fetch requests, as app data layers write them.
// Like many Core Data files, it imports only the Core Data module (which re-exports Foundation):
// with `import Foundation` as well, `NSPredicate` in a type annotation is ambiguous on Linux
// (docs/Deviations.md).
import OpenCoreData

protocol ItemRepositoryProtocol {
    func allItems() throws -> [Item]
    func items(matching title: String) throws -> [Item]
    func add(title: String, tags: [String]) throws -> Item
    func delete(_ item: Item) throws
}

final class ItemRepository: ItemRepositoryProtocol {
    private let context: NSManagedObjectContext

    init(context: NSManagedObjectContext) {
        self.context = context
    }

    static let byTitle = NSSortDescriptor(keyPath: \Item.title, ascending: true)
    static let byPriority = NSSortDescriptor(key: "priority", ascending: false)

    func allItems() throws -> [Item] {
        let request = Item.fetchRequest()
        request.sortDescriptors = [Self.byPriority, Self.byTitle]
        request.returnsObjectsAsFaults = false
        return try context.fetch(request)
    }

    func items(matching title: String) throws -> [Item] {
        let request: NSFetchRequest<Item> = Item.fetchRequest()
        request.predicate = NSPredicate(format: "%K CONTAINS[cd] %@", "title", title)
        request.fetchLimit = 50
        return try context.fetch(request)
    }

    func count() throws -> Int {
        try context.count(for: Item.fetchRequest())
    }

    func add(title: String, tags: [String]) throws -> Item {
        let item = Item(context: context)
        item.title = title
        item.timestamp = Date()
        for name in tags {
            let tag = Tag(context: context)
            tag.name = name
            item.mutableSetValue(forKey: "tags").add(tag)
        }
        try context.save()
        return item
    }

    func delete(_ item: Item) throws {
        context.delete(item)
        try context.save()
    }

    func titles() throws -> [String] {
        let request = NSFetchRequest<NSDictionary>(entityName: "Item")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title"]
        return try context.fetch(request).compactMap { $0["title"] as? String }
    }

    func objectIDs() throws -> [NSManagedObjectID] {
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
        request.resultType = .managedObjectIDResultType
        return try context.fetch(request)
    }
}

/// A generic DAO over any entity class.
class DAO<Entity: NSManagedObject> {
    let context: NSManagedObjectContext

    init(context: NSManagedObjectContext) {
        self.context = context
    }

    func fetchAll(predicate: NSPredicate? = nil, sortDescriptors: [NSSortDescriptor]? = nil) throws -> [Entity] {
        let request = NSFetchRequest<Entity>(entityName: String(describing: Entity.self))
        request.predicate = predicate
        request.sortDescriptors = sortDescriptors
        return try context.fetch(request)
    }

    func first(where predicate: NSPredicate) throws -> Entity? {
        let request = NSFetchRequest<Entity>(entityName: Entity.entity().name ?? String(describing: Entity.self))
        request.predicate = predicate
        request.fetchLimit = 1
        return try context.fetch(request).first
    }

    func create() -> Entity {
        Entity(context: context)
    }

    func insertNew() -> Entity {
        NSEntityDescription.insertNewObject(forEntityName: String(describing: Entity.self), into: context) as! Entity
    }
}
