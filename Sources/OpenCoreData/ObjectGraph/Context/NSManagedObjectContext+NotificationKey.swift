import Foundation

// MARK: - Typed userInfo keys and the ID-only notification names

extension NSManagedObjectContext {
    /// Keys of the user info dictionaries of a context's notifications.
    ///
    /// Each raw value is the string constant of the same meaning (`NSInsertedObjectsKey`, …), so
    /// `userInfo[NotificationKey.insertedObjects.rawValue]` and `userInfo[NSInsertedObjectsKey]`
    /// read the same entry.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/notificationkey>.
    public enum NotificationKey: String, Sendable {
        /// The context's set of inserted objects.
        case insertedObjects = "inserted"
        /// The context's set of updated objects.
        case updatedObjects = "updated"
        /// The context's set of deleted objects.
        case deletedObjects = "deleted"
        /// The context's set of refreshed objects.
        case refreshedObjects = "refreshed"
        /// The context's set of invalidated objects.
        case invalidatedObjects = "invalidated"
        /// Present when every registered object was invalidated (`reset()`).
        case invalidatedAllObjects = "invalidatedAll"
        /// The set of inserted object IDs.
        case insertedObjectIDs = "inserted_objectIDs"
        /// The set of updated object IDs.
        case updatedObjectIDs = "updated_objectIDs"
        /// The set of deleted object IDs.
        case deletedObjectIDs = "deleted_objectIDs"
        /// The set of refreshed object IDs.
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// The set of invalidated object IDs.
        case invalidatedObjectIDs = "invalidated_objectIDs"
        /// The query generation token.
        case queryGeneration = "managedObjectContextQueryGeneration"
    }

    /// Posted after a context merged changes, with the merged objects' IDs only (iOS 14).
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")
}

/// userInfo key: the query generation token (Apple does not document the string's value).
public let NSManagedObjectContextQueryGenerationKey = NSManagedObjectContext.NotificationKey.queryGeneration.rawValue

extension Notification.Name {
    /// Posted after a context saved, with the saved objects' IDs only; the same as
    /// `NSManagedObjectContext.didSaveObjectIDsNotification`.
    public static let NSManagedObjectContextDidSaveObjectIDs = NSManagedObjectContext.didSaveObjectIDsNotification
    /// Posted after a context merged changes, with the merged objects' IDs only; the same as
    /// `NSManagedObjectContext.didMergeChangesObjectIDsNotification`.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = NSManagedObjectContext.didMergeChangesObjectIDsNotification
}
