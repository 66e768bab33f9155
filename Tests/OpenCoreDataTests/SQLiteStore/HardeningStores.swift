import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Stores of the to-do model for the hardening tests.
enum HardeningStores {
    /// A closed to-do store with todos, tags and locations (WAL checkpointed, no companions).
    static func todoStore(rows: Int = 30) throws -> URL {
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: url)
        try context.performAndWait {
            try fill(context, rows: rows)
            for store in context.persistentStoreCoordinator!.persistentStores { try context.persistentStoreCoordinator!.remove(store) }
        }
        return url
    }

    /// Inserts `rows` todos with tags and locations and saves.
    static func fill(_ context: NSManagedObjectContext, rows: Int, prefix: String = "todo") throws {
        let tags = (0..<3).map { index -> NSManagedObject in
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            tag.setValue("\(prefix)-tag\(index)", forKey: "name")
            tag.setValue(UUID(), forKey: "tagId")
            return tag
        }
        let location = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
        location.setValue("\(prefix)-place", forKey: "placeName")
        location.setValue(48.5, forKey: "latitude")
        for index in 0..<rows {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("\(prefix) \(index)", forKey: "title")
            todo.setValue(Int16(index % 5), forKey: "priority")
            todo.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 3600), forKey: "updatedAt")
            todo.setValue(UUID(), forKey: "todoId")
            todo.setValue(Set([tags[index % 3]]), forKey: "tags")
            if index % 2 == 0 { todo.setValue(location, forKey: "location") }
        }
        try context.save()
    }

    /// A to-do store whose last save is still in its `-wal`: the files are copied while a
    /// coordinator holds the store open, so the copy has `-wal` (and `-shm` when asked) and no writer.
    static func todoStoreWithWAL(includingSHM: Bool) throws -> (url: URL, todos: Int) {
        let live = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(TestModels.todoModel(), url: live)
        let copy = TestStoreFiles.newStoreURL()
        try context.performAndWait {
            // Two saves, both far below the WAL's auto-checkpoint size: every row is in the -wal.
            try fill(context, rows: 20, prefix: "first")
            try fill(context, rows: 7, prefix: "second")
            for suffix in ["", "-wal"] + (includingSHM ? ["-shm"] : []) {
                try FileManager.default.copyItem(atPath: live.path + suffix, toPath: copy.path + suffix)
            }
            for store in context.persistentStoreCoordinator!.persistentStores { try context.persistentStoreCoordinator!.remove(store) }
        }
        let walSize = try #require(try FileManager.default.attributesOfItem(atPath: copy.path + "-wal")[.size] as? NSNumber)
        #expect(walSize.intValue > 0, "the copied store has WAL content")
        return (copy, 27)
    }

    /// Runs SQL on a store file with a plain connection (to damage it), then closes it.
    static func damage(_ url: URL, _ sql: String, _ arguments: StatementArguments = []) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: sql, arguments: arguments) }
        try queue.close()
    }

    /// Overwrites bytes of a file at an offset.
    static func patch(_ url: URL, at offset: Int, _ bytes: [UInt8]) throws {
        var data = try Data(contentsOf: url)
        data.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        try data.write(to: url)
    }
}
