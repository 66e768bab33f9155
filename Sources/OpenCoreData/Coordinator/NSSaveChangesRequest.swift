import Foundation

/// The changes of one save, as a custom store receives them in `execute(_:with:)`.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nssavechangesrequest>.
open class NSSaveChangesRequest: NSPersistentStoreRequest {
    /// The objects to insert; their IDs are already permanent.
    public let insertedObjects: Set<NSManagedObject>?
    /// The objects whose values changed.
    public let updatedObjects: Set<NSManagedObject>?
    /// The objects to delete.
    public let deletedObjects: Set<NSManagedObject>?
    /// The objects flagged for optimistic locking.
    public let lockedObjects: Set<NSManagedObject>?

    /// Creates a save request of these changes.
    public init(inserted insertedObjects: Set<NSManagedObject>?, updated updatedObjects: Set<NSManagedObject>?,
                deleted deletedObjects: Set<NSManagedObject>?, locked lockedObjects: Set<NSManagedObject>?) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.lockedObjects = lockedObjects
        super.init()
    }

    /// Always `.saveRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .saveRequestType }
}
