import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// What the wibosco example's `Post2ToPost3MigrationPolicy` does (described in the fixtures'
/// README): after the default destination post, one `Section` per post holding its content.
final class Post2ToPost3MigrationPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                             manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let post = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first else { return }
        let content = sInstance.value(forKey: "content") as? String ?? ""
        let section = NSEntityDescription.insertNewObject(forEntityName: "Section", into: manager.destinationContext)
        section.setValue(String(content.prefix(4)) + "...", forKey: "title")
        section.setValue(content, forKey: "body")
        section.setValue(0, forKey: "index")
        section.setValue(post, forKey: "post")
    }
}

/// What CoreDataPlus's `V2to3MakerPolicy` does (described in the research notes): each car's
/// `maker` string becomes a shared `Maker` object, the car's `createdBy`.
final class V2to3MakerPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                             manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let car = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
              let name = sInstance.value(forKey: "maker") as? String else { return }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Maker")
        request.predicate = NSPredicate(format: "name == %@", name)
        let maker = try manager.destinationContext.fetch(request).first
            ?? NSEntityDescription.insertNewObject(forEntityName: "Maker", into: manager.destinationContext)
        maker.setValue(name, forKey: "name")
        car.setValue(maker, forKey: "createdBy")
    }
}

/// Heavyweight migration through mapping models with `NSMigrationManager` and custom
/// `NSEntityMigrationPolicy` subclasses, on stores Apple's Core Data wrote
/// (<https://developer.apple.com/documentation/coredata/nsmigrationmanager>).
@Suite("Migration manager with Apple's stores", .enabled(if: Fixtures.enabled, "needs ../shared/fixtures"))
struct MigrationManagerFixtureTests {
    static func exampleModel(_ version: Int) throws -> NSManagedObjectModel {
        let bundle = try LightweightMigrationTests.exampleBundle()
        let name = version == 1 ? "CoreDataMigration_Example.xcdatamodel" : "CoreDataMigration_Example \(version).xcdatamodel"
        let model = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent(name))
        model.versionBundleURL = bundle
        return model
    }

    static func newURL() -> URL {
        TestStoreFiles.newStoreURL()
    }

    /// The example's V2→V3 mapping model, with its policy registered under its bare name (the
    /// mapping names it in the app's module, which does not exist here).
    static func mapping2to3() throws -> NSMappingModel {
        Post2ToPost3MigrationPolicy.register()
        return try NSMappingModel.load(from: MappingFixtures.url(MappingFixtures.migration2to3),
                                       sourceModel: exampleModel(2), destinationModel: exampleModel(3))
    }

    static func posts(_ url: URL, model: NSManagedObjectModel) throws -> (NSManagedObjectContext, [NSManagedObject]) {
        let context = try LightweightMigrationTests.open(url, model: model, options: nil)
        let posts = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
            request.sortDescriptors = [NSSortDescriptor(key: "postID", ascending: false)]
            return try context.fetch(request)
        }
        return (context, posts)
    }

    @Test("Version 2 to 3 through the example's mapping model: the custom policy gives each of the 10 posts one section made from its content")
    func exampleVersion2To3() throws {
        let source = try LightweightMigrationTests.exampleStore(2)
        let before = try Data(contentsOf: source)
        let destination = Self.newURL()
        let manager = NSMigrationManager(sourceModel: try Self.exampleModel(2), destinationModel: try Self.exampleModel(3))
        try manager.migrateStore(from: source, sourceType: NSSQLiteStoreType, with: try Self.mapping2to3(),
                                 toDestinationURL: destination, destinationType: NSSQLiteStoreType)
        #expect(try Data(contentsOf: source) == before, "the source store is never written")
        #expect(manager.migrationProgress == 1)

        let model = try Self.exampleModel(3)
        let (context, posts) = try Self.posts(destination, model: model)
        try context.performAndWait {
            #expect(posts.count == 10)
            let newest = try #require(posts.first)
            #expect(newest.value(forKey: "postID") as? String == "FFFECB21-6645-4FDD-B8B0-B960D0E61F5A")
            #expect(newest.value(forKey: "hexColor") as? String == "1BB732")
            let date = try #require(newest.value(forKey: "date") as? Date)
            #expect(abs(date.timeIntervalSince1970 - 1547494150.058821) < 0.001)
            let sections = try #require(newest.value(forKey: "sections") as? NSOrderedSet ?? (newest.value(forKey: "sections") as? Set<NSManagedObject>).map { NSOrderedSet(array: Array($0)) })
            #expect(sections.count == 1)
            let section = try #require(sections.firstObject as? NSManagedObject)
            #expect(section.value(forKey: "title") as? String == "Test...")
            #expect(section.value(forKey: "body") as? String == "Test body")
            #expect((section.value(forKey: "index") as? NSNumber)?.intValue == 0)
            #expect(section.value(forKey: "post") as? NSManagedObject === newest)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Section")) == 10)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: destination)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test("CoreDataPlus V2 to V3 through Apple's compiled V2toV3.cdm: 10 makers, every car made by one, 118 previous owners, 20 people")
    func sampleModelV2ToV3() throws {
        V2to3MakerPolicy.register()
        let (v2, v3) = try MappingFixtures.compiledV2V3()
        let mapping = try #require(NSMappingModel(contentsOf: try MappingFixtures.url(MappingFixtures.compiledV2toV3)))
        let source = try Fixtures.copy(Fixtures.store("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite"))
        let reader = try DatabaseQueue(path: source.path)
        let (makers, owned) = try reader.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT ZMAKER) FROM ZCAR") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZCAR WHERE ZOWNER IS NOT NULL") ?? -1)
        }
        try reader.close()
        let destination = Self.newURL()
        let manager = NSMigrationManager(sourceModel: v2, destinationModel: v3)
        try manager.migrateStore(from: source, sourceType: NSSQLiteStoreType, with: mapping,
                                 toDestinationURL: destination, destinationType: NSSQLiteStoreType)

        let context = try LightweightMigrationTests.open(destination, model: v3, options: nil)
        try context.performAndWait {
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Maker")) == makers)
            #expect(makers == 10)
            let cars = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car"))
            #expect(cars.count == 125)
            #expect(cars.allSatisfy { $0.value(forKey: "createdBy") != nil })
            let withPrevious = cars.filter { ($0.value(forKey: "previousOwners") as? Set<NSManagedObject>)?.isEmpty == false }
            #expect(withPrevious.count == owned && owned == 118)
            for car in withPrevious {
                let owner = car.value(forKey: "owner") as? NSManagedObject
                #expect(car.value(forKey: "previousOwners") as? Set<NSManagedObject> == owner.map { [$0] })
            }
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 20)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: destination)
        #expect(v3.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    /// Migrates an example store from `start` to version 4 one version at a time, as the app's
    /// migrator does: inferred steps, and the mapping model with its policy from 2 to 3.
    static func migrateToVersion4(from start: Int) throws -> URL {
        var url = try LightweightMigrationTests.exampleStore(start)
        let mapping = try Self.mapping2to3()
        for version in start..<4 {
            let (from, to) = (try Self.exampleModel(version), try Self.exampleModel(version + 1))
            let step = version == 2 ? mapping : try NSMappingModel.inferredMappingModel(forSourceModel: from, destinationModel: to)
            let next = Self.newURL()
            try NSMigrationManager(sourceModel: from, destinationModel: to)
                .migrateStore(from: url, sourceType: NSSQLiteStoreType, with: step, toDestinationURL: next, destinationType: NSSQLiteStoreType)
            url = next
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(try Self.exampleModel(4).isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "the store has version 4's hashes")
        return url
    }

    @Test("Version 1 to 4 in steps, as the example app's migrator does: inferred, mapping model with policy, inferred; 10 posts and 10 sections")
    func exampleInSteps() throws {
        let url = try Self.migrateToVersion4(from: 1)
        let (context, posts) = try Self.posts(url, model: try Self.exampleModel(4))
        try context.performAndWait {
            #expect(posts.count == 10)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Section")) == 10)
            #expect(posts.allSatisfy { ($0.value(forKey: "softDeleted") as? NSNumber)?.boolValue == false })
            let newest = try #require(posts.first)
            #expect(newest.value(forKey: "hexColor") as? String == "1BB732")
        }
    }

    @Test("Opening a version 2 store with version 3 and the migration option uses the mapping model beside the model bundle, not inference")
    func mappingModelPreferredOnOpen() throws {
        Post2ToPost3MigrationPolicy.register()
        let folder = TestStoreFiles.newStoreURL("Resources")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bundle = folder.appendingPathComponent("CoreDataMigration_Example.xcdatamodeld")
        try FileManager.default.copyItem(at: try LightweightMigrationTests.exampleBundle(), to: bundle)
        try FileManager.default.copyItem(at: try MappingFixtures.url(MappingFixtures.migration2to3),
                                         to: folder.appendingPathComponent("Migration2to3ModelMapping.xcmappingmodel"))
        let model = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("CoreDataMigration_Example 3.xcdatamodel"))
        model.versionBundleURL = bundle
        let url = try LightweightMigrationTests.exampleStore(2)
        // Only NSMigratePersistentStoresAutomaticallyOption: a found mapping model needs no inference.
        let context = try LightweightMigrationTests.open(url, model: model, options: [NSMigratePersistentStoresAutomaticallyOption: true])
        try context.performAndWait {
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Post")) == 10)
            let sections = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Section"))
            #expect(sections.count == 10, "the policy's sections exist only when the mapping model ran")
            #expect(sections.allSatisfy { ($0.value(forKey: "title") as? String)?.hasSuffix("...") == true && $0.value(forKey: "post") != nil })
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(!leftovers.contains { $0.contains("migrat") }, "no temporary store is left: \(leftovers)")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test("Version 2 to 4 in steps: each of the 10 posts has the one section the policy made, softDeleted false, and version 4's hashes")
    func exampleVersion2To4() throws {
        let url = try Self.migrateToVersion4(from: 2)
        let (context, posts) = try Self.posts(url, model: try Self.exampleModel(4))
        try context.performAndWait {
            #expect(posts.count == 10)
            let newest = try #require(posts.first)
            #expect(newest.value(forKey: "postID") as? String == "FFFECB21-6645-4FDD-B8B0-B960D0E61F5A")
            #expect((newest.value(forKey: "softDeleted") as? NSNumber)?.boolValue == false)
            let sections = newest.value(forKey: "sections") as? Set<NSManagedObject> ?? Set((newest.value(forKey: "sections") as? NSOrderedSet)?.array.compactMap { $0 as? NSManagedObject } ?? [])
            #expect(sections.count == 1 && sections.first?.value(forKey: "title") as? String == "Test...")
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Section")) == 10)
        }
    }
}
