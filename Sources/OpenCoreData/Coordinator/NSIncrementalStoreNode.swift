import Foundation
import Synchronization

/// The values and version of one record of an incremental store, as the store hands them to
/// the coordinator.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsincrementalstorenode>. Values
/// are keyed by property name: attributes as value objects (`String`, `NSNumber`, `Date`,
/// `Data`…; a missing key is nil), to-one relationships as the destination's
/// `NSManagedObjectID` or `NSNull` (a missing key is asked of
/// `newValue(forRelationship:forObjectWith:with:)`); to-many relationships are always asked of it.
///
/// `@unchecked Sendable`: the values and version live behind a Mutex.
open class NSIncrementalStoreNode: NSObject, @unchecked Sendable {
    private struct Contents {
        var values: [String: Any]
        var version: UInt64
    }
    private let contents: Mutex<UncheckedBox<Contents>>

    /// The object ID the node's values belong to.
    public let objectID: NSManagedObjectID

    /// Creates a node holding an object's persisted values at a version.
    public init(objectID: NSManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.contents = Mutex(UncheckedBox(Contents(values: values, version: version)))
        super.init()
    }

    /// Replaces the node's values and version after a save or a reload.
    open func update(withValues values: [String: Any], version: UInt64) {
        contents.withLock { $0 = UncheckedBox(Contents(values: values, version: version)) }
    }

    /// The version of the values: 0 for an unsaved object, one more for every save.
    open var version: UInt64 { contents.withLock { $0.value.version } }

    /// The value of a property; nil when the node does not hold it.
    open func value(for prop: NSPropertyDescription) -> Any? {
        contents.withLock { $0.value.values[prop.name] }
    }

    /// Whether the node holds a value (possibly `NSNull`) for a property name.
    package func hasValue(forKey key: String) -> Bool {
        contents.withLock { $0.value.values[key] != nil }
    }
}
