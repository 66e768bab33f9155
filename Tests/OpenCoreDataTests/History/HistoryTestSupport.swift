import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Models, stores and raw reads for the persistent-history suites.
enum HistoryTests {
    /// Item (name, count, code — code preserved after deletion) → Owner; Owner.items.
    static func model() -> NSManagedObjectModel {
        let code = TestModels.attribute("code", .UUIDAttributeType)
        code.preservesValueInHistoryOnDeletion = true
        let label = TestModels.attribute("label", .stringAttributeType)
        label.preservesValueInHistoryOnDeletion = true
        let item = TestModels.entity("Item", [TestModels.attribute("name", .stringAttributeType),
                                              TestModels.attribute("count", .integer64AttributeType), code, label])
        let owner = TestModels.entity("Owner", [TestModels.attribute("name", .stringAttributeType)])
        let itemOwner = TestModels.relationship("owner", to: owner, toMany: false)
        let items = TestModels.relationship("items", to: item, toMany: true)
        TestModels.inverse(itemOwner, items)
        item.properties += [itemOwner]
        owner.properties += [items]
        let model = NSManagedObjectModel()
        model.entities = [item, owner]
        return model
    }

    static var tracking: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }

    /// A private-queue context on a new coordinator for the store at `url`.
    static func context(_ model: NSManagedObjectModel, url: URL, tracking: Bool = true, name: String? = nil,
                        author: String? = nil) throws -> NSManagedObjectContext {
        let context = try TestModels.sqliteContext(model, url: url, options: tracking ? Self.tracking : nil)
        context.name = name
        context.transactionAuthor = author
        return context
    }

    /// Rows read straight from the file (a read-only connection beside the store's).
    static func rows(_ url: URL, _ sql: String) throws -> [Row] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Row.fetchAll(db, sql: sql) }
    }

    static func count(_ url: URL, _ table: String) throws -> Int {
        try rows(url, "SELECT COUNT(*) FROM \(table)").first?[0] ?? -1
    }

    /// The SQL of the history tables and indexes in `sqlite_master`, by name.
    static func historySchema(_ url: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try rows(url, "SELECT name, sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')") {
            result[row[0]] = row[1]
        }
        return result
    }

    /// Runs a history request in the context and returns its result.
    static func execute(_ request: NSPersistentHistoryChangeRequest, in context: NSManagedObjectContext) throws -> NSPersistentHistoryResult {
        try context.performAndWait {
            try #require(try context.execute(request) as? NSPersistentHistoryResult)
        }
    }

    /// The transactions a history request returns.
    static func transactions(_ request: NSPersistentHistoryChangeRequest, in context: NSManagedObjectContext) throws -> [NSPersistentHistoryTransaction] {
        try #require(try execute(request, in: context).result as? [NSPersistentHistoryTransaction])
    }

    /// Inserts an item and saves.
    @discardableResult
    static func insertItem(_ name: String, count: Int64 = 0, code: UUID = UUID(), in context: NSManagedObjectContext) throws -> NSManagedObjectID {
        try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue(name, forKey: "name")
            item.setValue(count, forKey: "count")
            item.setValue(code, forKey: "code")
            item.setValue("label of \(name)", forKey: "label")
            try context.save()
            return item.objectID
        }
    }
}
