import Foundation

extension Notification.Name {
    /// Posted by a coordinator, when its store was added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`, after every commit to the store's
    /// file — by this coordinator, another one, or another process. The object is the
    /// coordinator; `userInfo` holds `NSStoreUUIDKey`, `NSPersistentStoreURLKey` and, when the
    /// store keeps persistent history, `NSPersistentHistoryTokenKey`.
    ///
    /// Mirrors <https://developer.apple.com/documentation/foundation/nsnotification/name/nspersistentstoreremotechange>.
    /// On Linux commits are found by polling the file every 50 ms (see docs/RemoteChanges.md).
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// The URL of the store whose file changed, in a remote-change notification.
public let NSPersistentStoreURLKey = "storeURL"

extension NSPersistentStoreCoordinator {
    /// Starts watching `store`'s file when it was added with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey` (SQLite stores; other stores
    /// have no file another process writes).
    func startRemoteChangeMonitoring(_ store: NSPersistentStore) throws -> SQLiteChangeMonitor? {
        guard SQLiteStoreOptions.bool(store.options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey]) == true,
              let sqlite = store.backend as? SQLiteStore else { return nil }
        let path = sqlite.readOnlyLocation?.path ?? sqlite.url.path
        return try SQLiteChangeMonitor(path: path, busyTimeout: sqlite.options.busyTimeout) { [weak self, weak store] in
            guard let self, let store else { return }
            self.postRemoteChange(for: store)
        }
    }

    private func postRemoteChange(for store: NSPersistentStore) {
        var userInfo: [AnyHashable: Any] = [NSStoreUUIDKey: store.identifier ?? ""]
        if let url = store.url { userInfo[NSPersistentStoreURLKey] = url }
        // With persistent history, the token of the latest transaction, to fetch the history after.
        if let token = currentPersistentHistoryToken(fromStores: [store]) { userInfo[NSPersistentHistoryTokenKey] = token }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: self, userInfo: userInfo)
    }
}
