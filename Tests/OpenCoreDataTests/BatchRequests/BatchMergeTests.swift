import Foundation
import Synchronization
import Testing
@testable import OpenCoreData

// MARK: - Merging batch results

extension BatchRequestTests {
    @Test("Apple: mergeChanges(fromRemoteContextSave:into:) with a batch delete's IDs deletes the registered objects and posts ObjectsDidChange")
    func mergeDeletedObjectIDs() throws {
        let context = try Self.open()
        let graph = try Self.seedGraph(context)
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Tag"))
        request.resultType = .resultTypeObjectIDs
        let ids = try #require(try Self.execute(context, request, as: NSBatchDeleteResult.self).result as? [NSManagedObjectID])
        #expect(context.performAndWait { context.registeredObject(for: graph.tag.objectID) } != nil)
        let observer = NotificationRecorder(name: .NSManagedObjectContextObjectsDidChange, object: context)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [context])
        #expect(context.performAndWait { context.registeredObject(for: graph.tag.objectID) } == nil)
        #expect(observer.counts.first?[NSDeletedObjectsKey] == 1)
        #expect(context.performAndWait { graph.items[0].mutableSetValue(forKey: "tags").count } == 0)
    }

    @Test("Apple: merging a batch update's IDs (as objects IDs or their URIs, under NSUpdatedObjectsKey or NSUpdatedObjectIDsKey) refreshes registered objects")
    func mergeUpdatedObjectIDs() throws {
        for form in 0..<3 {
            let context = try Self.open()
            let items = try Self.seedItems(context)
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.propertiesToUpdate = ["note": "batched"]
            request.resultType = .updatedObjectIDsResultType
            let ids = try #require(try Self.execute(context, request, as: NSBatchUpdateResult.self).result as? [NSManagedObjectID])
            #expect(context.performAndWait { items[0].value(forKey: "note") as? String } == nil)
            let changes: [AnyHashable: Any]
            switch form {
            case 0: changes = [NSUpdatedObjectsKey: ids]
            case 1: changes = [NSUpdatedObjectsKey: ids.map { $0.uriRepresentation() }]
            default: changes = [NSUpdatedObjectIDsKey: Set(ids)]
            }
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [context])
            #expect(context.performAndWait { items.map { $0.value(forKey: "note") as? String } } == ["batched", "batched", "batched"], "form \(form)")
        }
    }

    @Test("Apple: merging a batch insert's IDs under NSInsertedObjectsKey reports the new objects as inserted in ObjectsDidChange; they fault in their rows")
    func mergeInsertedObjectIDs() throws {
        let context = try Self.open()
        let request = NSBatchInsertRequest(entityName: "Item", objects: [["name": "new"]])
        request.resultType = .objectIDs
        let ids = try #require(try Self.execute(context, request, as: NSBatchInsertResult.self).result as? [NSManagedObjectID])
        let observer = NotificationRecorder(name: .NSManagedObjectContextObjectsDidChange, object: context)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: ids], into: [context])
        #expect(observer.counts.first?[NSInsertedObjectsKey] == 1)
        let object = try context.performAndWait { try context.existingObject(with: ids[0]) }
        #expect(context.performAndWait { object.value(forKey: "name") as? String } == "new")
    }
}

/// Records, for each notification of one name and object, how many objects each userInfo key
/// lists (notifications are posted synchronously on the posting thread).
final class NotificationRecorder: @unchecked Sendable {
    // @unchecked: the counts live in `received`'s Mutex; `token` is set once in init.
    private let received = Mutex<[[String: Int]]>([])
    private var token: NSObjectProtocol?

    init(name: Notification.Name, object: AnyObject?) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] notification in
            var counts: [String: Int] = [:]
            for (key, value) in notification.userInfo ?? [:] {
                guard let key = key as? String, let objects = value as? Set<NSManagedObject> else { continue }
                counts[key] = objects.count
            }
            self?.received.withLock { $0.append(counts) }
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }

    /// Per notification: the number of objects under each key.
    var counts: [[String: Int]] { received.withLock { $0 } }
}
