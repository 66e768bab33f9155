import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Apple's lightweight-migration rules (issue #16, Must 1), each as a pair of models: what the
/// inference accepts migrates in place with every row kept; what it cannot infer throws
/// `NSInferredMappingModelError` (134190) naming the entity and property, and the store is unchanged.
@Suite("Inferred migration")
struct InferredMigrationTests {
    typealias M = TestModels
    static var migrate: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    // MARK: - Models

    /// Version 1, as Xcode writes it: `Author` (name, age: Int16, nickname) ↔ to-many `books` ↔
    /// `Book` (title), a `Novel` subentity of `Book`, and many-to-many `Book.tags` ↔ `Tag.tagged`.
    static let version1XML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Author" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="nickname" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="writer" inverseEntity="Book"/>
            </entity>
            <entity name="Book" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="tagged" inverseEntity="Tag"/>
                <relationship name="writer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            </entity>
            <entity name="Novel" representedClassName="NSManagedObject" parentEntity="Book" syncable="YES">
                <attribute name="genre" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Tag" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="tagged" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
            </entity>
        </model>
        """

    /// A model bundle holding version 1 only, as an app's `.xcdatamodeld` before its next version.
    static func bundle() throws -> URL {
        let folder = TestStoreFiles.newStoreURL("Model.xcdatamodeld")
        let version = folder.appendingPathComponent("v1.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try version1XML.write(to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return folder
    }

    /// Version 1, loaded from its bundle (so its copies know the bundle's versions).
    static func version1() throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: bundle())
    }

    /// Fills a version-1 store: 3 authors, 6 books (every other one a novel), 2 tags.
    static func populate(_ url: URL) throws {
        let context = try M.sqliteContext(version1(), url: url)
        try context.performAndWait {
            let tags = ["red", "blue"].map { label -> NSManagedObject in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                tag.setValue(label, forKey: "label")
                return tag
            }
            for index in 0..<3 {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue("A\(index)", forKey: "name")
                author.setValue(index == 1 ? nil : Int16(30 + index), forKey: "age")
                author.setValue("nick\(index)", forKey: "nickname")
                for number in 0..<2 {
                    let book = NSEntityDescription.insertNewObject(forEntityName: number == 0 ? "Novel" : "Book", into: context)
                    book.setValue("B\(index)-\(number)", forKey: "title")
                    if number == 0 { book.setValue("crime", forKey: "genre") }
                    book.setValue(author, forKey: "writer")
                    book.setValue(Set([tags[(index + number) % 2]]), forKey: "tags")
                }
            }
            try context.save()
        }
        try context.persistentStoreCoordinator?.persistentStores.forEach { try context.persistentStoreCoordinator?.remove($0) }
    }

    /// Version 2 from version 1 with `change` applied to a copy.
    static func version2(_ change: (NSManagedObjectModel) -> Void) throws -> NSManagedObjectModel {
        let model = try version1().copy() as! NSManagedObjectModel
        change(model)
        return model
    }

    static func open(_ url: URL, _ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: migrate)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// A populated version-1 store opened with version 1 changed by `change`.
    static func migrated(_ change: (NSManagedObjectModel) -> Void) throws -> (NSManagedObjectContext, URL) {
        let url = TestStoreFiles.newStoreURL()
        try populate(url)
        return (try open(url, version2(change)), url)
    }

    static func entity(_ model: NSManagedObjectModel, _ name: String) -> NSEntityDescription { model.entitiesByName[name]! }

    static func fetch(_ context: NSManagedObjectContext, _ entity: String, sortedBy key: String) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request)
    }

    /// Opens a populated version-1 store with `destination`, expecting an error with `code` and
    /// a store file left byte-identical; returns the error and the store's URL.
    @discardableResult
    static func expectRefusal(_ code: Int, _ destination: NSManagedObjectModel,
                              preparing prepare: (URL) throws -> Void = { _ in }) throws -> (NSError, URL) {
        let url = TestStoreFiles.newStoreURL()
        try populate(url)
        try prepare(url)
        let before = try Data(contentsOf: url)
        let error = try #require(throws: (any Error).self) { try open(url, destination) } as NSError
        #expect(error.code == code)
        #expect(try Data(contentsOf: url) == before)
        return (error, url)
    }

    /// Renames `Author` to `Writer` and its `name` to `fullName`, through renaming identifiers.
    static func renameAuthor(_ model: NSManagedObjectModel) {
        let author = entity(model, "Author")
        author.name = "Writer"
        author.renamingIdentifier = "Author"
        let name = author.attributesByName["name"]!
        name.name = "fullName"
        name.renamingIdentifier = "name"
    }

    // MARK: - Inferable changes

    @Test("A renaming identifier a later version keeps (v2 → v3 after a v1 → v2 rename) matches the entity and attribute it was kept on, not nothing")
    func keptRenamingIdentifiers() throws {
        let version2 = try Self.version2(Self.renameAuthor)
        let version3 = try Self.version2 { model in
            Self.renameAuthor(model)
            Self.entity(model, "Tag").properties.append(TestModels.attribute("colour", .stringAttributeType))
        }
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: version2, destinationModel: version3)
        let writer = try #require(mapping.entityMappings?.first { $0.destinationEntityName == "Writer" })
        #expect(writer.sourceEntityName == "Writer")
        let fullName = try #require(writer.attributeMappings?.first { $0.name == "fullName" })
        #expect(fullName.valueExpression?.description.contains("fullName") == true)
        // The same models with the identifiers lost (as a store's Z_MODELCACHE may give them) match by name.
        let forgetful = try Self.version2(Self.renameAuthor)
        for entity in forgetful.entities {
            entity.renamingIdentifier = nil
            for property in entity.properties { property.renamingIdentifier = nil }
        }
        let byName = try NSMappingModel.inferredMappingModel(forSourceModel: forgetful, destinationModel: version3)
        #expect(byName.entityMappings?.first { $0.destinationEntityName == "Writer" }?.sourceEntityName == "Writer")
    }

    @Test("Renaming an entity and an attribute through renaming identifiers keeps rows, keys and relationships")
    func renames() throws {
        let (context, _) = try Self.migrated(Self.renameAuthor)
        try context.performAndWait {
            let writers = try Self.fetch(context, "Writer", sortedBy: "fullName")
            #expect(writers.map { $0.value(forKey: "fullName") as? String } == ["A0", "A1", "A2"])
            let books = try #require(writers[0].value(forKey: "books") as? Set<NSManagedObject>)
            #expect(Set(books.compactMap { $0.value(forKey: "title") as? String }) == ["B0-0", "B0-1"])
            #expect(books.contains { $0.entity.name == "Novel" })
            let tags = try Self.fetch(context, "Tag", sortedBy: "label")
            #expect((tags[0].value(forKey: "tagged") as? Set<NSManagedObject>)?.count == 3)
        }
    }

    @Test("Adding and removing attributes and entities; a non-optional attribute with a default fills old rows with it; a new entity's non-optional attributes need none")
    func addAndRemove() throws {
        let (context, url) = try Self.migrated { model in
            let author = Self.entity(model, "Author")
            author.properties = author.properties.filter { $0.name != "nickname" }
            author.properties += [M.attribute("rating", .integer32AttributeType, optional: false, defaultValue: 5),
                                  M.attribute("bio", .stringAttributeType)]
            // No rows exist for a new entity, so its mandatory attribute needs no default.
            model.entities += [M.entity("Publisher", [M.attribute("name", .stringAttributeType, optional: false)])]
        }
        try context.performAndWait {
            let authors = try Self.fetch(context, "Author", sortedBy: "name")
            #expect(authors.map { $0.value(forKey: "rating") as? Int } == [5, 5, 5])
            #expect(authors.allSatisfy { $0.value(forKey: "bio") == nil })
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Publisher")) == 0)
            let publisher = NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: context)
            publisher.setValue("P", forKey: "name")
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("A3", forKey: "name")
            try context.save()
            // New keys continue after the old ones.
            #expect(author.objectID.primaryKey == 4)
        }
        let columns = try DatabaseQueue(path: url.path).read { db in try db.columns(in: "ZAUTHOR").map(\.name) }
        #expect(!columns.contains("ZNICKNAME"))
        #expect(columns.contains("ZRATING"))
    }

    @Test("An optional attribute becomes non-optional with a default: NULLs become the default; numbers change kind")
    func optionalityAndNumberKinds() throws {
        let (context, _) = try Self.migrated { model in
            let age = Self.entity(model, "Author").attributesByName["age"]!
            age.isOptional = false
            age.defaultValue = 18
            age.attributeType = .doubleAttributeType
        }
        try context.performAndWait {
            let authors = try Self.fetch(context, "Author", sortedBy: "name")
            #expect(authors.map { $0.value(forKey: "age") as? Double } == [30, 18, 32])
        }
    }

    @Test("A new subentity, and a new parent entity for an existing root: rows keep their entity and relationships, Z_ENT is renumbered")
    func hierarchyChanges() throws {
        let (context, url) = try Self.migrated { model in
            let book = Self.entity(model, "Book")
            let poem = M.entity("Poem", [M.attribute("meter", .stringAttributeType)])
            book.subentities += [poem]
            // Tag moves under a new parent: its rows move to the parent's table.
            let item = M.entity("Item", [M.attribute("createdAt", .dateAttributeType)])
            item.subentities = [Self.entity(model, "Tag")]
            model.entities += [poem, item]
        }
        try context.performAndWait {
            let books = try Self.fetch(context, "Book", sortedBy: "title")
            #expect(books.count == 6)
            #expect(books.filter { $0.entity.name == "Novel" }.count == 3)
            #expect(books.allSatisfy { ($0.value(forKey: "writer") as? NSManagedObject) != nil })
            let tags = try Self.fetch(context, "Tag", sortedBy: "label")
            #expect(tags.map { $0.value(forKey: "label") as? String } == ["blue", "red"])
            #expect(tags.map { ($0.value(forKey: "tagged") as? Set<NSManagedObject>)?.count } == [3, 3])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 2)
        }
        let (numbers, tables) = try DatabaseQueue(path: url.path).read { db in
            (try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY").map { ($0[0] as String, $0[1] as Int) }),
             try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"))
        }
        #expect(numbers.keys.sorted() == ["Author", "Book", "Item", "Novel", "Poem", "Tag"])
        #expect(tables.contains("ZITEM") && !tables.contains("ZTAG"))
        #expect(!tables.contains { $0.hasPrefix("_OCD") })
    }

    @Test("Tables the model does not describe (Apple's persistent history) survive migration untouched")
    func historyTablesSurvive() throws {
        let url = TestStoreFiles.newStoreURL()
        try Self.populate(url)
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, ZAUTHOR VARCHAR)")
            try db.execute(sql: "INSERT INTO ATRANSACTION (ZAUTHOR) VALUES ('app')")
        }
        let destination = try Self.version2 { model in Self.entity(model, "Author").properties += [M.attribute("bio", .stringAttributeType)] }
        _ = try Self.open(url, destination)
        let author = try DatabaseQueue(path: url.path).read { db in try String.fetchOne(db, sql: "SELECT ZAUTHOR FROM ATRANSACTION") }
        #expect(author == "app")
    }

    @Test("inferredMappingModel: copy, transform, add and remove entity mappings with version hashes, $source key paths and relationship functions")
    func inferredMappingModel() throws {
        let source = try Self.version1()
        let destination = try Self.version2 { model in
            Self.renameAuthor(model)
            Self.entity(model, "Writer").properties += [M.attribute("bio", .stringAttributeType)]
            model.entities = model.entities.filter { $0.name != "Tag" }
            Self.entity(model, "Book").properties = Self.entity(model, "Book").properties.filter { $0.name != "tags" }
            // No rows exist for a new entity, so its mandatory attribute needs no default.
            model.entities += [M.entity("Publisher", [M.attribute("name", .stringAttributeType, optional: false)])]
        }
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let byName = mapping.entityMappingsByName
        let writer = try #require(byName["AuthorToWriter"])
        #expect(writer.mappingType == .transformEntityMappingType)
        #expect(writer.sourceEntityName == "Author" && writer.destinationEntityName == "Writer")
        #expect(writer.sourceEntityVersionHash == source.entitiesByName["Author"]?.versionHash)
        #expect(writer.destinationEntityVersionHash == destination.entitiesByName["Writer"]?.versionHash)
        let attributes = Dictionary(uniqueKeysWithValues: (writer.attributeMappings ?? []).map { ($0.name ?? "", $0.valueExpression?.description) })
        #expect(attributes["fullName"] == "$source.name")
        #expect(attributes["age"] == "$source.age")
        #expect(attributes["bio"] == .some(nil))
        let books = writer.relationshipMappings?.first { $0.name == "books" }?.valueExpression?.description
        #expect(books?.contains("destinationInstancesForEntityMappingNamed:sourceInstances:") == true)
        #expect(books?.contains("BookToBook") == true)
        #expect(byName["NovelToNovel"]?.sourceExpression != nil)
        #expect(byName["Publisher"]?.mappingType == .addEntityMappingType)
        #expect(byName["Tag"]?.mappingType == .removeEntityMappingType)
        #expect(byName["Tag"]?.sourceEntityVersionHash == source.entitiesByName["Tag"]?.versionHash)
        // Unchanged models map every entity by copying.
        let same = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: Self.version1())
        #expect(same.entityMappings.allSatisfy { $0.mappingType == .copyEntityMappingType })
        // And a change it cannot infer throws 134190.
        let broken = try Self.version2 { model in Self.entity(model, "Author").attributesByName["nickname"]!.attributeType = .dateAttributeType }
        let error = try #require(throws: (any Error).self) { try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: broken) } as NSError
        #expect(error.code == NSInferredMappingModelError)
        #expect(error.userInfo["entity"] as? String == "Author" && error.userInfo["property"] as? String == "nickname")
    }

    // MARK: - Not inferable

    @Test("Changes that cannot be inferred throw 134190 naming entity and property, and leave the store byte-identical",
          arguments: ["newRequired", "requiredWithoutDefault", "typeChange", "mergeHierarchies"])
    func notInferable(_ change: String) throws {
        let destination = try Self.version2 { model in
            switch change {
            case "newRequired":
                Self.entity(model, "Author").properties += [M.attribute("code", .stringAttributeType, optional: false)]
            case "requiredWithoutDefault":
                Self.entity(model, "Author").attributesByName["nickname"]!.isOptional = false
            case "typeChange":
                Self.entity(model, "Author").attributesByName["nickname"]!.attributeType = .dateAttributeType
            default:
                let parent = M.entity("Thing", [M.attribute("created", .dateAttributeType)])
                parent.subentities = [Self.entity(model, "Author"), Self.entity(model, "Tag")]
                model.entities += [parent]
            }
        }
        let (error, _) = try Self.expectRefusal(NSInferredMappingModelError, destination)
        #expect(error.userInfo["entity"] as? String != nil)
        if change != "mergeHierarchies" { #expect(error.userInfo["property"] as? String != nil) }
    }

    @Test("A migration that fails part way (a new uniqueness constraint the rows break) rolls back: the store file is byte-identical and still opens with version 1")
    func failedMigrationWritesNothing() throws {
        let destination = try Self.version2 { model in
            Self.entity(model, "Novel").uniquenessConstraints = [["genre"]]
        }
        let (_, url) = try Self.expectRefusal(NSMigrationError, destination)
        let context = try M.sqliteContext(Self.version1(), url: url)
        let books = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) }
        #expect(books == 6)
    }

    @Test("Without a model bundle and without Z_MODELCACHE (stores of earlier OpenCoreData versions) the store fails with 134130, and is not changed")
    func missingSourceModel() throws {
        let destination = try Self.version2 { model in Self.entity(model, "Author").properties += [M.attribute("bio", .stringAttributeType)] }
        destination.versionBundleURL = nil
        let (error, _) = try Self.expectRefusal(NSMigrationMissingSourceModelError, destination) { url in
            try DatabaseQueue(path: url.path).write { db in try db.execute(sql: "DELETE FROM Z_MODELCACHE") }
        }
        #expect((error.userInfo["tried"] as? [String])?.isEmpty == true)
    }

    @Test("Without a model bundle, a store we wrote migrates from its own Z_MODELCACHE")
    func sourceFromModelCache() throws {
        let url = TestStoreFiles.newStoreURL()
        try Self.populate(url)
        let destination = try Self.version2 { model in Self.entity(model, "Author").properties += [M.attribute("bio", .stringAttributeType)] }
        destination.versionBundleURL = nil
        let context = try Self.open(url, destination)
        let authors = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) }
        #expect(authors == 3)
    }

    @Test("to-one → to-many: a one-to-many becomes many-to-many; each book's writers are its old writer (join table filled from the foreign key)")
    func toOneBecomesToMany() throws {
        let (context, _) = try Self.migrated { model in
            Self.entity(model, "Book").relationshipsByName["writer"]!.maxCount = 0
        }
        try context.performAndWait {
            let authors = try Self.fetch(context, "Author", sortedBy: "name")
            #expect(authors.count == 3)
            for author in authors {
                let books = try #require(author.value(forKey: "books") as? Set<NSManagedObject>)
                #expect(books.count == 2)
                for book in books {
                    #expect(book.value(forKey: "writer") as? Set<NSManagedObject> == [author])
                    #expect((book.value(forKey: "title") as? String)?.hasPrefix("B\((author.value(forKey: "name") as? String ?? "").dropFirst())-") == true)
                }
            }
        }
    }

    @Test("to-many → to-one: a many-to-many becomes one-to-many; each tag keeps one of its books, the one with the lowest key")
    func toManyBecomesToOne() throws {
        let url = TestStoreFiles.newStoreURL()
        try Self.populate(url)
        let before = try Self.fetchPairs(url)
        let destination = try Self.version2 { model in Self.entity(model, "Tag").relationshipsByName["tagged"]!.maxCount = 1 }
        let context = try Self.open(url, destination)
        try context.performAndWait {
            let tags = try Self.fetch(context, "Tag", sortedBy: "label")
            #expect(tags.count == 2)
            for tag in tags {
                let label = try #require(tag.value(forKey: "label") as? String)
                let book = try #require(tag.value(forKey: "tagged") as? NSManagedObject)
                let title = try #require(book.value(forKey: "title") as? String)
                #expect(title == before[label]?.first, "the lowest-keyed book of \(label) (\(before[label] ?? []))")
                #expect((book.value(forKey: "tags") as? Set<NSManagedObject>)?.contains(tag) == true)
            }
        }
    }

    @Test("to-many → to-one on the other side: a one-to-many becomes one-to-one; every book keeps its writer, each author one book")
    func oneToManyBecomesOneToOne() throws {
        let (context, _) = try Self.migrated { model in
            Self.entity(model, "Author").relationshipsByName["books"]!.maxCount = 1
        }
        try context.performAndWait {
            let books = try Self.fetch(context, "Book", sortedBy: "title")
            #expect(books.count == 6 && books.allSatisfy { $0.value(forKey: "writer") != nil })
            for author in try Self.fetch(context, "Author", sortedBy: "name") {
                let book = try #require(author.value(forKey: "books") as? NSManagedObject)
                #expect(book.value(forKey: "writer") as? NSManagedObject === author)
            }
        }
    }

    /// Tag label → titles of its books in primary-key order, read from a version-1 store.
    static func fetchPairs(_ url: URL) throws -> [String: [String]] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try version1())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var result: [String: [String]] = [:]
            for tag in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")) {
                let books = (tag.value(forKey: "tagged") as? Set<NSManagedObject> ?? []).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
                result[tag.value(forKey: "label") as? String ?? ""] = books.compactMap { $0.value(forKey: "title") as? String }
            }
            return result
        }
    }
}
