import Foundation
@testable import OpenCoreData

/// The store types the conformance suite runs on.
enum StoreKind: String, CaseIterable, Sendable {
    case inMemory
    case sqlite

    /// A private-queue context on a new, empty store of this kind.
    func context(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        switch self {
        case .inMemory: return try TestModels.inMemoryContext(model)
        case .sqlite: return try TestModels.sqliteContext(model)
        }
    }

    /// Two contexts that see the same rows: on SQLite, through two coordinators on one file;
    /// in memory, through one coordinator.
    func contextPair(_ model: NSManagedObjectModel) throws -> (NSManagedObjectContext, NSManagedObjectContext) {
        switch self {
        case .inMemory:
            let first = try TestModels.inMemoryContext(model)
            let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            second.persistentStoreCoordinator = first.persistentStoreCoordinator
            return (first, second)
        case .sqlite:
            let url = TestStoreFiles.newStoreURL()
            let first = try TestModels.sqliteContext(model, url: url)
            let second = try TestModels.sqliteContext(model, url: url)
            return (first, second)
        }
    }
}

