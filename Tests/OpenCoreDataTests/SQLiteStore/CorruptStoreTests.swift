import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Values in a store file that are not what Core Data wrote: an NSError where Apple reports
/// one (259 at open, `NSSQLiteError` 134180 at save), never a trap.
@Suite("SQLite corrupt store values")
struct CorruptStoreTests {
    /// The code of the Cocoa error `body` throws; nil when it does not throw.
    static func errorCode(_ body: () throws -> Void) -> Int? {
        do {
            try body()
            return nil
        } catch let error as NSError {
            return error.domain == NSCocoaErrorDomain ? error.code : -1
        }
    }

    @Test("Z_METADATA.Z_PLIST holding a non-blob: metadataForPersistentStore and open throw 259", arguments: ["42", "'text'", "1.5"])
    func metadataNotABlob(value: String) throws {
        let url = try HardeningStores.todoStore()
        try HardeningStores.damage(url, "UPDATE Z_METADATA SET Z_PLIST = \(value)")
        #expect { try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url) } throws: { error in
            (error as NSError).code == CocoaError.Code.fileReadCorruptFile.rawValue
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todoModel())
        #expect { try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true]) } throws: { error in
            (error as NSError).code == CocoaError.Code.fileReadCorruptFile.rawValue
        }
    }

    @Test("Z_PRIMARYKEY.Z_NAME with invalid UTF-8 and a negative Z_ENT: open throws 259 naming the column")
    func primaryKeyTable() throws {
        for sql in ["UPDATE Z_PRIMARYKEY SET Z_NAME = CAST(x'c328' AS TEXT) WHERE Z_ENT = 2", "UPDATE Z_PRIMARYKEY SET Z_ENT = -1 WHERE Z_ENT = 3"] {
            let url = try HardeningStores.todoStore()
            try HardeningStores.damage(url, sql)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todoModel())
            #expect { try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil) } throws: { error in
                let error = error as NSError
                return error.code == CocoaError.Code.fileReadCorruptFile.rawValue && error.localizedDescription.contains("Z_PRIMARYKEY")
            }
        }
    }

    // Issue 37: such a row used to be skipped with a log line, which showed data loss as
    // absence; it is an error now (259), not a trap and not a shorter result.
    @Test("A row whose Z_ENT is negative or unknown fails a fetch with 259, not a trap and not a skipped row")
    func rowWithBadEntityNumber() throws {
        let url = try HardeningStores.todoStore()
        try HardeningStores.damage(url, "UPDATE ZTODOENTITY SET Z_ENT = -7 WHERE Z_PK = 1; UPDATE ZTODOENTITY SET Z_ENT = 9999999999 WHERE Z_PK = 2")
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        context.performAndWait {
            let code = Self.errorCode { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) }
            #expect(code == CocoaError.Code.fileReadCorruptFile.rawValue)
        }
    }

    @Test("Z_PRIMARYKEY.Z_MAX at Int64.max, negative or not an integer: the save throws NSSQLiteError (134180), writes nothing and keeps the changes",
          arguments: ["9223372036854775807", "-5", "'many'", "1.5"])
    func keyCounter(value: String) throws {
        let url = try HardeningStores.todoStore()
        try HardeningStores.damage(url, "UPDATE Z_PRIMARYKEY SET Z_MAX = \(value) WHERE Z_NAME = 'TodoEntity'")
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("one more", forKey: "title")
            let saveCode = Self.errorCode { try context.save() }
            #expect(saveCode == NSSQLiteError)
            #expect(todo.isInserted && context.hasChanges)
            let allocationCode = Self.errorCode { _ = try context.obtainPermanentIDs(for: [todo]) }
            #expect(allocationCode == NSSQLiteError)
        }
        // A fresh context: the first one counts its pending insert.
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
        let stored = try fresh.performAndWait { try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) }
        #expect(stored == 30, "nothing was saved")
    }

    @Test("Z_MAX one below Int64.max: the last key is handed out, the next save fails cleanly")
    func lastKey() throws {
        let url = try HardeningStores.todoStore()
        try HardeningStores.damage(url, "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775806 WHERE Z_NAME = 'TodoEntity'")
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try context.performAndWait {
            let last = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            last.setValue("last", forKey: "title")
            try context.save()
            #expect(context.persistentStoreCoordinator!.persistentStores.first.map { _ in last.objectID.primaryKey } == Int64.max)
            let more = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            more.setValue("more", forKey: "title")
            let saveCode = Self.errorCode { try context.save() }
            #expect(saveCode == NSSQLiteError)
        }
    }

    @Test("Attribute and key columns holding another type than Core Data writes read without a trap", arguments: [
        "UPDATE ZTODOENTITY SET ZPRIORITY = 'high', ZUPDATEDAT = x'00ff', ZTODOID = 'not-a-uuid', ZDONE = 2.5",
        "UPDATE ZTODOENTITY SET ZTITLE = CAST(x'ff00fe' AS TEXT), ZLOCATION = 'x', Z_OPT = 'v'",
        "UPDATE ZTODOENTITY SET ZPRIORITY = 9223372036854775807, ZUPDATEDAT = 1e308, ZLOCATION = -1",
        "UPDATE Z_2TODOS SET Z_2TAGS = 'x', Z_3TODOS = NULL",
    ])
    func mismatchedColumns(sql: String) throws {
        let url = try HardeningStores.todoStore()
        try HardeningStores.damage(url, sql)
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        let errors = CorruptStoreFuzzTests.exercise(context, model: TestModels.todoModel(), save: true)
        #expect(errors.allSatisfy { $0.domain == NSCocoaErrorDomain }, "\(errors)")
    }
}
