import Dispatch
import Foundation

// MARK: - One observer

/// One observer of one managed object: the keys it watches, their values when it last
/// reported, and how it reports. Lives in its context's hub, on the context's queue.
package final class ObjectObservation {
    let id: Int
    /// Held strongly, as Apple's KVO publisher holds its object: an observed object is not freed
    /// (and fetched again as another instance) while someone waits for its changes.
    let object: NSManagedObject
    let indices: [Int]
    private var baseline: [ObservedValue]
    /// Reports the keys that changed; called on the context's queue.
    private let report: (NSManagedObject, Set<String>) -> Void
    /// Ends the observer's sequence.
    let finish: () -> Void

    init(id: Int, object: NSManagedObject, indices: [Int], report: @escaping (NSManagedObject, Set<String>) -> Void, finish: @escaping () -> Void) {
        self.id = id
        self.object = object
        self.indices = indices
        self.baseline = object.observedValues(at: indices)
        self.report = report
        self.finish = finish
    }

    /// Compares the watched values with those last reported and reports the keys that differ.
    func check() {
        var changed = Set<String>()
        for (position, index) in indices.enumerated() {
            let value = object.observedValue(at: index)
            guard value != baseline[position] else { continue }
            baseline[position] = value
            changed.insert(object.layout.properties[index].name)
        }
        if !changed.isEmpty { report(object, changed) }
    }
}

// MARK: - A context's observers

/// The observers of a context's objects, fed by the context's `ObjectsDidChange` notifications.
///
/// Made when the first object of the context is observed; while nothing is observed it does not
/// listen, so contexts that nobody observes pay nothing. The context owns it: when the context
/// is freed, the hub ends every sequence.
///
/// `@unchecked Sendable`: `observations`, `nextID` and `token` are touched only on the context's
/// queue (observers are added there, `ObjectsDidChange` is posted there, and a cancelled
/// sequence's removal is enqueued there) or in `deinit`, when nothing else holds the hub. The
/// hub crosses threads only to enqueue those removals.
package final class ObjectObservationHub: @unchecked Sendable {
    private let queue: DispatchQueue
    private var observations: [ObjectIdentifier: [ObjectObservation]] = [:]
    private var nextID = 0
    private var token: (any NSObjectProtocol)?

    private init(queue: DispatchQueue) {
        self.queue = queue
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
        for list in observations.values {
            for observation in list { observation.finish() }
        }
    }

    /// The hub of `context`, made on first use; call on the context's queue.
    package static func hub(of context: NSManagedObjectContext) -> ObjectObservationHub {
        if let hub = context.objectObservationHub { return hub }
        let hub = ObjectObservationHub(queue: context.queue)
        context.objectObservationHub = hub
        return hub
    }

    /// The number of observers, for tests.
    package var count: Int { observations.values.reduce(0) { $0 + $1.count } }

    /// Starts observing `indices` of `object` (registered with `context`); returns the observer's
    /// ID, for `scheduleRemoval(_:of:)`.
    package func add(_ object: NSManagedObject, indices: [Int], in context: NSManagedObjectContext,
                     report: @escaping (NSManagedObject, Set<String>) -> Void, finish: @escaping () -> Void) -> Int {
        nextID += 1
        let observation = ObjectObservation(id: nextID, object: object, indices: indices, report: report, finish: finish)
        observations[ObjectIdentifier(object), default: []].append(observation)
        if token == nil {
            // Notifications are delivered on the posting thread: the context's queue.
            token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { [weak self] notification in
                self?.contextDidChange(notification.userInfo ?? [:])
            }
        }
        return nextID
    }

    /// Forgets an observer whose sequence ended, on the context's queue: the sequence may end on
    /// any thread (a cancelled task), and the observed object must be released on its queue.
    package func scheduleRemoval(_ id: Int, of key: ObjectIdentifier) {
        queue.async { [self] in remove(id, of: key) }
    }

    private func remove(_ id: Int, of key: ObjectIdentifier) {
        guard var list = observations[key] else { return }
        list.removeAll { $0.id == id }
        observations[key] = list.isEmpty ? nil : list
        stopListeningIfIdle()
    }

    private func stopListeningIfIdle() {
        guard observations.isEmpty, let token else { return }
        NotificationCenter.default.removeObserver(token)
        self.token = nil
    }

    // MARK: - Handling ObjectsDidChange

    /// Ends the observers of deleted and invalidated objects (all of them after a reset) and lets
    /// the observers of inserted, updated and refreshed objects compare their values: each
    /// observer reports at most once per notification.
    private func contextDidChange(_ info: [AnyHashable: Any]) {
        guard !observations.isEmpty else { return }
        if info[NSInvalidatedAllObjectsKey] != nil {
            let ending = observations.values.joined()
            observations = [:]
            for observation in ending { observation.finish() }
            stopListeningIfIdle()
            return
        }
        var ending: [ObjectObservation] = []
        for key in observedKeys(in: info[NSDeletedObjectsKey]).union(observedKeys(in: info[NSInvalidatedObjectsKey])) {
            ending += observations.removeValue(forKey: key) ?? []
        }
        var touched = Set<ObjectIdentifier>()
        for name in [NSUpdatedObjectsKey, NSRefreshedObjectsKey, NSInsertedObjectsKey] {
            touched.formUnion(observedKeys(in: info[name]))
        }
        for key in touched {
            for observation in observations[key] ?? [] { observation.check() }
        }
        for observation in ending { observation.finish() }
        stopListeningIfIdle()
    }

    /// The observed objects among a notification's objects (a set, an array or an `NSSet`),
    /// walking whichever is smaller: the notification's objects or the observed ones.
    private func observedKeys(in value: Any?) -> Set<ObjectIdentifier> {
        var keys = Set<ObjectIdentifier>()
        switch value {
        case let objects as Set<NSManagedObject>:
            if objects.count > observations.count {
                for (key, list) in observations where objects.contains(list[0].object) { keys.insert(key) }
            } else {
                for object in objects where observations[ObjectIdentifier(object)] != nil { keys.insert(ObjectIdentifier(object)) }
            }
        case let objects as [NSManagedObject]:
            for object in objects where observations[ObjectIdentifier(object)] != nil { keys.insert(ObjectIdentifier(object)) }
        case let objects as NSSet:
            for case let object as NSManagedObject in objects where observations[ObjectIdentifier(object)] != nil {
                keys.insert(ObjectIdentifier(object))
            }
        default:
            break
        }
        return keys
    }
}
