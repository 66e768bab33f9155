import Foundation
import Synchronization

/// The Core Data stack in one object: model, coordinator, stores and a main-queue context.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentcontainer>.
///
/// `@unchecked Sendable`: `persistentStoreDescriptions` is set up before `loadPersistentStores`
/// on one thread (as Apple documents); `viewContext` is created once under `lock`.
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    /// The container's name; also the default store file name.
    public let name: String
    /// The model.
    public let managedObjectModel: NSManagedObjectModel
    /// The coordinator.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// The stores to load; one SQLite store at `defaultDirectoryURL()/<name>.sqlite` by default.
    open var persistentStoreDescriptions: [NSPersistentStoreDescription]
    private let lock = Mutex<NSManagedObjectContext?>(nil)

    /// Creates a container with a model.
    public required init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
        self.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        super.init()
    }

    /// Where stores go by default: `$XDG_DATA_HOME` (or `~/.local/share`) on Linux, Application Support elsewhere.
    open class func defaultDirectoryURL() -> URL {
        #if os(Linux) || os(Android) || os(FreeBSD)
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty, xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        #else
        return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        #endif
    }

    /// Loads each described store, calling the handler once per store.
    open func loadPersistentStores(completionHandler block: (NSPersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            if let url = description.url, description.type == NSSQLiteStoreType, url.path != "/dev/null" {
                try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: block)
        }
    }

    /// The main-queue context, merging saves of the container's other contexts automatically.
    open var viewContext: NSManagedObjectContext {
        lock.withLock { context in
            if let context { return context }
            let created = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            created.persistentStoreCoordinator = persistentStoreCoordinator
            created.name = "viewContext"
            context = created
            return created
        }
    }

    /// A new private-queue context on the container's coordinator.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs a block on a new background context.
    open func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs a block on a new background context and returns its value.
    ///
    /// Apple's signature: the block is not `@Sendable` and `T` need not be `Sendable`. The caller
    /// is suspended while the block runs on the context's queue, so what it captures is not used
    /// by both at once from this call; it must not be shared with other tasks meanwhile.
    open func performBackgroundTask<T, E: Error>(_ block: @escaping (NSManagedObjectContext) throws(E) -> T) async throws(E) -> T {
        let context = newBackgroundContext()
        // Unchecked: see above; the box only carries the block to the context's queue.
        let box = UncheckedBox(block)
        return try await context.perform(schedule: .enqueued) { () throws(E) -> T in try box.value(context) }
    }
}
