import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Batch insert, update and delete on real SQLite files (issue #17, Must 1–4). Apple documents
/// that batch requests work "directly on the persistent store", skip the context's objects, and
/// are available only with a SQLite store; each test names the behaviour it checks.
@Suite("Batch requests")
struct BatchRequestTests {
    typealias M = TestModels

    // MARK: - Model

    /// Category ↔ Item (ordered to-many with `itemsRule`, inverse to-one `category`), Item ↔ Tag
    /// (many-to-many), Product (uniqueness constraint on `sku`). Category derives `itemCount`
    /// (`items.@count`), Item derives `upperName` (`uppercase:(name)`); Item's `payload` may be
    /// stored externally.
    static func model(itemsRule: NSDeleteRule = .nullifyDeleteRule, mandatoryCategory: Bool = false,
                      tagsRule: NSDeleteRule = .nullifyDeleteRule) -> NSManagedObjectModel {
        let category = M.entity("Category", [M.attribute("title", .stringAttributeType)])
        let payload = M.attribute("payload", .binaryDataAttributeType)
        payload.allowsExternalBinaryDataStorage = true
        let item = M.entity("Item", [
            M.attribute("name", .stringAttributeType, optional: false),
            M.attribute("count", .integer64AttributeType, optional: false, defaultValue: 0),
            M.attribute("price", .doubleAttributeType, defaultValue: 1.5),
            M.attribute("flag", .booleanAttributeType, defaultValue: false),
            M.attribute("note", .stringAttributeType),
            M.attribute("created", .dateAttributeType),
            M.attribute("scratch", .stringAttributeType, transient: true),
            payload,
            derived("upperName", .stringAttributeType, "uppercase:(name)"),
        ])
        let tag = M.entity("Tag", [M.attribute("label", .stringAttributeType)])
        let product = M.entity("Product", [
            M.attribute("sku", .stringAttributeType, optional: false),
            M.attribute("title", .stringAttributeType),
            M.attribute("stock", .integer64AttributeType, defaultValue: 7),
        ])
        product.uniquenessConstraints = [["sku"]]
        let items = M.relationship("items", to: item, toMany: true, ordered: true, deleteRule: itemsRule)
        let itemCategory = M.relationship("category", to: category, toMany: false, optional: !mandatoryCategory)
        M.inverse(items, itemCategory)
        let tags = M.relationship("tags", to: tag, toMany: true, deleteRule: tagsRule)
        let tagItems = M.relationship("items", to: item, toMany: true)
        M.inverse(tags, tagItems)
        category.properties += [items, derived("itemCount", .integer64AttributeType, "items.@count")]
        item.properties += [itemCategory, tags]
        tag.properties += [tagItems]
        let model = NSManagedObjectModel()
        model.entities = [category, item, tag, product]
        return model
    }

    static func derived(_ name: String, _ type: NSAttributeType, _ format: String) -> NSDerivedAttributeDescription {
        let attribute = NSDerivedAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.derivationExpression = NSExpression(format: format)
        return attribute
    }

    // MARK: - Helpers

    /// A context on a new store file of `model`, with a small external-data threshold.
    static func open(_ model: NSManagedObjectModel = model(), url: URL = TestStoreFiles.newStoreURL()) throws -> NSManagedObjectContext {
        try M.sqliteContext(model, url: url, options: [OCDExternalBinaryDataThresholdOption: 1024])
    }

    static func url(_ context: NSManagedObjectContext) -> URL {
        context.persistentStoreCoordinator!.persistentStores[0].url!
    }

    /// Rows read by a separate connection to the store file.
    static func rows(_ context: NSManagedObjectContext, _ sql: String) throws -> [Row] {
        let queue = try DatabaseQueue(path: url(context).path, configuration: SQLiteStoreOptions(nil).configuration(label: "batch-test"))
        defer { try? queue.close() }
        return try queue.read { db in try Row.fetchAll(db, sql: sql) }
    }

    static func integer(_ context: NSManagedObjectContext, _ sql: String) throws -> Int64? {
        try rows(context, sql).first.flatMap { $0[0] as Int64? }
    }

    static func maxKey(_ context: NSManagedObjectContext, _ entity: String) throws -> Int64? {
        try integer(context, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = '\(entity)'")
    }

    /// Inserts objects through the context and saves; returns them.
    @discardableResult
    static func save(_ context: NSManagedObjectContext, _ entity: String, _ rows: [[String: Any]]) throws -> [NSManagedObject] {
        try context.performAndWait {
            let objects = rows.map { values -> NSManagedObject in
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            try context.save()
            return objects
        }
    }

    static func execute<R: NSPersistentStoreResult>(_ context: NSManagedObjectContext, _ request: NSPersistentStoreRequest, as _: R.Type = R.self) throws -> R {
        try context.performAndWait { try context.execute(request) as! R }
    }

    /// The error a throwing block throws, as an NSError.
    static func error(_ body: () throws -> Void) -> NSError? {
        do {
            try body()
            return nil
        } catch {
            return error as NSError
        }
    }

    static func fetch(_ context: NSManagedObjectContext, _ entity: String, _ format: String? = nil, sortedBy key: String = "name") throws -> [NSManagedObject] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = format.map { NSPredicate(format: $0) }
            request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
            return try context.fetch(request)
        }
    }

    // MARK: - Store support

    @Test("Apple: batch requests are SQLite-only — the in-memory store refuses each with NSPersistentStoreUnsupportedRequestTypeError (134091)")
    func inMemoryStoreRefusesBatchRequests() throws {
        let context = try M.inMemoryContext(Self.model())
        let requests: [NSPersistentStoreRequest] = [
            NSBatchInsertRequest(entityName: "Tag", objects: [["label": "a"]]),
            { let r = NSBatchUpdateRequest(entityName: "Tag"); r.propertiesToUpdate = ["label": "b"]; return r }(),
            NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Tag")),
        ]
        for request in requests {
            let error = Self.error { _ = try context.performAndWait { try context.execute(request) } }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
            #expect(error?.localizedDescription.contains("SQLite") == true)
        }
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) } == 0)
    }

    @Test("Apple: execute(_:) always rejects NSSaveChangesRequest")
    func saveChangesRequestIsRejected() throws {
        let context = try Self.open()
        let request = NSSaveChangesRequest(inserted: nil, updated: nil, deleted: nil, locked: nil)
        let error = Self.error { _ = try context.performAndWait { try context.execute(request) } }
        #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
    }

    @Test("Apple's request types and result-type raw values")
    func requestAndResultTypes() {
        #expect(NSBatchInsertRequest(entityName: "Tag", objects: []).requestType == .batchInsertRequestType)
        #expect(NSBatchUpdateRequest(entityName: "Tag").requestType == .batchUpdateRequestType)
        #expect(NSBatchDeleteRequest(objectIDs: []).requestType == .batchDeleteRequestType)
        #expect(NSBatchInsertRequestResultType.objectIDs.rawValue == 1 && NSBatchInsertRequestResultType.count.rawValue == 2)
        #expect(NSBatchUpdateRequestResultType.updatedObjectsCountResultType.rawValue == 2)
        #expect(NSBatchDeleteRequestResultType.resultTypeObjectIDs.rawValue == 1)
        #expect(NSBatchUpdateRequest(entityName: "Tag").includesSubentities)
        #expect(NSBatchInsertRequest.batchInsertRequest(withEntityName: "Tag", objects: [["label": "x"]]).objectsToInsert?.count == 1)
    }
}
