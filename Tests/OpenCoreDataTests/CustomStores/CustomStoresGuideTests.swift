import Foundation
@testable import OpenCoreData
import Synchronization
import Testing

/// The minimal store of docs/CustomStores.md, copied verbatim so the guide's code keeps compiling and working.
final class DictionaryStore: NSIncrementalStore, @unchecked Sendable {
    static let type = "DictionaryStore"
    private struct Record { var values: [String: Any]; var version: UInt64 }
    /// Records keyed by "<Entity>/<reference>". `@unchecked Sendable`: the values are
    /// immutable value objects and object IDs, touched only inside the Mutex.
    private struct Records: @unchecked Sendable { var byKey: [String: Record] = [:] }
    private let records = Mutex(Records())

    override var type: String { Self.type }

    override func loadMetadata() throws {
        metadata = [NSStoreTypeKey: Self.type, NSStoreUUIDKey: UUID().uuidString]
    }

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        if let save = request as? NSSaveChangesRequest {
            for object in (save.insertedObjects ?? []).union(save.updatedObjects ?? []) {
                var values: [String: Any] = [:]
                for (name, _) in object.entity.attributesByName { values[name] = object.value(forKey: name) }
                for (name, relationship) in object.entity.relationshipsByName {
                    let value = object.value(forKey: name)
                    values[name] = relationship.isToMany
                        ? ((value as? Set<NSManagedObject>) ?? []).map(\.objectID)
                        : (value as? NSManagedObject)?.objectID ?? NSNull()
                }
                let key = key(object.objectID)
                records.withLock { records in
                    let version = (records.byKey[key]?.version ?? 0) + 1   // one more per save
                    records.byKey[key] = Record(values: values, version: version)
                }
            }
            for object in save.deletedObjects ?? [] { records.withLock { $0.byKey[key(object.objectID)] = nil } }
            return [Any]()
        }
        let fetch = request as! NSFetchRequest<NSFetchRequestResult>
        let entity = fetch.entity!
        let ids = records.withLock { Array($0.byKey.keys) }
            .filter { $0.hasPrefix("\(entity.name!)/") }
            .map { newObjectID(for: entity, referenceObject: String($0.split(separator: "/")[1])) }
        switch fetch.resultType {
        case .countResultType: return [NSNumber(value: ids.count)]
        case .managedObjectIDResultType: return ids
        default: return ids.map { context!.object(with: $0) }
        }
    }

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        guard let record = records.withLock({ $0.byKey[key(objectID)] }) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError)
        }
        let toOnes = record.values.filter { !(objectID.entity.relationshipsByName[$0.key]?.isToMany ?? false) }
        return NSIncrementalStoreNode(objectID: objectID, withValues: toOnes, version: record.version)
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                           with context: NSManagedObjectContext?) throws -> Any {
        records.withLock { $0.byKey[key(objectID)]?.values[relationship.name] } ?? NSNull()
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        array.map { newObjectID(for: $0.entity, referenceObject: UUID().uuidString) }
    }

    private func key(_ id: NSManagedObjectID) -> String { "\(id.entity.name!)/\(referenceObject(for: id))" }
}

/// The guide's example store saves and loads attributes, a to-one and its inverse to-many.
@Suite("Custom stores guide")
struct CustomStoresGuideTests {
    @Test("The minimal incremental store of docs/CustomStores.md saves and fetches objects and relationships")
    func minimalStore() throws {
        NSPersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.type)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todoModel())
        try coordinator.addPersistentStore(ofType: DictionaryStore.type, configurationName: nil, at: URL(fileURLWithPath: "/dictionary-store"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let home = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("x", forKey: "title")
            todo.setValue(home, forKey: "location")
            try context.save()
            context.reset()
            let todos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            #expect(todos.first?.value(forKey: "title") as? String == "x")
            #expect(todos.first?.value(forKey: "location") != nil)
            let locations = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "LocationEntity"))
            #expect((locations.first?.value(forKey: "todos") as? Set<NSManagedObject>)?.count == 1)
        }
    }
}
