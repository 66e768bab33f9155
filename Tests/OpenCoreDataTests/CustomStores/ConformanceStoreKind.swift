import Foundation
@testable import OpenCoreData

/// The stores the store conformance suite runs on: the built-in ones (`StoreKind`) and the
/// example custom stores. Kept apart from `StoreKind`, whose cases other suites (predicate
/// fuzzing, benchmarks of behaviour) run on too.
enum ConformanceStoreKind: String, CaseIterable, Sendable {
    case inMemory
    case sqlite
    case jsonIncremental
    case jsonAtomic

    /// A private-queue context on a new, empty store of this kind.
    func context(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        switch self {
        case .inMemory: return try StoreKind.inMemory.context(model)
        case .sqlite: return try StoreKind.sqlite.context(model)
        case .jsonIncremental: return try Self.jsonContext(model, directory: Self.newDirectory())
        case .jsonAtomic: return try Self.atomicContext(model, file: Self.newAtomicFile())
        }
    }

    /// Two contexts that see the same rows; for the JSON store, two coordinators on one directory.
    func contextPair(_ model: NSManagedObjectModel) throws -> (NSManagedObjectContext, NSManagedObjectContext) {
        switch self {
        case .inMemory: return try StoreKind.inMemory.contextPair(model)
        case .sqlite: return try StoreKind.sqlite.contextPair(model)
        case .jsonIncremental:
            let directory = Self.newDirectory()
            return (try Self.jsonContext(model, directory: directory), try Self.jsonContext(model, directory: directory))
        case .jsonAtomic:
            // An atomic store reads its file once, when added: both contexts share one coordinator.
            let first = try Self.atomicContext(model, file: Self.newAtomicFile())
            let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            second.persistentStoreCoordinator = first.persistentStoreCoordinator
            return (first, second)
        }
    }

    /// A new directory for a JSON store, removed with the test process's folder.
    static func newDirectory() -> URL {
        TestStoreFiles.root.appendingPathComponent("json-\(UUID().uuidString)", isDirectory: true)
    }

    /// A context on a new coordinator with the JSON directory store at `directory`.
    static func jsonContext(_ model: NSManagedObjectModel, directory: URL) throws -> NSManagedObjectContext {
        JSONDirectoryStore.register()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: JSONDirectoryStore.storeType, configurationName: nil, at: directory)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A new file URL for a JSON atomic store (the file is made by the first save).
    static func newAtomicFile() -> URL {
        TestStoreFiles.root.appendingPathComponent("atomic-\(UUID().uuidString).json")
    }

    /// A context on a new coordinator with the JSON atomic store at `file`.
    static func atomicContext(_ model: NSManagedObjectModel, file: URL) throws -> NSManagedObjectContext {
        JSONFileAtomicStore.register()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: JSONFileAtomicStore.storeType, configurationName: nil, at: file)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
