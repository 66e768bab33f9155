import Foundation

/// userInfo key of a context's DidSave notifications (and remote-change notifications): the
/// history token of the save, when the store tracks persistent history.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistorytokenkey>.
public let NSPersistentHistoryTokenKey = "historyToken"

/// A bookmark in the persistent history of one or more stores: the last transaction seen in each.
///
/// ```swift
/// let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
/// let data = try NSKeyedArchiver.archivedData(withRootObject: token!, requiringSecureCoding: true)
/// ```
///
/// Tokens are equal when they name the same transactions of the same stores; they archive
/// with `NSKeyedArchiver` (secure coding) and encode with `Codable`, so apps can keep them
/// across launches.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistorytoken>.
public final class NSPersistentHistoryToken: NSObject, NSCopying, Sendable {
    /// The number of the last transaction of each store, by store identifier.
    package let transactionNumbers: [String: Int64]

    package init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
        super.init()
    }

    /// The transaction this token marks in a store, or nil when it names no transaction there.
    package func transactionNumber(forStore identifier: String) -> Int64? {
        transactionNumbers[identifier]
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPersistentHistoryToken else { return false }
        return transactionNumbers == other.transactionNumbers
    }

    public override var hash: Int {
        var hasher = Hasher()
        for (store, number) in transactionNumbers.sorted(by: { $0.key < $1.key }) {
            hasher.combine(store)
            hasher.combine(number)
        }
        return hasher.finalize()
    }

    public override var description: String {
        let parts = transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return "<NSPersistentHistoryToken: {\(parts.joined(separator: ", "))}>"
    }
}
