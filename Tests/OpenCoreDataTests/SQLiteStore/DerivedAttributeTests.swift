import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Derived attributes computed in SQL by Apple-named triggers (issue #16, Must 7): Apple's
/// `NSDerivedAttributeDescription` docs say the value is "recomputed during save", unsaved
/// changes are reflected "after a save and refresh", and adding a store whose model has a
/// derivation the store cannot compute fails.
@Suite("Derived attributes in SQL")
struct SQLDerivedAttributeTests {
    typealias M = TestModels

    // MARK: - Model

    static func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
        let attribute = NSDerivedAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = true
        attribute.derivationExpression = NSExpression(format: format)
        return attribute
    }

    /// Author ↔ Book (writer), Book ↔ Page (one-to-many), Book ↔ Tag (many-to-many); Book
    /// derives one attribute of each supported form.
    static func model(extra: [NSDerivedAttributeDescription] = []) -> NSManagedObjectModel {
        let author = M.entity("Author", [M.attribute("name", .stringAttributeType)])
        let book = M.entity("Book", [M.attribute("title", .stringAttributeType)])
        let page = M.entity("Page", [M.attribute("number", .integer64AttributeType)])
        let tag = M.entity("Tag", [M.attribute("label", .stringAttributeType)])
        let books = M.relationship("books", to: book, toMany: true)
        let writer = M.relationship("writer", to: author, toMany: false)
        M.inverse(books, writer)
        let pages = M.relationship("pages", to: page, toMany: true)
        let owner = M.relationship("book", to: book, toMany: false)
        M.inverse(pages, owner)
        let tags = M.relationship("tags", to: tag, toMany: true)
        let tagged = M.relationship("books", to: book, toMany: true)
        M.inverse(tags, tagged)
        author.properties += [books]
        book.properties += [pages, writer, tags,
                            derived("pagesCount", .integer64AttributeType, "pages.@count"),
                            derived("pagesTotal", .integer64AttributeType, "pages.@sum.number"),
                            derived("writerName", .stringAttributeType, "writer.name"),
                            derived("searchTitle", .stringAttributeType, "canonical:(title)"),
                            derived("lowerTitle", .stringAttributeType, "lowercase:(title)"),
                            derived("upperTitle", .stringAttributeType, "uppercase:(title)"),
                            derived("sameTitle", .stringAttributeType, "title"),
                            derived("savedAt", .dateAttributeType, "now()"),
                            derived("tagCount", .integer64AttributeType, "tags.@count"),
                            // The function forms Apple's compiled models archive.
                            derived("pagesCountFunction", .integer64AttributeType, "count:(pages)"),
                            derived("pagesTotalFunction", .integer64AttributeType, "sum:(pages.number)")] + extra
        page.properties += [owner]
        tag.properties += [tagged]
        let model = NSManagedObjectModel()
        model.entities = [author, book, page, tag]
        return model
    }

    static let shared = model()

    // MARK: - Helpers

    static func context(_ url: URL) throws -> NSManagedObjectContext {
        try M.sqliteContext(shared, url: url)
    }

    static func insert(_ entity: String, _ context: NSManagedObjectContext, _ values: [String: Any] = [:]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// The value after `refresh(_:mergeChanges: false)`, as read from the store.
    static func refreshed(_ object: NSManagedObject, _ key: String) -> Any? {
        object.managedObjectContext?.refresh(object, mergeChanges: false)
        return object.value(forKey: key)
    }

    static func count(_ object: NSManagedObject, _ key: String = "pagesCount") -> Int? {
        refreshed(object, key) as? Int
    }

    /// One value read with SQL on a connection of its own.
    static func column(_ url: URL, _ sql: String) throws -> DatabaseValue? {
        let queue = try DatabaseQueue(path: url.path, configuration: SQLiteStoreOptions(nil).configuration(label: "test"))
        defer { try? queue.close() }
        return try queue.read { db in try DatabaseValue.fetchOne(db, sql: sql) }
    }

    /// Trigger name → SQL of a store file.
    static func triggers(_ url: URL) throws -> [String: String] {
        let queue = try DatabaseQueue(path: url.path, configuration: SQLiteStoreOptions(nil).configuration(label: "test"))
        defer { try? queue.close() }
        return try queue.read { db in
            var result: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'") {
                result[row["name"]] = row["sql"]
            }
            return result
        }
    }

    // MARK: - Trigger names

    @Test("A new store gets Apple's five @count triggers, with Apple's names and, where a fixture shows them, Apple's SQL")
    func countTriggersAsApple() throws {
        let url = TestStoreFiles.newStoreURL()
        _ = try Self.context(url)
        let ours = try Self.triggers(url)
        let names = ours.keys.filter { $0.contains("_pagesCount_") }.sorted()
        #expect(names == ["Z_DA_ZBOOK_Book_pagesCount_SOURCE_INSERT",
                          "Z_DA_ZPAGE_Book_pagesCount_PARAMETER_DELETE",
                          "Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT",
                          "Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_DECREMENT",
                          "Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_INCREMENT"])
        #expect(ours.keys.contains("Z_DA_ZBOOK_Book_searchTitle_SOURCE_UPDATE"))
        #expect(ours.keys.contains("Z_DA_ZAUTHOR_Book_writerName_PARAMETER_UPDATE"))
        #expect(ours.keys.contains("Z_DA_Z_2TAGS_Book_tagCount_PARAMETER_INSERT"))
        guard Fixtures.enabled else { return }
        // SampleModel2's Book.pagesCount = pages.@count over Page.book, as in our model.
        let apple = try Self.triggers(Fixtures.copy(Fixtures.store("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite")))
        for name in names {
            #expect(ours[name] == apple[name], "\(name)")
        }
    }

    @Test("Golden SQL: a key path through a to-one and canonical: are kept by SQL, reporting rows as Apple's triggers do")
    func goldenTriggers() {
        let model = Self.model()
        model.freeze()
        let statements = SQLStoreSchema(model: model).derivedAttributeTriggerStatements(in: SQLiteDialect())
        #expect(statements.contains(
            "CREATE TRIGGER Z_DA_ZBOOK_Book_searchTitle_SOURCE_UPDATE AFTER UPDATE OF ZTITLE ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZSEARCHTITLE = OCD_CANONICAL(NEW.ZTITLE) WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'searchTitle', ZSEARCHTITLE) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END"))
        #expect(statements.contains(
            "CREATE TRIGGER Z_DA_ZAUTHOR_Book_writerName_PARAMETER_UPDATE AFTER UPDATE OF ZNAME ON ZAUTHOR FOR EACH ROW BEGIN UPDATE ZBOOK SET ZWRITERNAME = NEW.ZNAME WHERE ZWRITER = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'writerName', ZWRITERNAME) FROM ZBOOK WHERE ZWRITER = NEW.Z_PK; END"))
        #expect(statements.contains(
            "CREATE TRIGGER Z_DA_ZBOOK_Book_writerName_SOURCE_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZWRITERNAME = (SELECT u.ZNAME FROM ZAUTHOR AS u WHERE u.Z_PK = NEW.ZWRITER) WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'writerName', ZWRITERNAME) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END"))
    }

    // MARK: - @count and @sum

    @Test("@count follows inserts, reassignments and deletes of children after save and refresh; before save the old value stays")
    func countThroughChanges() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.context(url)
        try context.performAndWait {
            let book = Self.insert("Book", context, ["title": "One"])
            let other = Self.insert("Book", context, ["title": "Two"])
            let pages = (1...3).map { Self.insert("Page", context, ["number": Int64($0), "book": book]) }
            try context.save()
            #expect(Self.count(book) == 3)
            #expect(Self.count(other) == 0)

            let added = Self.insert("Page", context, ["number": Int64(4), "book": book])
            #expect(book.value(forKey: "pagesCount") as? Int == 3, "unsaved changes are not reflected before save")
            try context.save()
            #expect(Self.count(book) == 4)

            added.setValue(other, forKey: "book")
            try context.save()
            #expect(Self.count(book) == 3)
            #expect(Self.count(other) == 1)

            context.delete(pages[0])
            try context.save()
            #expect(Self.count(book) == 2)
            let key = book.objectID.primaryKey
            #expect(try Self.column(url, "SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = \(key)") == 2.databaseValue,
                    "the column itself holds the count SQL computed")
        }
    }

    @Test("@sum follows children's values, reassignments and deletes")
    func sumThroughChanges() throws {
        let context = try Self.context(TestStoreFiles.newStoreURL())
        try context.performAndWait {
            let book = Self.insert("Book", context)
            let other = Self.insert("Book", context)
            let pages = [1, 2, 3].map { Self.insert("Page", context, ["number": Int64($0), "book": book]) }
            try context.save()
            #expect(Self.count(book, "pagesTotal") == 6)
            pages[2].setValue(Int64(10), forKey: "number")
            try context.save()
            #expect(Self.count(book, "pagesTotal") == 13)
            pages[1].setValue(other, forKey: "book")
            try context.save()
            #expect(Self.count(book, "pagesTotal") == 11)
            #expect(Self.count(other, "pagesTotal") == 2)
            context.delete(pages[0])
            try context.save()
            #expect(Self.count(book, "pagesTotal") == 10)
            #expect(Self.count(book, "pagesTotalFunction") == 10)
            #expect(Self.count(book, "pagesCountFunction") == 1)
        }
    }

    @Test("@count of a many-to-many follows members added and removed, and a deleted member")
    func manyToManyCount() throws {
        let context = try Self.context(TestStoreFiles.newStoreURL())
        try context.performAndWait {
            let book = Self.insert("Book", context)
            let tags = ["a", "b", "c"].map { Self.insert("Tag", context, ["label": $0]) }
            book.setValue(Set(tags), forKey: "tags")
            try context.save()
            #expect(Self.count(book, "tagCount") == 3)
            book.setValue(Set(tags.prefix(2)), forKey: "tags")
            try context.save()
            #expect(Self.count(book, "tagCount") == 2)
            context.delete(tags[0])
            try context.save()
            #expect(Self.count(book, "tagCount") == 1)
        }
    }

    // MARK: - Key paths

    @Test("A to-one key path follows a change of the related object's attribute (after save and refresh) and a reassignment")
    func toOneKeyPath() throws {
        let context = try Self.context(TestStoreFiles.newStoreURL())
        try context.performAndWait {
            let ann = Self.insert("Author", context, ["name": "Ann"])
            let cy = Self.insert("Author", context, ["name": "Cy"])
            let book = Self.insert("Book", context, ["writer": ann])
            try context.save()
            #expect(Self.refreshed(book, "writerName") as? String == "Ann")

            ann.setValue("Bea", forKey: "name")
            try context.save()
            #expect(book.value(forKey: "writerName") as? String == "Ann", "the book was not saved nor refreshed")
            #expect(Self.refreshed(book, "writerName") as? String == "Bea")

            book.setValue(cy, forKey: "writer")
            try context.save()
            #expect(Self.refreshed(book, "writerName") as? String == "Cy")

            context.delete(cy)
            try context.save()
            #expect(Self.refreshed(book, "writerName") == nil)
        }
    }

    @Test("A plain key path, lowercase:, uppercase: and canonical: (case- and diacritic-insensitive) follow the attribute")
    func stringFunctions() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.context(url)
        try context.performAndWait {
            let book = Self.insert("Book", context, ["title": "Éclair Au Chocolat"])
            try context.save()
            #expect(Self.refreshed(book, "searchTitle") as? String == "eclair au chocolat")
            #expect(Self.refreshed(book, "lowerTitle") as? String == "éclair au chocolat")
            #expect(Self.refreshed(book, "upperTitle") as? String == "ÉCLAIR AU CHOCOLAT")
            #expect(Self.refreshed(book, "sameTitle") as? String == "Éclair Au Chocolat")
            book.setValue("Crème Brûlée", forKey: "title")
            try context.save()
            #expect(Self.refreshed(book, "searchTitle") as? String == "creme brulee")
            #expect(Self.refreshed(book, "sameTitle") as? String == "Crème Brûlée")
            #expect(try Self.column(url, "SELECT ZSEARCHTITLE FROM ZBOOK") == "creme brulee".databaseValue)
        }
    }

    @Test("now() is set to the time of the save that inserted the row, and again by a save that updates it")
    func nowAtSave() throws {
        let context = try Self.context(TestStoreFiles.newStoreURL())
        try context.performAndWait {
            let before = Date()
            let book = Self.insert("Book", context, ["title": "A"])
            #expect(book.value(forKey: "savedAt") == nil, "not computed before the save")
            try context.save()
            let after = Date()
            let saved = try #require(Self.refreshed(book, "savedAt") as? Date)
            #expect(saved >= before.addingTimeInterval(-1) && saved <= after.addingTimeInterval(1))
            book.setValue("B", forKey: "title")
            try context.save()
            let updated = try #require(Self.refreshed(book, "savedAt") as? Date)
            #expect(updated >= saved)
            #expect(updated >= after.addingTimeInterval(-1))
        }
    }

    @Test("A subentity's derived attribute is computed for its rows only, in the table it shares with its siblings")
    func subentityOnly() throws {
        let item = M.entity("Item", [M.attribute("name", .stringAttributeType)])
        let gadget = M.entity("Gadget", [Self.derived("loudName", .stringAttributeType, "uppercase:(name)")])
        let widget = M.entity("Widget", [M.attribute("size", .integer32AttributeType)])
        item.subentities = [gadget, widget]
        let model = NSManagedObjectModel()
        model.entities = [item, gadget, widget]
        let url = TestStoreFiles.newStoreURL()
        let context = try M.sqliteContext(model, url: url)
        try context.performAndWait {
            _ = Self.insert("Gadget", context, ["name": "quiet"])
            _ = Self.insert("Widget", context, ["name": "small"])
            try context.save()
        }
        #expect(try Self.column(url, "SELECT ZLOUDNAME FROM ZITEM WHERE ZNAME = 'quiet'") == "QUIET".databaseValue)
        #expect(try Self.column(url, "SELECT ZLOUDNAME FROM ZITEM WHERE ZNAME = 'small'") == .null)
        #expect(try Self.triggers(url)["Z_DA_ZITEM_Gadget_loudName_SOURCE_INSERT"]?.contains("WHEN (NEW.Z_ENT IN (") == true)
    }

    // MARK: - Other connections

    @Test("A write from a second coordinator (another connection) updates the value; predicates and sorts on it run in SQL")
    func otherConnection() throws {
        let url = TestStoreFiles.newStoreURL()
        let first = try Self.context(url)
        let ids = try first.performAndWait {
            let books = ["A", "B", "C"].map { Self.insert("Book", first, ["title": $0]) }
            for (index, book) in books.enumerated() {
                for number in 0..<index { _ = Self.insert("Page", first, ["number": Int64(number), "book": book]) }
            }
            try first.save()
            return books.map(\.objectID)
        }
        let second = try Self.context(url)
        try second.performAndWait {
            let book = try second.existingObject(with: ids[0])
            for number in 0..<5 { _ = Self.insert("Page", second, ["number": Int64(number), "book": book]) }
            try second.save()
        }
        try first.performAndWait {
            let bookA = try first.existingObject(with: ids[0])
            // A's object still holds 0; the predicate reads the column SQL updated.
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "pagesCount == 5")
            #expect(try first.fetch(request).map(\.objectID) == [ids[0]])
            request.predicate = NSPredicate(format: "searchTitle BEGINSWITH 'b'")
            #expect(try first.fetch(request).map(\.objectID) == [ids[1]])
            let sorted = NSFetchRequest<NSManagedObject>(entityName: "Book")
            sorted.sortDescriptors = [NSSortDescriptor(key: "pagesCount", ascending: false)]
            #expect(try first.fetch(sorted).map(\.objectID) == [ids[0], ids[2], ids[1]])
            #expect(Self.count(bookA) == 5)
        }
    }

    // MARK: - Read-only, unsupported

    @Test("Setting a derived attribute is a programmer error (Core Data computes it)")
    func settingStops() async {
        await #expect(processExitsWith: .failure) {
            let context = try TestModels.inMemoryContext(SQLDerivedAttributeTests.model())
            context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue(3, forKey: "pagesCount")
            }
        }
    }

    @Test("Adding a store whose model derives what SQL cannot fails with NSPersistentStoreIncompatibleSchemaError (134020) and writes no file",
          arguments: ["pages.@avg.number", "writer.books.@count", "sqrt:(pagesTotal)", "writer"])
    func unsupportedDerivation(format: String) throws {
        let model = Self.model(extra: [Self.derived("odd", .doubleAttributeType, format)])
        let url = TestStoreFiles.newStoreURL()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = try #require(throws: (any Error).self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } as NSError
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error.userInfo["property"] as? String == "odd")
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("A store written without derived-attribute triggers gets them, and its values, when opened for writing")
    func triggersAddedOnOpen() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try Self.context(url)
        let id = try context.performAndWait {
            let book = Self.insert("Book", context, ["title": "Éclair"])
            for number in 1...3 { _ = Self.insert("Page", context, ["number": Int64(number), "book": book]) }
            try context.save()
            return book.objectID
        }
        try context.persistentStoreCoordinator?.persistentStores.forEach { try context.persistentStoreCoordinator?.remove($0) }
        // As OpenCoreData wrote stores before it computed derived attributes in SQL.
        let queue = try DatabaseQueue(path: url.path, configuration: SQLiteStoreOptions(nil).configuration(label: "test"))
        try queue.write { db in
            for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
                try db.execute(sql: "DROP TRIGGER \(name)")
            }
            try db.execute(sql: "UPDATE ZBOOK SET ZPAGESCOUNT = NULL, ZSEARCHTITLE = NULL")
        }
        try queue.close()
        let reopened = try Self.context(url)
        #expect(try Self.triggers(url).keys.contains("Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT"))
        try reopened.performAndWait {
            let book = try reopened.existingObject(with: id)
            #expect(book.value(forKey: "pagesCount") as? Int == 3)
            #expect(book.value(forKey: "searchTitle") as? String == "eclair")
            _ = Self.insert("Page", reopened, ["number": Int64(4), "book": book])
            try reopened.save()
            #expect(Self.count(book) == 4)
        }
    }

    // MARK: - Migration

    /// Version 1 of the migration suite with derived attributes added to Author and Book.
    static func withDerived(_ model: NSManagedObjectModel) {
        let author = model.entitiesByName["Author"]!, book = model.entitiesByName["Book"]!
        author.properties += [derived("bookCount", .integer64AttributeType, "books.@count")]
        book.properties += [derived("writerName", .stringAttributeType, "writer.name"),
                            derived("tagCount", .integer64AttributeType, "tags.@count")]
    }

    @Test("Lightweight migration to a model with derived attributes fills them and creates their triggers; a later migration drops them")
    func migration() throws {
        let url = TestStoreFiles.newStoreURL()
        try InferredMigrationTests.populate(url)
        let context = try InferredMigrationTests.open(url, InferredMigrationTests.version2(Self.withDerived))
        try context.performAndWait {
            let authors = try InferredMigrationTests.fetch(context, "Author", sortedBy: "name")
            #expect(authors.map { $0.value(forKey: "bookCount") as? Int } == [2, 2, 2])
            let books = try InferredMigrationTests.fetch(context, "Book", sortedBy: "title")
            #expect(books.map { $0.value(forKey: "writerName") as? String } == ["A0", "A0", "A1", "A1", "A2", "A2"])
            #expect(books.map { $0.value(forKey: "tagCount") as? Int } == Array(repeating: 1, count: 6))
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue(authors[0], forKey: "writer")
            try context.save()
            #expect(Self.count(authors[0], "bookCount") == 3)
        }
        #expect(try Self.triggers(url).keys.contains("Z_DA_ZBOOK_Author_bookCount_PARAMETER_INSERT"))
        try context.persistentStoreCoordinator?.persistentStores.forEach { try context.persistentStoreCoordinator?.remove($0) }

        // Version 3: the derived attributes are gone again, and so are their triggers.
        let version3 = try InferredMigrationTests.version2 { model in
            model.entitiesByName["Author"]!.properties += [M.attribute("born", .integer32AttributeType)]
        }
        let again = try InferredMigrationTests.open(url, version3)
        #expect(try Self.triggers(url).keys.filter { $0.hasPrefix("Z_DA_") }.isEmpty)
        try again.performAndWait {
            let author = try #require(try InferredMigrationTests.fetch(again, "Author", sortedBy: "name").first)
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: again)
            book.setValue(author, forKey: "writer")
            try again.save()
            #expect((author.value(forKey: "books") as? Set<NSManagedObject>)?.count == 4)
        }
    }
}
