import Foundation

// MARK: - Store notifications

extension Notification.Name {
    /// Posted after stores were added to or removed from a coordinator; the object is the
    /// coordinator, and `NSAddedPersistentStoresKey`/`NSRemovedPersistentStoresKey` list the stores.
    public static let NSPersistentStoreCoordinatorStoresDidChange = Notification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Posted before a coordinator's stores change wholesale. Apple posts it for ubiquitous
    /// (iCloud) stores, which OpenCoreData does not have, so it is declared but never posted.
    public static let NSPersistentStoreCoordinatorStoresWillChange = Notification.Name("NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Posted before a coordinator removes a store; the object is the store.
    public static let NSPersistentStoreCoordinatorWillRemoveStore = Notification.Name("NSPersistentStoreCoordinatorWillRemoveStoreNotification")
}

/// userInfo key of `NSPersistentStoreCoordinatorStoresDidChange`: the added stores.
public let NSAddedPersistentStoresKey = "added"
/// userInfo key of `NSPersistentStoreCoordinatorStoresDidChange`: the removed stores.
public let NSRemovedPersistentStoresKey = "removed"
/// userInfo key of `NSPersistentStoreCoordinatorStoresDidChange`: stores whose UUID changed.
public let NSUUIDChangedPersistentStoresKey = "UUIDChanged"

extension NSPersistentStoreCoordinator {
    /// Posts `NSPersistentStoreCoordinatorStoresDidChange` for stores added or removed.
    func postStoresDidChange(added: [NSPersistentStore] = [], removed: [NSPersistentStore] = []) {
        var userInfo: [AnyHashable: Any] = [:]
        if !added.isEmpty { userInfo[NSAddedPersistentStoresKey] = added }
        if !removed.isEmpty { userInfo[NSRemovedPersistentStoresKey] = removed }
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: userInfo)
    }
}
