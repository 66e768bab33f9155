// Background work with perform, performAndWait, performBackgroundTask and async/await.
import Foundation
import OpenCoreData

final class Importer {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    func importTitles(_ titles: [String], completion: @escaping @Sendable (Error?) -> Void) {
        container.performBackgroundTask { context in
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            for title in titles {
                let item = Item(context: context)
                item.title = title
                item.timestamp = Date()
            }
            do {
                try context.save()
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }

    func importAsync(_ titles: [String]) async throws -> Int {
        try await container.performBackgroundTask { context in
            for title in titles {
                let item = Item(context: context)
                item.title = title
            }
            try context.save()
            return titles.count
        }
    }

    func countOnBackgroundContext() async throws -> Int {
        let context = container.newBackgroundContext()
        return try await context.perform {
            try context.count(for: Item.fetchRequest())
        }
    }

    func titlesOnBackgroundContext() async throws -> [String] {
        let context = container.newBackgroundContext()
        return try await context.perform(schedule: .enqueued) {
            let items = try context.fetch(Item.fetchRequest())
            return items.compactMap(\.title)
        }
    }

    /// Apple's `perform` returns whatever the block returns, managed objects included.
    func firstItem(in context: NSManagedObjectContext) async throws -> Item? {
        try await context.perform {
            try context.fetch(Item.fetchRequest()).first
        }
    }

    func countAndWait() -> Int {
        let context = container.viewContext
        var count = 0
        context.performAndWait {
            count = (try? context.count(for: Item.fetchRequest())) ?? 0
        }
        return count
    }

    func titlesAndWait() throws -> [String] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            try context.fetch(Item.fetchRequest()).compactMap(\.title)
        }
    }

    func touchAll(in context: NSManagedObjectContext) {
        context.perform {
            let items = (try? context.fetch(Item.fetchRequest())) ?? []
            for item in items { item.timestamp = Date() }
            try? context.save()
        }
    }

    func asynchronousFetch(in context: NSManagedObjectContext, done: @escaping @Sendable (Int) -> Void) throws {
        let request = Item.fetchRequest()
        let asyncRequest = NSAsynchronousFetchRequest(fetchRequest: request) { result in
            done(result.finalResult?.count ?? 0)
        }
        let result = try context.execute(asyncRequest) as? NSAsynchronousFetchResult<Item>
        _ = result?.progress
    }

    func assignToFirstStore(_ item: Item) {
        guard let store = container.persistentStoreCoordinator.persistentStores.first else { return }
        item.managedObjectContext?.assign(item, to: store)
    }
}

@MainActor
final class ItemListViewModel {
    private(set) var items: [Item] = []
    let context: NSManagedObjectContext

    init(context: NSManagedObjectContext) {
        self.context = context
    }

    func reload() {
        let request = Item.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(keyPath: \Item.timestamp, ascending: false)]
        items = (try? context.fetch(request)) ?? []
    }

    func addItem() {
        let newItem = Item(context: context)
        newItem.timestamp = Date()
        save()
    }

    func deleteItems(offsets: [Int]) {
        offsets.map { items[$0] }.forEach(context.delete)
        save()
    }

    private func save() {
        do {
            try context.save()
        } catch {
            let nsError = error as NSError
            print("Unresolved error \(nsError), \(nsError.userInfo)")
        }
        reload()
    }
}
