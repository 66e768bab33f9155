import Foundation
import OpenCoreData
import Synchronization

/// An example atomic store, written as an app would write one: only the public API, no
/// `@testable` internals. The whole store is one JSON file:
/// `{"metadata": {...}, "nextReference": n, "records": [{"entity": E, "ref": r, "values": {...}}]}`,
/// with relationships as lists of `{"entity": E, "ref": r}`. References are numbers counted up
/// from 1, so records come back in the order they were made.
///
/// For the tests it records the calls the coordinator makes (`calls`) and can be told to fail
/// its next `save()` (`failNextSave`).
///
/// `@unchecked Sendable`: its own state (the counter, the nodes being made, the test hooks)
/// lives behind a Mutex.
final class JSONFileAtomicStore: NSAtomicStore, @unchecked Sendable {
    /// The type string the store is registered under.
    static let storeType = "JSONFileAtomic"

    /// Registers the class (idempotent).
    static func register() {
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileAtomicStore.self, forStoreType: storeType)
    }

    private struct State: @unchecked Sendable {
        // @unchecked: nodes are touched only inside the coordinator's save calls, behind the Mutex.
        var nextReference: Int64 = 1
        /// Nodes made for objects of the current save before the framework registers them, so
        /// relationships between new objects can point at each other's nodes.
        var pending: [NSManagedObjectID: NSAtomicStoreCacheNode] = [:]
        var calls: [String] = []
        var failNextSave = false
    }
    private let state = Mutex(State())

    override var type: String { Self.storeType }

    private var file: URL { url! }

    /// The calls the coordinator made, in order (`load`, `newReferenceObject`, `newCacheNode`,
    /// `updateCacheNode`, `willRemoveCacheNodes`, `save`).
    var calls: [String] { state.withLock { $0.calls } }

    /// Makes the next `save()` throw before writing anything.
    func failNextSave() { state.withLock { $0.failNextSave = true } }

    private func record(_ call: String) { state.withLock { $0.calls.append(call) } }

    // MARK: - Loading

    private func readFile() throws -> [String: Any]? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreInvalidTypeError,
                          userInfo: [NSLocalizedDescriptionKey: "\(file.path) is not a JSON atomic store."])
        }
        return json
    }

    override func loadMetadata() throws {
        if let stored = try readFile()?["metadata"] as? [String: Any] {
            metadata = stored
        } else {
            metadata = [NSStoreTypeKey: Self.storeType, NSStoreUUIDKey: UUID().uuidString]
        }
    }

    override func load() throws {
        record("load")
        guard let json = try readFile() else { return }
        let records = json["records"] as? [[String: Any]] ?? []
        state.withLock { $0.nextReference = (json["nextReference"] as? NSNumber)?.int64Value ?? 1 }
        var nodes: [String: NSAtomicStoreCacheNode] = [:]
        func key(_ entity: String, _ reference: Int64) -> String { "\(entity)/\(reference)" }
        // First every node, then their values, so relationships can point at any node.
        for entry in records {
            let (entity, reference) = try name(of: entry)
            nodes[key(entity.name!, reference)] = NSAtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: reference))
        }
        for entry in records {
            let (entity, reference) = try name(of: entry)
            let node = nodes[key(entity.name!, reference)]!
            let values = entry["values"] as? [String: Any] ?? [:]
            for (name, attribute) in entity.attributesByName where !attribute.isTransient {
                if let value = values[name], let decoded = try JSONAttributeCoding.decode(value, attribute) { node.setValue(decoded, forKey: name) }
            }
            for (name, relationship) in entity.relationshipsByName where !relationship.isTransient {
                let destinations = try (values[name] as? [[String: Any]] ?? []).map { entry -> NSAtomicStoreCacheNode in
                    let (entity, reference) = try self.name(of: entry)
                    guard let destination = nodes[key(entity.name!, reference)] else {
                        throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError,
                                      userInfo: [NSLocalizedDescriptionKey: "\(file.path): '\(name)' points at a missing record."])
                    }
                    return destination
                }
                if relationship.isToMany {
                    node.setValue(relationship.isOrdered ? destinations as Any : Set(destinations) as Any, forKey: name)
                } else {
                    node.setValue(destinations.first, forKey: name)
                }
            }
        }
        addCacheNodes(Set(nodes.values))
    }

    private func name(of entry: [String: Any]) throws -> (NSEntityDescription, Int64) {
        guard let name = entry["entity"] as? String, let entity = persistentStoreCoordinator?.managedObjectModel.entitiesByName[name],
              let reference = (entry["ref"] as? NSNumber)?.int64Value else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError,
                          userInfo: [NSLocalizedDescriptionKey: "\(file.path): a record or reference is malformed: \(entry)."])
        }
        return (entity, reference)
    }

    // MARK: - Saving

    override func newReferenceObject(for managedObject: NSManagedObject) -> Any {
        record("newReferenceObject")
        return state.withLock { state in
            defer { state.nextReference += 1 }
            return state.nextReference
        }
    }

    override func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        record("newCacheNode")
        let node = node(for: managedObject.objectID)
        fill(node, from: managedObject)
        return node
    }

    override func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        record("updateCacheNode")
        fill(node, from: managedObject)
    }

    override func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        record("willRemoveCacheNodes")
    }

    /// The registered node of an ID, or the one made for it earlier in this save.
    private func node(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode {
        if let registered = cacheNode(for: objectID) { return registered }
        return state.withLock { state in
            if let pending = state.pending[objectID] { return pending }
            let node = NSAtomicStoreCacheNode(objectID: objectID)
            state.pending[objectID] = node
            return node
        }
    }

    private func fill(_ node: NSAtomicStoreCacheNode, from object: NSManagedObject) {
        for (name, attribute) in object.entity.attributesByName where !attribute.isTransient {
            node.setValue(object.value(forKey: name), forKey: name)
        }
        for (name, relationship) in object.entity.relationshipsByName where !relationship.isTransient {
            let value = object.value(forKey: name)
            if !relationship.isToMany {
                node.setValue((value as? NSManagedObject).map { self.node(for: $0.objectID) }, forKey: name)
            } else if let ordered = value as? NSOrderedSet {
                node.setValue(ordered.array.compactMap { ($0 as? NSManagedObject).map { self.node(for: $0.objectID) } }, forKey: name)
            } else {
                node.setValue(Set(((value as? Set<NSManagedObject>) ?? []).map { self.node(for: $0.objectID) }), forKey: name)
            }
        }
    }

    override func save() throws {
        record("save")
        let failing = state.withLock { state in
            state.pending = [:]
            defer { state.failNextSave = false }
            return state.failNextSave
        }
        if failing {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileWriteUnknownError,
                          userInfo: [NSLocalizedDescriptionKey: "The test asked this save to fail."])
        }
        var records: [(Int64, [String: Any])] = []
        for node in cacheNodes() {
            let entity = node.objectID.entity
            guard let reference = referenceObject(for: node.objectID) as? Int64 else { continue }
            var values: [String: Any] = [:]
            for (name, attribute) in entity.attributesByName where !attribute.isTransient {
                values[name] = try JSONAttributeCoding.encode(node.value(forKey: name), attribute)
            }
            for (name, relationship) in entity.relationshipsByName where !relationship.isTransient {
                let value = node.value(forKey: name)
                let destinations: [NSAtomicStoreCacheNode]
                if let one = value as? NSAtomicStoreCacheNode {
                    destinations = [one]
                } else if let list = value as? [NSAtomicStoreCacheNode] {
                    destinations = list
                } else if let set = value as? Set<NSAtomicStoreCacheNode> {
                    destinations = set.sorted { "\(referenceObject(for: $0.objectID))" < "\(referenceObject(for: $1.objectID))" }
                } else {
                    destinations = []
                }
                values[name] = destinations.map { ["entity": $0.objectID.entity.name ?? "", "ref": NSNumber(value: referenceObject(for: $0.objectID) as? Int64 ?? 0)] }
            }
            records.append((reference, ["entity": entity.name ?? "", "ref": NSNumber(value: reference), "values": values]))
        }
        let json: [String: Any] = [
            "metadata": metadata ?? [:],
            "nextReference": NSNumber(value: state.withLock { $0.nextReference }),
            "records": records.sorted { $0.0 < $1.0 }.map(\.1),
        ]
        guard JSONSerialization.isValidJSONObject(json) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreSaveError,
                          userInfo: [NSLocalizedDescriptionKey: "The metadata holds values JSON cannot write."])
        }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: file, options: .atomic)
    }
}
