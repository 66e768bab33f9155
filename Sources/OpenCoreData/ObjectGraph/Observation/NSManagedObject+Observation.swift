import Foundation

// MARK: - Observing an object's changes

extension NSManagedObject {
    /// The keys of this object that change, one set per `ObjectsDidChange` of its context that
    /// changed them: the Swift-native stand-in for KVO, `objectWillChange` and
    /// `publisher(for:)`, on every platform.
    ///
    /// ```swift
    /// for await keys in todo.changes where keys.contains("title") {
    ///     print("title is now", todo.title ?? "")
    /// }
    /// ```
    ///
    /// A change is reported once the context processes it: at `processPendingChanges()` (the end
    /// of a `perform` block, a save, or the end of a main-queue turn), when a merge of another
    /// context's save (`mergeChanges(fromContextDidSave:)`, `automaticallyMergesChangesFromParent`)
    /// or a child context's save changed the object's values. Each report holds the keys whose
    /// values differ from the previous report (from the start, for the first one), so a value
    /// set and set back within one event reports nothing. Relationships compare their
    /// destinations; observing every key loads the object and its to-many relationships, so
    /// prefer `changes(forKeys:)` for objects with large ones.
    ///
    /// The sequence ends when the object's deletion is processed, when it is invalidated (the
    /// context's `reset()`), when the context is freed, or when the iterating task is cancelled.
    /// Get it on the context's queue (for a main-queue context, on the main actor); its elements
    /// are plain `Set<String>` values, so it may be iterated anywhere. Each report is buffered
    /// until it is read.
    ///
    /// See <https://developer.apple.com/documentation/combine/observableobject/objectwillchange>
    /// and `docs/Observation.md`.
    public var changes: AsyncStream<Set<String>> {
        makeObservation(indices: observableIndices) { continuation, _, keys in continuation.yield(keys) }
    }

    /// The keys among `keys` that change, one set per `ObjectsDidChange` that changed them;
    /// as `changes`, watching only these keys. An unknown key stops with a message.
    public func changes(forKeys keys: Set<String>) -> AsyncStream<Set<String>> {
        makeObservation(indices: observableIndices(forKeys: keys)) { continuation, _, keys in continuation.yield(keys) }
    }

    /// The value of `key` now, then again after each processed change of it: the stand-in for
    /// KVO and `publisher(for:)` in key-value coding code.
    ///
    /// Values are read with `value(forKey:)` and cast to `Value` (nil when the cast fails). A
    /// relationship's destinations are not `Sendable`: ask for `NSManagedObjectID` (to-one),
    /// `Set<NSManagedObjectID>` (to-many) or `[NSManagedObjectID]` (ordered) instead. Ends as
    /// `changes` does. An unknown key stops with a message.
    public func values<Value: Sendable>(forKey key: String, as type: Value.Type = Value.self) -> AsyncStream<Value?> {
        let indices = observableIndices(forKeys: [key])
        return makeObservation(initial: Self.sendableValue(value(forKey: key), as: type), indices: indices) { continuation, object, _ in
            continuation.yield(Self.sendableValue(object.value(forKey: key), as: type))
        }
    }

    // MARK: - Making the sequence

    /// A sequence fed by an observer of `indices`, registered with the context's hub; it yields
    /// `initial` first, if given. Without a context, or once deleted, it ends at once.
    package func makeObservation<Element: Sendable>(initial: Element? = nil, indices: [Int],
                                            report: @escaping (AsyncStream<Element>.Continuation, NSManagedObject, Set<String>) -> Void) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        if let initial { continuation.yield(initial) }
        guard let context = _context, !deletedFlag, !inaccessible else {
            continuation.finish()
            return stream
        }
        let hub = ObjectObservationHub.hub(of: context)
        let id = hub.add(self, indices: indices, in: context,
                         report: { object, keys in report(continuation, object, keys) },
                         finish: { continuation.finish() })
        let key = ObjectIdentifier(self)
        continuation.onTermination = { [weak hub] _ in hub?.scheduleRemoval(id, of: key) }
        return stream
    }

    /// The slots of `keys`, stopping with a message for a key the entity lacks.
    private func observableIndices(forKeys keys: Set<String>) -> [Int] {
        keys.sorted().map { key in
            guard let index = layout.indexByName[key], observableIndices.contains(index) else { unknownKey(key) }
            return index
        }
    }

    /// A value read by key-value coding as a `Sendable` `Value`: related objects become their IDs.
    static func sendableValue<Value: Sendable>(_ value: Any?, as type: Value.Type) -> Value? {
        if let value = value as? Value { return value }
        switch value {
        case let object as NSManagedObject:
            return object.objectID as? Value
        case let objects as NSOrderedSet:
            return objects.array.compactMap { ($0 as? NSManagedObject)?.objectID } as? Value
        case let objects as NSSet:
            return Set(objects.compactMap { ($0 as? NSManagedObject)?.objectID }) as? Value
        case let objects as Set<NSManagedObject>:
            return Set(objects.map(\.objectID)) as? Value
        default:
            return nil
        }
    }
}

// MARK: - Typed key paths

/// Lets an observation name the object's own type in a key path (`todo.values(for: \.title)`),
/// as `observe(_:options:changeHandler:)` does on Apple platforms. `NSManagedObject` conforms.
public protocol ManagedObjectObserving: AnyObject {}

extension NSManagedObject: ManagedObjectObserving {}

extension ManagedObjectObserving where Self: NSManagedObject {
    /// The value at `keyPath` now, then again after each processed change of the keys it reads:
    /// the stand-in for `publisher(for: \.title)` on every platform.
    ///
    /// ```swift
    /// for await title in todo.values(for: \.title) { label.text = title }
    /// ```
    ///
    /// A key path to a `@Managed` property watches that key; one through a to-one relationship
    /// (`\.location?.placeName`) watches the relationship (changes of the destination's own
    /// values belong to the destination: observe it too); a computed property watches the
    /// `@Managed` properties it reads, or, if it reads none, every key. `Value` must be
    /// `Sendable`, so related objects are observed through their IDs (`\.location?.objectID`)
    /// or with `changes`. Ends as `changes` does.
    public func values<Value: Sendable>(for keyPath: KeyPath<Self, Value>) -> AsyncStream<Value> {
        makeObservation(initial: self[keyPath: keyPath], indices: observedIndices(of: keyPath)) { continuation, object, _ in
            continuation.yield(unsafeDowncast(object, to: Self.self)[keyPath: keyPath])
        }
    }

    /// The slots a key path reads, found by reading it on a probe that records keys.
    private func observedIndices<Value>(of keyPath: KeyPath<Self, Value>) -> [Int] {
        // The object's own class, so the probe is made for the entity it belongs to.
        let probe = unsafeDowncast(type(of: self).init(entity: entity, insertInto: nil), to: Self.self)
        let recorder = KeyRecorder()
        probe.keyRecorder = recorder
        _ = probe[keyPath: keyPath]
        let observable = observableIndices
        var indices: [Int] = []
        for key in recorder.keys {
            guard let index = layout.indexByName[key], observable.contains(index), !indices.contains(index) else { continue }
            indices.append(index)
        }
        return indices.isEmpty ? observable : indices
    }
}
