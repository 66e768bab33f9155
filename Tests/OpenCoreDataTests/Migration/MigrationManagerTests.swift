import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Records the order Apple documents for an entity migration policy's callbacks, the progress
/// and current mapping at each, and checks the manager's association lookups.
final class RecordingMigrationPolicy: NSEntityMigrationPolicy {
    nonisolated(unsafe) static var log: [String] = []
    nonisolated(unsafe) static var progress: [Float] = []
    nonisolated(unsafe) static var lookupsHeld = true

    private func note(_ event: String, _ mapping: NSEntityMapping, _ manager: NSMigrationManager) {
        Self.log.append("\(event) \(mapping.name ?? "")")
        Self.progress.append(manager.migrationProgress)
        if manager.currentEntityMapping !== mapping { Self.lookupsHeld = false }
    }

    override func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws { note("begin", mapping, manager) }
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        note("create", mapping, manager)
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        let made = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance])
        if made.count != 1 || manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: made).first !== sInstance {
            Self.lookupsHeld = false
        }
    }
    override func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws { note("endCreate", mapping, manager) }
    override func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        note("relate", mapping, manager)
        try super.createRelationships(forDestination: dInstance, in: mapping, manager: manager)
    }
    override func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws { note("endRelate", mapping, manager) }
    override func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws { note("validate", mapping, manager) }
    override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws { note("end", mapping, manager) }

    /// `FUNCTION($entityPolicy, "shout:", $source.name)` in a mapping model.
    override func performExpressionFunction(_ selector: String, arguments: [Any?]) -> Any? {
        selector == "shout:" ? (arguments.first as? String)?.uppercased() : nil
    }
}

/// Cancels the migration at the second instance it sees.
final class CancellingMigrationPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        if manager.destinationContext.insertedObjects.count >= 2 {
            manager.cancelMigrationWithError(CoreDataError.make(NSMigrationCancelledError, "cancelled by the test"))
        }
    }
}

/// `NSMigrationManager` with models built in code
/// (<https://developer.apple.com/documentation/coredata/nsmigrationmanager>,
/// <https://developer.apple.com/documentation/coredata/nsentitymigrationpolicy>).
@Suite("Migration manager", .serialized)
struct MigrationManagerTests {
    /// Version 1: Author(name) ←→> Book(title); version 2 renames `title` to `heading` and adds `shout`.
    static func models() -> (NSManagedObjectModel, NSManagedObjectModel) {
        func make(_ version: Int) -> NSManagedObjectModel {
            let author = TestModels.entity("Author", [TestModels.attribute("name", .stringAttributeType)])
            var bookProperties = [TestModels.attribute(version == 1 ? "title" : "heading", .stringAttributeType)]
            if version == 2 { bookProperties.append(TestModels.attribute("shout", .stringAttributeType)) }
            let book = TestModels.entity("Book", bookProperties)
            let books = TestModels.relationship("books", to: book, toMany: true)
            let writer = TestModels.relationship("author", to: author, toMany: false)
            TestModels.inverse(books, writer)
            author.properties += [books]
            book.properties += [writer]
            let model = NSManagedObjectModel()
            model.entities = [author, book]
            return model
        }
        return (make(1), make(2))
    }

    /// A version-1 store with `authors` authors of `books` books each.
    static func sourceStore(authors: Int = 2, books: Int = 3) throws -> URL {
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(models().0, url: url)
        try context.performAndWait {
            for a in 0..<authors {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue("author \(a)", forKey: "name")
                for b in 0..<books {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue("book \(a).\(b)", forKey: "title")
                    book.setValue(author, forKey: "author")
                }
            }
            try context.save()
        }
        return url
    }

