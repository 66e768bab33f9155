import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Issue 37: a read that fails is an error, never values. A fetch whose rows cannot be read
/// throws; a fault that cannot be fulfilled stays a fault with no values, and its error is
/// thrown by the context's next fetch, count or save; a row that is gone still becomes an
/// inaccessible object, as before.
@Suite("Reads that fail are errors")
struct FailedReadTests {
    /// A store of the to-do model, a context on a fresh coordinator (nothing cached), and the
    /// IDs of its todos in title order.
    static func openedStore(rows: Int = 4) throws -> (url: URL, context: NSManagedObjectContext, ids: [NSManagedObjectID]) {
        let url = try HardeningStores.todoStore(rows: rows)
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        let ids = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "TodoEntity")
            request.resultType = .managedObjectIDResultType
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try context.fetch(request)
        }
        return (url, context, ids)
    }

    /// Changes the store through a second connection, behind the coordinator's back.
    static func execute(_ sql: String, at url: URL) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        try queue.write { db in try db.execute(sql: sql) }
    }

    /// The to-do model's join table, numbered as a coordinator numbers the model's entities:
    /// its name, its owner relationship's and that relationship's entity's (names only: the
    /// model is gone when this returns).
    static func joinTable() throws -> (name: String, relationship: String, entity: String) {
        let model = TestModels.todoModel()
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        let join = try #require(SQLStoreSchema(model: model).joinTables.first)
        return (join.name, join.owner.name, join.owner.entity?.name ?? "")
    }

    static func cocoaError(_ body: () throws -> Void) -> NSError? {
        do {
            try body()
            return nil
        } catch {
            return error as NSError
        }
    }

    // MARK: - Fetches

    @Test("A fetch whose rows hold a value that does not decode throws 259 naming entity, attribute, column and row",
          arguments: ["ZPRIORITY = 'high'", "ZUPDATEDAT = x'00ff'", "ZTODOID = 'not-a-uuid'", "ZPRIORITY = 1e300", "ZLOCATION = 'x'"])
    func undecodableValue(assignment: String) throws {
        let url = try HardeningStores.todoStore(rows: 3)
        try Self.execute("UPDATE ZTODOENTITY SET \(assignment) WHERE Z_PK = 2", at: url)
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try context.performAndWait {
            let error = try #require(Self.cocoaError { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) })
            #expect(error.domain == NSCocoaErrorDomain && error.code == CocoaError.Code.fileReadCorruptFile.rawValue, "\(error)")
            let column = String(assignment.prefix { $0 != " " })
            #expect(error.localizedDescription.contains("entity 'TodoEntity'") && error.localizedDescription.contains(column)
                    && error.localizedDescription.contains("Z_PK 2"), "\(error.localizedDescription)")
            // Dictionaries read the same values: they fail the same way.
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
            dictionaries.resultType = .dictionaryResultType
            if let attribute = ["ZPRIORITY": "priority", "ZUPDATEDAT": "updatedAt", "ZTODOID": "todoId"][column] {
                dictionaries.propertiesToFetch = [attribute]
                #expect(Self.cocoaError { _ = try context.fetch(dictionaries) }?.code == CocoaError.Code.fileReadCorruptFile.rawValue)
            }
        }
    }

    @Test("A row whose Z_ENT names no entity of the model fails the fetch; it is not skipped")
    func unknownEntityNumber() throws {
        let url = try HardeningStores.todoStore(rows: 3)
        try Self.execute("UPDATE ZTODOENTITY SET Z_ENT = -1 WHERE Z_PK = 2", at: url)
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try context.performAndWait {
            let error = try #require(Self.cocoaError { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) })
            #expect(error.code == CocoaError.Code.fileReadCorruptFile.rawValue)
            #expect(error.localizedDescription.contains("Z_ENT -1") && error.localizedDescription.contains("ZTODOENTITY"), "\(error.localizedDescription)")
        }
    }

    // MARK: - Faults

    @Test("A fault whose row holds a value that does not decode stays a fault with no values; the next fetch and save throw")
    func undecodableFault() throws {
        let (url, context, ids) = try Self.openedStore()
        try Self.execute("UPDATE ZTODOENTITY SET ZPRIORITY = 'high' WHERE Z_PK = \(ids[1].primaryKey)", at: url)
        try context.performAndWait {
            let todo = context.object(with: ids[1])
            #expect(todo.value(forKey: "title") == nil)
            // Not the model's default (done's default is false), not a fired object.
            #expect(todo.value(forKey: "done") == nil)
            #expect(todo.isFault)
            #expect(context.readFailure(of: ids[1]) != nil)
            let fetchError = try #require(Self.cocoaError { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TagEntity")) })
            #expect(fetchError.code == CocoaError.Code.fileReadCorruptFile.rawValue)
            #expect(fetchError.localizedDescription.contains("could not fulfill a fault"), "\(fetchError.localizedDescription)")
            #expect((fetchError.userInfo[NSAffectedObjectsErrorKey] as? [NSManagedObjectID]) == [ids[1]])
            // Reported once; the next fetch runs.
            #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TagEntity")).count == 3)
            // A change to the unread object is never saved over the row.
            todo.setValue("changed", forKey: "title")
            #expect(Self.cocoaError { try context.save() } != nil)
            #expect(Self.cocoaError { try context.save() } != nil, "refused as long as the object is unread")
            // A typed read path throws.
            #expect(Self.cocoaError { _ = try context.existingObject(with: ids[1]) }?.code == CocoaError.Code.fileReadCorruptFile.rawValue)
            context.rollback()
            #expect(try context.save() == ())
        }
        // The row was not written.
        let titles = try DatabaseQueue(path: url.path).read { db in try String.fetchAll(db, sql: "SELECT ZTITLE FROM ZTODOENTITY WHERE Z_PK = ?", arguments: [ids[1].primaryKey]) }
        #expect(titles.count == 1 && titles[0] != "changed")
    }

    @Test("A fault whose column was dropped after the open (an SQL error) never reads values; it reads again once the store is whole")
    func sqlErrorDuringFault() throws {
        let (url, context, ids) = try Self.openedStore()
        try Self.execute("CREATE TABLE KEEP AS SELECT Z_PK, ZTITLE FROM ZTODOENTITY; ALTER TABLE ZTODOENTITY DROP COLUMN ZTITLE", at: url)
        try context.performAndWait {
            let todo = context.object(with: ids[0])
            #expect(todo.value(forKey: "priority") == nil)
            #expect(todo.isFault)
            let error = try #require(Self.cocoaError { _ = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TagEntity")) })
            #expect(error.code == NSSQLiteError, "\(error)")
            #expect(error.localizedDescription.contains("ZTITLE"), "\(error.localizedDescription)")
        }
        try Self.execute("ALTER TABLE ZTODOENTITY ADD COLUMN ZTITLE VARCHAR; UPDATE ZTODOENTITY SET ZTITLE = (SELECT ZTITLE FROM KEEP WHERE KEEP.Z_PK = ZTODOENTITY.Z_PK)", at: url)
        context.performAndWait {
            let todo = context.object(with: ids[0])
            #expect(todo.value(forKey: "title") as? String == "todo 0")
            #expect(!todo.isFault)
            #expect(context.readFailure(of: ids[0]) == nil)
        }
    }

    @Test("A relationship fault that cannot be read stays a fault: no destinations stored, the next fetch throws, a change is not saved")
    func relationshipFault() throws {
        let (url, context, ids) = try Self.openedStore()
        let join = try Self.joinTable()
        context.performAndWait {
            let todo = context.object(with: ids[0])
            #expect(todo.value(forKey: "title") as? String == "todo 0")
        }
        try Self.execute("DROP TABLE \(join.name)", at: url)
        context.performAndWait {
            let todo = context.object(with: ids[0])
            let tags = todo.value(forKey: "tags") as? NSSet
            #expect(tags?.count == 0)
            #expect(todo.hasFault(forRelationshipNamed: "tags"), "the relationship was not loaded as empty")
            #expect(context.readFailure(of: ids[0], relationship: "tags") != nil)
            #expect(Self.cocoaError { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "LocationEntity")) }?.code == NSSQLiteError)
            todo.setValue("changed", forKey: "title")
            #expect(Self.cocoaError { try context.save() } != nil)
        }
    }

    @Test("A fetch that fires faults (returnsObjectsAsFaults = false, prefetching) throws instead of returning objects without values")
    func prefetchingThrows() throws {
        let (url, context, _) = try Self.openedStore()
        let join = try Self.joinTable()
        try Self.execute("DROP TABLE \(join.name)", at: url)
        context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            request.relationshipKeyPathsForPrefetching = ["tags"]
            #expect(Self.cocoaError { _ = try context.fetch(request) }?.code == NSSQLiteError)
        }
    }

    @Test("A child context reading an object its parent cannot read gets the error, not empty values")
    func childContext() throws {
        let (url, parent, ids) = try Self.openedStore()
        try Self.execute("UPDATE ZTODOENTITY SET ZUPDATEDAT = x'00' WHERE Z_PK = \(ids[2].primaryKey)", at: url)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        child.performAndWait {
            let todo = child.object(with: ids[2])
            #expect(todo.value(forKey: "title") == nil)
            #expect(todo.isFault)
            #expect(Self.cocoaError { _ = try child.fetch(NSFetchRequest<NSManagedObject>(entityName: "TagEntity")) } != nil)
        }
    }

    @Test("A row that is gone still becomes an inaccessible object (shouldDeleteInaccessibleFaults), with no error")
    func rowGone() throws {
        let (url, context, ids) = try Self.openedStore()
        try Self.execute("DELETE FROM ZTODOENTITY WHERE Z_PK = \(ids[3].primaryKey)", at: url)
        try context.performAndWait {
            let todo = context.object(with: ids[3])
            #expect(todo.value(forKey: "title") == nil)
            #expect(!todo.isFault)
            #expect(context.readFailure(of: ids[3]) == nil)
            let count = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")).count
            #expect(count == 3)
            #expect(Self.cocoaError { _ = try context.existingObject(with: ids[3]) }?.code == NSManagedObjectReferentialIntegrityError)
        }
    }
}
