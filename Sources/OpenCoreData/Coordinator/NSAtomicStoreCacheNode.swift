import Foundation
import Synchronization

/// One record of an atomic store, as the store keeps it in memory.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsatomicstorecachenode>. Values
/// live in `propertyCache`, keyed by property name: attributes as value objects (`String`,
/// `NSNumber`, `Date`, `Data`…; a missing key is nil), a to-one relationship as the
/// destination's cache node (or `NSNull`), a to-many relationship as a collection of the
/// destinations' cache nodes (`Set`, `NSSet`, or an array or `NSOrderedSet` for an ordered one).
///
/// `@unchecked Sendable`: the property cache and the version live behind a Mutex; the
/// dictionary itself is the store's to mutate, from the calls the coordinator makes.
open class NSAtomicStoreCacheNode: NSObject, @unchecked Sendable {
    private struct Contents {
        var propertyCache: NSMutableDictionary?
        /// The record's version for optimistic locking: 1 when loaded or inserted, the saved
        /// row's version after an update. Kept by the coordinator; Apple's nodes have none.
        var version: Int64 = 1
    }
    private let contents = Mutex(UncheckedBox(Contents()))

    /// The managed object ID of the node.
    public let objectID: NSManagedObjectID

    /// Creates a node for a managed object ID, made with `NSAtomicStore.objectID(for:withReferenceObject:)`.
    public init(objectID: NSManagedObjectID) {
        self.objectID = objectID
        super.init()
    }

    /// The node's values by property name; nil until it is set or a non-nil value is set with
    /// `setValue(_:forKey:)`.
    open var propertyCache: NSMutableDictionary? {
        get { contents.withLock { $0.value.propertyCache } }
        set { update { $0.propertyCache = newValue } }
    }

    /// The value of a property (see the class comment for the kinds of value); `"objectID"` gives the ID.
    open func value(forKey key: String) -> Any? {
        if objectID.entity.propertiesByName[key] == nil {
            if key == "objectID" { return objectID }
            CoreDataError.programmerError("NSAtomicStoreCacheNode.value(forKey:): entity '\(objectID.entity.name ?? "?")' has no property '\(key)'.")
        }
        return contents.withLock { $0.value.propertyCache?[key] }
    }

    /// Sets the value of a property in `propertyCache`, creating the dictionary for a non-nil
    /// value; nil removes the key.
    open func setValue(_ value: Any?, forKey key: String) {
        guard objectID.entity.propertiesByName[key] != nil else {
            CoreDataError.programmerError("NSAtomicStoreCacheNode.setValue(_:forKey:): entity '\(objectID.entity.name ?? "?")' has no property '\(key)'.")
        }
        update { contents in
            if let value {
                if contents.propertyCache == nil { contents.propertyCache = NSMutableDictionary() }
                contents.propertyCache?[key] = value
            } else {
                contents.propertyCache?.removeObject(forKey: key)
            }
        }
    }

    // MARK: - Coordinator state

    /// The record's version for optimistic locking.
    package var version: Int64 {
        get { contents.withLock { $0.value.version } }
        set { update { $0.version = newValue } }
    }

    /// The property cache's entries and the version, to put back if a save fails.
    package func backup() -> Backup {
        contents.withLock { box in
            let entries = box.value.propertyCache.map { cache in
                cache.allKeys.compactMap { key -> (AnyHashable, Any)? in
                    guard let key = key as? AnyHashable, let value = cache[key] else { return nil }
                    return (key, value)
                }
            }
            return Backup(entries: entries, version: box.value.version)
        }
    }

    /// Puts back what `backup()` returned.
    package func restore(_ backup: Backup) {
        update { contents in
            contents.version = backup.version
            guard let entries = backup.entries else {
                contents.propertyCache = nil
                return
            }
            // The same dictionary object, emptied and refilled: the store may hold it.
            let cache = contents.propertyCache ?? NSMutableDictionary()
            cache.removeAllObjects()
            for (key, value) in entries { cache.setObject(value, forKey: key) }
            contents.propertyCache = cache
        }
    }

    /// A node's values as they were before a save.
    package struct Backup {
        fileprivate let entries: [(AnyHashable, Any)]?
        fileprivate let version: Int64
    }

    private func update(_ body: (inout Contents) -> Void) {
        contents.withLock { box in
            var value = box.value
            body(&value)
            box = UncheckedBox(value)
        }
    }
}