    /// Author copied; Book transformed by `policy` (heading = $source.title, shout = FUNCTION($entityPolicy, "shout:", $source.title)).
    static func mapping(policy: String?, extraBookProperty: NSPropertyMapping? = nil) throws -> NSMappingModel {
        let (v1, v2) = models()
        func property(_ name: String, _ format: String) throws -> NSPropertyMapping {
            let mapping = NSPropertyMapping()
            mapping.name = name
            mapping.valueExpression = try NSExpression.parse(format: format)
            return mapping
        }
        let author = NSEntityMapping()
        author.name = "AuthorToAuthor"
        author.mappingType = .copyEntityMappingType
        (author.sourceEntityName, author.destinationEntityName) = ("Author", "Author")
        author.sourceExpression = MappingXMLReader.fetchAll("Author")
        author.attributeMappings = [try property("name", "$source.name")]
        author.relationshipMappings = [try property("books", #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "books", $source.books)"#)]
        let book = NSEntityMapping()
        book.name = "BookToBook"
        book.mappingType = .customEntityMappingType
        (book.sourceEntityName, book.destinationEntityName) = ("Book", "Book")
        book.sourceExpression = MappingXMLReader.fetchAll("Book")
        book.entityMigrationPolicyClassName = policy
        book.attributeMappings = [try property("heading", "$source.title"), try property("shout", #"FUNCTION($entityPolicy, "shout:", $source.title)"#)]
            + (extraBookProperty.map { [$0] } ?? [])
        book.relationshipMappings = [try property("author", #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AuthorToAuthor", $source.author)"#)]
        for (mapping, name) in [(author, "Author"), (book, "Book")] {
            mapping.sourceEntityVersionHash = v1.entitiesByName[name]?.versionHash
            mapping.destinationEntityVersionHash = v2.entitiesByName[name]?.versionHash
        }
        let model = NSMappingModel()
        model.entityMappings = [author, book]
        return model
    }

    static func migrate(_ source: URL, to destination: URL, mapping: NSMappingModel) throws -> NSMigrationManager {
        let (v1, v2) = models()
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        try manager.migrateStore(from: source, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: destination, destinationType: NSSQLiteStoreType)
        return manager
    }

    @Test("Callbacks run in Apple's order: begin, create per instance, endInstanceCreation; then relationships; then validation and end")
    func callbackOrder() throws {
        RecordingMigrationPolicy.register()
        RecordingMigrationPolicy.log = []
        RecordingMigrationPolicy.progress = []
        RecordingMigrationPolicy.lookupsHeld = true
        let source = try Self.sourceStore()
        let destination = TestStoreFiles.newStoreURL()
        let manager = try Self.migrate(source, to: destination, mapping: try Self.mapping(policy: "SomeAppModule.RecordingMigrationPolicy"))
        let log = RecordingMigrationPolicy.log
        #expect(log == ["begin BookToBook"] + Array(repeating: "create BookToBook", count: 6) + ["endCreate BookToBook"]
                + Array(repeating: "relate BookToBook", count: 6) + ["endRelate BookToBook", "validate BookToBook", "end BookToBook"])
        let progress = RecordingMigrationPolicy.progress
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 }, "progress never goes back: \(progress)")
        #expect((progress.first ?? 1) < (progress.last ?? 0))
        #expect(manager.migrationProgress == 1)
        #expect(RecordingMigrationPolicy.lookupsHeld, "associations and currentEntityMapping answered as documented")

        let context = try TestModels.sqliteContext(Self.models().1, url: destination)
        try context.performAndWait {
            let books = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            #expect(books.count == 6)
            for book in books {
                let heading = try #require(book.value(forKey: "heading") as? String)
                #expect(book.value(forKey: "shout") as? String == heading.uppercased(), "FUNCTION($entityPolicy, …) reached the policy")
                let author = try #require(book.value(forKey: "author") as? NSManagedObject)
                #expect(heading.hasPrefix("book \((author.value(forKey: "name") as? String ?? "").dropFirst("author ".count))."))
            }
            let authors = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))
            #expect(authors.count == 2 && authors.allSatisfy { ($0.value(forKey: "books") as? Set<NSManagedObject>)?.count == 3 })
        }
    }

    @Test("cancelMigrationWithError makes migrateStore throw that error and leaves no destination store")
    func cancellation() throws {
        CancellingMigrationPolicy.register()
        let source = try Self.sourceStore()
        let destination = TestStoreFiles.newStoreURL()
        do {
            _ = try Self.migrate(source, to: destination, mapping: try Self.mapping(policy: "CancellingMigrationPolicy"))
            Issue.record("the migration was not cancelled")
        } catch let error as NSError {
            #expect(error.code == NSMigrationCancelledError && error.localizedDescription.contains("cancelled by the test"))
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: destination.deletingLastPathComponent().path)
        #expect(!leftovers.contains { $0.contains("migrating") }, "the temporary store is removed: \(leftovers)")
    }

    @Test("A migration that fails leaves an existing destination and the source byte-identical")
    func failureLeavesFilesAlone() throws {
        let source = try Self.sourceStore()
        let destination = TestStoreFiles.newStoreURL()
        _ = try Self.migrate(try Self.sourceStore(authors: 1, books: 1), to: destination, mapping: try Self.mapping(policy: nil))
        let (sourceBytes, destinationBytes) = (try Data(contentsOf: source), try Data(contentsOf: destination))
        let wrong = NSPropertyMapping()
        wrong.name = "missing"
        wrong.valueExpression = NSExpression(format: "$source.title")
        do {
            _ = try Self.migrate(source, to: destination, mapping: try Self.mapping(policy: nil, extraBookProperty: wrong))
            Issue.record("a mapping to a property the destination lacks must fail")
        } catch let error as NSError {
            #expect(error.code == NSMigrationError && error.localizedDescription.contains("missing"))
        }
        #expect(try Data(contentsOf: source) == sourceBytes)
        #expect(try Data(contentsOf: destination) == destinationBytes)
    }

    @Test("Migrating into an existing store adds to it, as Apple documents")
    func appendsToExistingDestination() throws {
        let source = try Self.sourceStore()
        let destination = TestStoreFiles.newStoreURL()
        _ = try Self.migrate(source, to: destination, mapping: try Self.mapping(policy: nil))
        _ = try Self.migrate(source, to: destination, mapping: try Self.mapping(policy: nil))
        let context = try TestModels.sqliteContext(Self.models().1, url: destination)
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) } == 12)
    }

    @Test("A policy class that cannot be found fails with NSEntityMigrationPolicyError (134170) naming it")
    func missingPolicyClass() throws {
        let source = try Self.sourceStore()
        do {
            _ = try Self.migrate(source, to: TestStoreFiles.newStoreURL(), mapping: try Self.mapping(policy: "Nowhere.NoSuchPolicy"))
            Issue.record("an unknown policy class must fail")
        } catch let error as NSError {
            #expect(error.code == NSEntityMigrationPolicyError && error.localizedDescription.contains("Nowhere.NoSuchPolicy"))
        }
    }

    @Test("An unknown FUNCTION($manager, …) selector stops the migration with 134110 naming the selector")
    func unknownManagerFunction() throws {
        let wrong = NSPropertyMapping()
        wrong.name = "shout"
        wrong.valueExpression = try NSExpression.parse(format: #"FUNCTION($manager, "noSuchSelector:", $source.title)"#)
        let mapping = try Self.mapping(policy: nil)
        mapping.entityMappingsByName["BookToBook"]?.attributeMappings?.append(wrong)
        do {
            _ = try Self.migrate(try Self.sourceStore(), to: TestStoreFiles.newStoreURL(), mapping: mapping)
            Issue.record("an unknown selector must fail")
        } catch let error as NSError {
            #expect(error.code == NSMigrationError && error.localizedDescription.contains("noSuchSelector:"))
        }
    }

    @Test("A destination that breaks the model's rules fails validation and is not written")
    func destinationValidation() throws {
        let (v1, v2) = Self.models()
        v2.entitiesByName["Book"]?.propertiesByName["shout"].map { ($0 as? NSAttributeDescription)?.isOptional = false }
        let mapping = try Self.mapping(policy: nil)
        let destination = TestStoreFiles.newStoreURL()
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        do {
            try manager.migrateStore(from: try Self.sourceStore(), sourceType: NSSQLiteStoreType, with: mapping,
                                     toDestinationURL: destination, destinationType: NSSQLiteStoreType)
            Issue.record("a nil mandatory attribute must fail validation")
        } catch let error as NSError {
            #expect([NSValidationMissingMandatoryPropertyError, NSValidationMultipleErrorsError].contains(error.code))
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("Without a mapping model migrateStore fails with NSMigrationMissingMappingModelError (134140)")
    func noMappingModel() throws {
        let (v1, v2) = Self.models()
        #expect(throws: (any Error).self) {
            try NSMigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(
                from: try Self.sourceStore(), sourceType: NSSQLiteStoreType, with: nil,
                toDestinationURL: TestStoreFiles.newStoreURL(), destinationType: NSSQLiteStoreType)
        }
    }

    @Test("More instances than one batch migrate whole: associations survive the batch saves")
    func manyBatches() throws {
        let source = try Self.sourceStore(authors: 3, books: 900)
        let destination = TestStoreFiles.newStoreURL()
        _ = try Self.migrate(source, to: destination, mapping: try Self.mapping(policy: nil))
        let context = try TestModels.sqliteContext(Self.models().1, url: destination)
        try context.performAndWait {
            let authors = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))
            #expect(authors.count == 3)
            #expect(authors.allSatisfy { ($0.value(forKey: "books") as? Set<NSManagedObject>)?.count == 900 })
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "author == nil OR heading == nil")
            #expect(try context.count(for: request) == 0)
        }
    }

    @Test("A source fetch sorted against primary-key order still associates every instance: sources read newest first across batches keep their own destinations and relationships")
    func sourcesOutOfKeyOrder() throws {
        let source = try Self.sourceStore(authors: 3, books: 900)
        let mapping = try Self.mapping(policy: nil)
        let bookMapping = try #require(mapping.entityMappings?.first { $0.name == "BookToBook" })
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
        bookMapping.sourceExpression = NSFetchRequestExpression.expression(
            forFetch: NSExpression(forConstantValue: request),
            context: NSExpression(forKeyPath: "$manager.sourceContext"), countOnly: false)
        let destination = TestStoreFiles.newStoreURL()
        _ = try Self.migrate(source, to: destination, mapping: mapping)
        let context = try TestModels.sqliteContext(Self.models().1, url: destination)
        try context.performAndWait {
            let books = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            #expect(books.count == 2_700)
            for book in books {
                // "book a.b" belongs to "author a": a wrong association would pair them otherwise.
                let heading = try #require(book.value(forKey: "heading") as? String)
                let authorName = (book.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String
                #expect(heading.hasPrefix("book ") && authorName == "author " + heading.dropFirst(5).prefix { $0 != "." })
            }
        }
    }

    @Test("Tables the model does not describe (Apple's persistent history) are carried into a store rebuilt through a mapping model, with their indexes")
    func historyTablesSurvive() throws {
        let source = try Self.sourceStore()
        let queue = try DatabaseQueue(path: source.path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZTIMESTAMP FLOAT)")
            try db.execute(sql: "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)")
            try db.execute(sql: "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZTIMESTAMP) VALUES (1, 16001, 1, 2, 700000000.5), (2, 16001, 1, NULL, 700000001)")
        }
        try queue.close()
        let migrated = TestStoreFiles.newStoreURL()
        _ = try Self.migrate(source, to: migrated, mapping: try Self.mapping(policy: nil))
        try SQLiteStore.copyUnmodelledTables(from: source, sourceModel: Self.models().0, into: migrated, timeout: 5)
        let result = try DatabaseQueue(path: migrated.path)
        let (rows, indexes, books) = try result.read { db in
            (try Row.fetchAll(db, sql: "SELECT Z_PK, ZAUTHORTS, ZTIMESTAMP FROM ATRANSACTION ORDER BY Z_PK").map { [$0[0], $0[1], $0[2]] as [DatabaseValue] },
             try db.indexes(on: "ATRANSACTION").map(\.name), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZBOOK"))
        }
        #expect(rows == [[1.databaseValue, 2.databaseValue, 700000000.5.databaseValue], [2.databaseValue, .null, 700000001.0.databaseValue]])
        #expect(indexes.contains("ATRANSACTION_ZAUTHORTS_INDEX"))
        #expect(books == 6, "the model's tables are the migrated ones, not copies")
        try result.close()
    }

    @Test("Derived attributes are left to the store: an inferred mapping that reads $source.bookCount migrates, and the store computes the value")
    func derivedAttributeInDestination() throws {
        let (v1, v2) = Self.models()
        for model in [v1, v2] {
            model.entitiesByName["Author"]?.properties += [SQLDerivedAttributeTests.derived("bookCount", .integer64AttributeType, "books.@count")]
        }
        // v2 renames Book.title to heading: the renaming identifier lets inference pair them.
        (v2.entitiesByName["Book"]?.propertiesByName["heading"] as? NSAttributeDescription)?.renamingIdentifier = "title"
        let source = TestStoreFiles.newStoreURL()
        let writer = try TestModels.sqliteContext(v1, url: source)
        try writer.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: writer)
            for index in 0..<3 {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: writer)
                book.setValue("book \(index)", forKey: "title")
                book.setValue(author, forKey: "author")
            }
            try writer.save()
        }
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        #expect(mapping.entityMappingsByName["AuthorToAuthor"]?.attributeMappings?.contains { $0.name == "bookCount" && $0.valueExpression != nil } == true)
        let destination = TestStoreFiles.newStoreURL()
        try NSMigrationManager(sourceModel: v1, destinationModel: v2)
            .migrateStore(from: source, sourceType: NSSQLiteStoreType, with: mapping, toDestinationURL: destination, destinationType: NSSQLiteStoreType)
        let context = try TestModels.sqliteContext(v2, url: destination)
        try context.performAndWait {
            let authors = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author"))
            #expect(authors.count == 1)
            #expect((authors.first?.value(forKey: "bookCount") as? NSNumber)?.intValue == 3)
        }
    }
}
