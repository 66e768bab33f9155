import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Staged migration (`NSStagedMigrationManager`, iOS 17) on CoreDataPlus's Apple-written
/// `SampleModel3_V1.sqlite`: a custom stage from version 1 to 2 whose `didMigrateHandler`
/// makes a `Pet` for each user's `petName`, then a lightweight stage to version 3, which drops
/// `petName` (<https://developer.apple.com/documentation/coredata/staged-migrations>).
@Suite("Staged migration", .enabled(if: Fixtures.enabled, "needs ../shared/fixtures"))
struct StagedMigrationTests {
    static let checksums = (v1: "u970QgYhRHEJGIt0zQr1UhuZL2ZJ1KxBS+B7rkAx0ik=", v2: "rzn6eNBLyn8k3AoC3kH3yymPT0vSUPaVcgi0v2SuHS8=",
                            v3: "HFFd7j8Z9/s0tJ1vqPzVSPX/pNYEbNAlXayypitIFow=")

    static func bundle() throws -> URL {
        try Fixtures.store("CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd")
    }

    static func store() throws -> URL {
        try Fixtures.copy(Fixtures.store("CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite"))
    }

    /// Version 3, opened from the bundle so the lightweight stage's checksum resolves to it.
    static func currentModel() throws -> NSManagedObjectModel {
        let model = try NSManagedObjectModel.load(contentsOf: bundle().appendingPathComponent("SampleModel3_v3.mom"))
        model.versionBundleURL = try bundle()
        return model
    }

    static func stages(seen: UncheckedLog) throws -> NSStagedMigrationManager {
        let v1 = NSManagedObjectModelReference(fileURL: try bundle().appendingPathComponent("SampleModel3.mom"), versionChecksum: checksums.v1)
        let v2 = NSManagedObjectModelReference(fileURL: try bundle().appendingPathComponent("SampleModel3_v2.mom"), versionChecksum: checksums.v2)
        let custom = NSCustomMigrationStage(migratingFrom: v1, to: v2)
        custom.label = "pets"
        custom.willMigrateHandler = { manager, stage in
            let context = try #require(manager.container?.newBackgroundContext())
            seen.entries.append("will: entities \(manager.container?.managedObjectModel.entities.compactMap(\.name).sorted() ?? []) current \(stage.currentModel.versionChecksum == checksums.v1)")
            _ = context
        }
        custom.didMigrateHandler = { manager, _ in
            let container = try #require(manager.container)
            seen.entries.append("did: entities \(container.managedObjectModel.entities.compactMap(\.name).sorted())")
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for user in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User")) {
                    guard let name = user.value(forKey: "petName") as? String else { continue }
                    let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
                    pet.setValue(name, forKey: "name")
                    user.setValue(pet, forKey: "pet")
                }
                try context.save()
            }
        }
        return NSStagedMigrationManager([custom, NSLightweightMigrationStage([checksums.v3])])
    }

    @Test("The fixture models' version checksums are Apple's (VersionInfo.plist) and the store's")
    func checksumsMatch() throws {
        let recorded = try NSManagedObjectModel.checksumsForVersionedModel(at: Self.bundle())
        #expect(recorded == ["SampleModel3": Self.checksums.v1, "SampleModel3_v2": Self.checksums.v2, "SampleModel3_v3": Self.checksums.v3])
        for (name, checksum) in [("SampleModel3", Self.checksums.v1), ("SampleModel3_v2", Self.checksums.v2), ("SampleModel3_v3", Self.checksums.v3)] {
            #expect(try NSManagedObjectModel.load(contentsOf: Self.bundle().appendingPathComponent("\(name).mom")).versionChecksum == checksum)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: Self.store())
        #expect(metadata[NSStoreModelVersionChecksumKey] as? String == Self.checksums.v1)
    }

    @Test("A custom stage then a lightweight stage: 12 users each get a Pet from their petName, and petName's column is gone")
    func customThenLightweight() throws {
        let url = try Self.store()
        let seen = UncheckedLog()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.currentModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: try Self.stages(seen: seen)])
        #expect(seen.entries == ["will: entities [\"User\"] current true", "did: entities [\"Pet\", \"User\"]"],
                "willMigrate sees the old model, didMigrate the new one")
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let users = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User"))
            #expect(users.count == 12)
            #expect(users.allSatisfy { ($0.value(forKey: "pet") as? NSManagedObject)?.value(forKey: "name") != nil })
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Pet")) == 12)
        }
        let queue = try DatabaseQueue(path: url.path)
        let columns = try queue.read { db in try db.columns(in: "ZUSER").map(\.name) }
        try queue.close()
        #expect(!columns.contains("ZPETNAME"))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(metadata[NSStoreModelVersionChecksumKey] as? String == Self.checksums.v3)
    }

    @Test("Two stages naming the same model version are refused with 134110 and the store is not changed")
    func duplicateVersionRefused() throws {
        let url = try Self.store()
        let before = try Data(contentsOf: url)
        let manager = NSStagedMigrationManager([NSLightweightMigrationStage([Self.checksums.v1, Self.checksums.v2]),
                                                NSLightweightMigrationStage([Self.checksums.v3, Self.checksums.v2])])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.currentModel())
        do {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
            Issue.record("a version named twice must be refused")
        } catch let error as NSError {
            #expect(error.code == NSMigrationError)
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("A store whose version no stage names is refused with 134110 naming its checksum")
    func unknownStoreVersion() throws {
        let url = try Self.store()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.currentModel())
        let manager = NSStagedMigrationManager([NSLightweightMigrationStage([Self.checksums.v2, Self.checksums.v3])])
        do {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
            Issue.record("a store outside the stages must be refused")
        } catch let error as NSError {
            #expect(error.code == NSMigrationError && error.localizedDescription.contains(Self.checksums.v1))
        }
    }

    @Test("Lightweight stages alone migrate through every version in order")
    func lightweightOnly() throws {
        let url = try Self.store()
        let manager = NSStagedMigrationManager([NSLightweightMigrationStage([Self.checksums.v1, Self.checksums.v2, Self.checksums.v3])])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.currentModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "User")) } == 12)
    }
}

/// A log the handlers append to (they run synchronously inside addPersistentStore).
final class UncheckedLog: @unchecked Sendable {
    // @unchecked: written and read on the test's thread only; the handlers run synchronously.
    var entries: [String] = []
}
