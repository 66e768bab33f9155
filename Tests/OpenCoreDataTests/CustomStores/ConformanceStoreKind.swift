import Foundation
@testable import OpenCoreData

/// The stores the store conformance suite runs on: the built-in ones (`StoreKind`) and the
/// example custom stores. Kept apart from `StoreKind`, whose cases other suites (predicate
/// fuzzing, benchmarks of behaviour) run on too.
enum ConformanceStoreKind: String, CaseIterable, Sendable {
    case inMemory
    case sqlite
    case jsonIncremental

    /// A private-queue context on a new, empty store of this kind.
    func context(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        switch self {
        case .inMemory: return try StoreKind.inMemory.context(model)
        case .sqlite: return try StoreKind.sqlite.context(model)
        case .jsonIncremental: return try Self.jsonContext(model, directory: Self.newDirectory())
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
}
