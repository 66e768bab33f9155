import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Issue 37: opening a store checks that every table and column its model maps to exists, and
/// refuses one that lacks any with `NSPersistentStoreIncompatibleSchemaError` naming them.
@Suite("SQLite schema check at open")
struct SchemaCheckTests {
    static func execute(_ sql: String, at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.write { db in try db.execute(sql: sql) }
    }

    /// The error `addPersistentStore` throws for the to-do model, or nil when the store opens.
    static func openError(_ url: URL, model: NSManagedObjectModel = TestModels.todoModel(), options: [AnyHashable: Any]? = nil) -> NSError? {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        do {
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
            try coordinator.remove(store)
            return nil
        } catch {
            return error as NSError
        }
    }

    static var readOnly: [AnyHashable: Any] { [NSReadOnlyPersistentStoreOption: true] }
    static var ignoringHashes: [AnyHashable: Any] { [NSReadOnlyPersistentStoreOption: true, OCDReadOnlyIgnoringVersionHashesOption: true] }

    @Test("A missing attribute column is refused at open, read-write and read-only, naming entity, property, table and column",
          arguments: ["read-write", "read-only", "ignoring hashes"])
    func missingColumn(mode: String) throws {
        let options: [AnyHashable: Any]? = ["read-only": Self.readOnly, "ignoring hashes": Self.ignoringHashes][mode]
        let url = try HardeningStores.todoStore(rows: 3)
        try Self.execute("ALTER TABLE ZTODOENTITY DROP COLUMN ZTITLE", at: url)
        let before = try StoreFolderSnapshot(of: url)
        let error = try #require(Self.openError(url, options: options))
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreIncompatibleSchemaError, "\(error)")
        #expect(error.localizedDescription.contains("no column ZTITLE in table ZTODOENTITY for the attribute 'title' of entity 'TodoEntity'"), "\(error.localizedDescription)")
        #expect(error.userInfo["entity"] as? String == "TodoEntity")
        #expect(error.userInfo["property"] as? String == "title")
        #expect(error.userInfo["table"] as? String == "ZTODOENTITY")
        #expect(error.userInfo["column"] as? String == "ZTITLE")
        #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
        let after = try StoreFolderSnapshot(of: url)
        #expect(after == before, "the refused open changed nothing")
    }

    @Test("A missing foreign-key column names the relationship")
    func missingForeignKey() throws {
        let url = try HardeningStores.todoStore(rows: 3)
        try Self.execute("DROP INDEX IF EXISTS ZTODOENTITY_ZLOCATION_INDEX; ALTER TABLE ZTODOENTITY DROP COLUMN ZLOCATION", at: url)
        let error = try #require(Self.openError(url))
        #expect(error.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error.localizedDescription.contains("no column ZLOCATION in table ZTODOENTITY for the relationship 'location' of entity 'TodoEntity'"), "\(error.localizedDescription)")
    }

    @Test("A missing owner column of a to-many without an inverse (Apple's layout) names the relationship")
    func missingOwnerColumn() throws {
        let url = try NoInverseStores.appleStore()
        try Self.execute("DROP INDEX IF EXISTS ZINGREDIENT_Z1SPEC_INDEX; ALTER TABLE ZINGREDIENT DROP COLUMN Z1SPEC", at: url)
        let error = try #require(Self.openError(url, model: NoInverseStores.model()))
        #expect(error.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error.localizedDescription.contains("Z1SPEC") && error.localizedDescription.contains("'spec'"), "\(error.localizedDescription)")
    }

    @Test("A missing entity table and a missing join table are refused, naming the entity and the relationship")
    func missingTables() throws {
        let url = try HardeningStores.todoStore(rows: 3)
        try Self.execute("DROP TABLE ZLOCATIONENTITY", at: url)
        let error = try #require(Self.openError(url, options: Self.readOnly))
        #expect(error.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error.localizedDescription.contains("no table ZLOCATIONENTITY for entity 'LocationEntity'"), "\(error.localizedDescription)")
        #expect(error.userInfo["entity"] as? String == "LocationEntity" && error.userInfo["table"] as? String == "ZLOCATIONENTITY")

        let joined = try HardeningStores.todoStore(rows: 3)
        let join = try FailedReadTests.joinTable()
        try Self.execute("DROP TABLE \(join.name)", at: joined)
        let joinError = try #require(Self.openError(joined))
        #expect(joinError.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(joinError.localizedDescription.contains("no table \(join.name) for the relationship '\(join.relationship)' of entity '\(join.entity)'"),
                "\(joinError.localizedDescription)")
        #expect(joinError.userInfo["property"] as? String == join.relationship)
    }

    @Test("Every mismatch is listed, the first named in userInfo")
    func severalMismatches() throws {
        let url = try HardeningStores.todoStore(rows: 3)
        try Self.execute("ALTER TABLE ZTODOENTITY DROP COLUMN ZTITLE; ALTER TABLE ZTAGENTITY DROP COLUMN ZNAME", at: url)
        let error = try #require(Self.openError(url))
        let mismatches = try #require(error.userInfo["mismatches"] as? [String])
        #expect(mismatches.count == 2, "\(mismatches)")
        #expect(mismatches.contains { $0.contains("ZNAME") } && mismatches.contains { $0.contains("ZTITLE") })
    }

    @Test("A NOT NULL column without a default that no property fills refuses a writable open; a read-only open reads the store")
    func unfilledColumn() throws {
        let url = try HardeningStores.todoStore(rows: 3)
        try Self.execute("ALTER TABLE ZTAGENTITY ADD COLUMN ZEXTRA INTEGER NOT NULL DEFAULT 0", at: url)
        // With a default, inserts fill it: nothing to refuse.
        #expect(Self.openError(url) == nil)
        let strict = try HardeningStores.todoStore(rows: 3)
        // SQLite adds NOT NULL columns only with a default: the table is rebuilt without one.
        try Self.execute("""
            CREATE TABLE T AS SELECT * FROM ZTAGENTITY; DROP TABLE ZTAGENTITY;
            CREATE TABLE ZTAGENTITY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZTAGID BLOB, ZEXTRA INTEGER NOT NULL);
            INSERT INTO ZTAGENTITY SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZTAGID, 0 FROM T; DROP TABLE T
            """, at: strict)
        let error = try #require(Self.openError(strict))
        #expect(error.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error.localizedDescription.contains("NOT NULL column ZEXTRA"), "\(error.localizedDescription)")
        #expect(Self.openError(strict, options: Self.readOnly) == nil)
    }

    @Test("Apple's extra tables and columns the model does not map are fine; a store we create passes its own check")
    func extraTablesAndColumns() throws {
        let url = try HardeningStores.todoStore(rows: 3)
        try Self.execute("CREATE TABLE ZOTHER (Z_PK INTEGER PRIMARY KEY, ZX VARCHAR); ALTER TABLE ZTODOENTITY ADD COLUMN ZLEFTOVER VARCHAR", at: url)
        #expect(Self.openError(url) == nil)
        #expect(Self.openError(url, options: Self.readOnly) == nil)
    }

    @Test("A store whose version hashes differ migrates as before when migration is asked for; without it the error stays 134100")
    func migrationStillRuns() throws {
        let url = try HardeningStores.todoStore(rows: 3)
        let newer = TestModels.todoModel()
        let todo = try #require(newer.entitiesByName["TodoEntity"])
        todo.properties += [TestModels.attribute("notes", .stringAttributeType)]
        let refused = try #require(Self.openError(url, model: newer))
        #expect(refused.code == NSPersistentStoreIncompatibleVersionHashError)
        let migrate: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        #expect(Self.openError(url, model: newer, options: migrate) == nil)
        // Migrated: the column is there now, and the store opens without options.
        #expect(Self.openError(url, model: newer) == nil)
    }
}
