import Foundation
import OpenCoreData

/// An example incremental store, written as an app would write one: only the public API, no
/// `@testable` internals. Each object is one JSON file, `<directory>/<Entity>/<reference>.json`,
/// holding `{"version": n, "values": {...}}`; the store's UUID lives in `metadata.json`.
///
/// `@unchecked Sendable`: the store keeps no mutable state of its own; every call reads the files.
final class JSONDirectoryStore: NSIncrementalStore, @unchecked Sendable {
    /// The type string the store is registered under.
    static let storeType = "JSONDirectory"

    /// Registers the class (idempotent).
    static func register() {
        NSPersistentStoreCoordinator.registerStoreClass(JSONDirectoryStore.self, forStoreType: storeType)
    }

    override var type: String { Self.storeType }

    private var directory: URL { url! }

    // MARK: - Metadata

    override func loadMetadata() throws {
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("metadata.json")
        if let data = try? Data(contentsOf: file) {
            guard let stored = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreInvalidTypeError,
                              userInfo: [NSLocalizedDescriptionKey: "\(file.path) is not a JSON store's metadata."])
            }
            metadata = stored
        } else {
            let uuid = Self.identifierForNewStore(at: directory) as! String
            let fresh: [String: Any] = [NSStoreTypeKey: Self.storeType, NSStoreUUIDKey: uuid]
            try JSONSerialization.data(withJSONObject: fresh).write(to: file, options: .atomic)
            metadata = fresh
        }
    }

    // MARK: - Requests

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        if let save = request as? NSSaveChangesRequest {
            try write(save)
            return [Any]()
        }
        guard let fetch = request as? NSFetchRequest<NSFetchRequestResult> else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError,
                          userInfo: [NSLocalizedDescriptionKey: "JSONDirectoryStore runs fetch and save requests only."])
        }
        return try run(fetch, context: context)
    }

    private func run(_ fetch: NSFetchRequest<NSFetchRequestResult>, context: NSManagedObjectContext?) throws -> Any {
        guard let entity = fetch.entity ?? fetch.entityName.flatMap({ persistentStoreCoordinator?.managedObjectModel.entitiesByName[$0] }) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError,
                          userInfo: [NSLocalizedDescriptionKey: "The fetch request names no entity."])
        }
        var ids = try objectIDs(of: entity, includingSubentities: fetch.includesSubentities)
        // Predicates and sorts are evaluated on the objects, so key paths through relationships work.
        if fetch.predicate != nil || !(fetch.sortDescriptors ?? []).isEmpty || fetch.resultType == .managedObjectResultType {
            guard let context else {
                throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError,
                              userInfo: [NSLocalizedDescriptionKey: "Fetching objects, or with a predicate or sort, needs a context."])
            }
            var objects = ids.map { context.object(with: $0) }
            if let predicate = fetch.predicate { objects = objects.filter { predicate.evaluate(with: $0) } }
            for descriptor in (fetch.sortDescriptors ?? []).reversed() {
                objects = stableSorted(objects) { descriptor.compare($0, to: $1) == .orderedAscending }
            }
            ids = objects.map(\.objectID)
        }
        let start = min(fetch.fetchOffset, ids.count)
        ids = Array(ids[start...])
        if fetch.fetchLimit > 0 { ids = Array(ids.prefix(fetch.fetchLimit)) }

        switch fetch.resultType {
        case .countResultType:
            return [NSNumber(value: ids.count)]
        case .managedObjectIDResultType:
            return ids
        case .dictionaryResultType:
            return try ids.map { id -> NSDictionary in
                let values = try record(for: id).values
                let names = (fetch.propertiesToFetch ?? Array(id.entity.attributesByName.keys)).map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }
                let result = NSMutableDictionary()
                for name in names {
                    if let attribute = id.entity.attributesByName[name], let value = values[name], let decoded = try JSONAttributeCoding.decode(value, attribute) {
                        result[name] = decoded
                    }
                }
                return result
            }
        default:
            return ids.map { context!.object(with: $0) }
        }
    }

    private func stableSorted(_ objects: [NSManagedObject], by before: (NSManagedObject, NSManagedObject) -> Bool) -> [NSManagedObject] {
        objects.enumerated().sorted { lhs, rhs in
            if before(lhs.element, rhs.element) { return true }
            if before(rhs.element, lhs.element) { return false }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    // MARK: - Values

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        let stored = try record(for: objectID)
        var values: [String: Any] = [:]
        for (name, attribute) in objectID.entity.attributesByName where !attribute.isTransient {
            if let value = stored.values[name], let decoded = try JSONAttributeCoding.decode(value, attribute) { values[name] = decoded }
        }
        for (name, relationship) in objectID.entity.relationshipsByName where !relationship.isToMany {
            values[name] = try destinationIDs(stored.values[name]).first ?? NSNull()
        }
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: stored.version)
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                           with context: NSManagedObjectContext?) throws -> Any {
        let ids = try destinationIDs(try record(for: objectID).values[relationship.name])
        if relationship.isToMany { return ids }
        return ids.first ?? NSNull()
    }

    /// References sort in creation order (a zero-padded clock reading, the object's position,
    /// then a random suffix), so listing a folder gives records in the order they were made,
    /// as the built-in stores return rows in primary-key order when a fetch has no sort.
    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        let stamp = Self.padded(DispatchTime.now().uptimeNanoseconds, to: 20)
        return array.enumerated().map { index, object in
            let reference = "\(stamp)-\(Self.padded(UInt64(index), to: 8))-\(UUID().uuidString.prefix(8))"
            return newObjectID(for: object.entity, referenceObject: reference)
        }
    }

    private static func padded(_ number: UInt64, to width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: - Files

    private struct Record {
        var version: UInt64
        var values: [String: Any]
    }

    private func folder(of entity: NSEntityDescription) -> URL {
        directory.appendingPathComponent(entity.name ?? "_", isDirectory: true)
    }

    private func file(for objectID: NSManagedObjectID) -> URL {
        folder(of: objectID.entity).appendingPathComponent("\(referenceObject(for: objectID)).json")
    }

    private func objectIDs(of entity: NSEntityDescription, includingSubentities: Bool) throws -> [NSManagedObjectID] {
        var entities = [entity]
        if includingSubentities {
            var pending = entity.subentities
            while let next = pending.popLast() {
                entities.append(next)
                pending.append(contentsOf: next.subentities)
            }
        }
        var ids: [NSManagedObjectID] = []
        for entity in entities {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder(of: entity).path)) ?? []
            for name in names.sorted() where name.hasSuffix(".json") {
                ids.append(newObjectID(for: entity, referenceObject: String(name.dropLast(5))))
            }
        }
        return ids
    }

    private func record(for objectID: NSManagedObjectID) throws -> Record {
        let data = try Data(contentsOf: file(for: objectID))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let version = (json["version"] as? NSNumber)?.uint64Value, let values = json["values"] as? [String: Any] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError,
                          userInfo: [NSLocalizedDescriptionKey: "\(file(for: objectID).path) is not a record."])
        }
        return Record(version: version, values: values)
    }

    private func write(_ save: NSSaveChangesRequest) throws {
        for object in save.insertedObjects ?? [] { try write(object, version: 1) }
        for object in save.updatedObjects ?? [] {
            let current = try record(for: object.objectID).version
            try write(object, version: current + 1)
        }
        for object in save.deletedObjects ?? [] {
            try FileManager.default.removeItem(at: file(for: object.objectID))
        }
    }

    private func write(_ object: NSManagedObject, version: UInt64) throws {
        var values: [String: Any] = [:]
        for (name, attribute) in object.entity.attributesByName where !attribute.isTransient {
            values[name] = try JSONAttributeCoding.encode(object.value(forKey: name), attribute)
        }
        for (name, relationship) in object.entity.relationshipsByName {
            let value = object.value(forKey: name)
            let destinations: [NSManagedObject]
            if let one = value as? NSManagedObject {
                destinations = [one]
            } else if let ordered = value as? NSOrderedSet {
                destinations = ordered.array.compactMap { $0 as? NSManagedObject }
            } else if let set = value as? Set<NSManagedObject> {
                destinations = Array(set)
            } else {
                destinations = []
            }
            values[name] = relationship.isToMany || !destinations.isEmpty
                ? destinations.map { ["entity": $0.entity.name ?? "", "ref": "\(referenceObject(for: $0.objectID))"] }
                : NSNull()
        }
        let folder = folder(of: object.entity)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let json: [String: Any] = ["version": NSNumber(value: version), "values": values]
        try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: file(for: object.objectID), options: .atomic)
    }

    private func destinationIDs(_ stored: Any?) throws -> [NSManagedObjectID] {
        guard let list = stored as? [[String: Any]] else { return [] }
        return try list.map { entry in
            guard let name = entry["entity"] as? String, let reference = entry["ref"] as? String,
                  let entity = persistentStoreCoordinator?.managedObjectModel.entitiesByName[name] else {
                throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError,
                              userInfo: [NSLocalizedDescriptionKey: "A relationship entry is malformed: \(entry)."])
            }
            return newObjectID(for: entity, referenceObject: reference)
        }
    }
}
