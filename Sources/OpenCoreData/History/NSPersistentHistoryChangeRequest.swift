import Foundation

/// What a history request returns.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistoryresulttype>
/// (Apple's raw values).
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// `true` when the request succeeded.
    case statusOnly = 0
    /// The IDs of the changed objects.
    case objectIDs = 1
    /// The number of transactions (fetch) or of deleted transactions (delete).
    case count = 2
    /// The transactions, without their changes.
    case transactionsOnly = 3
    /// The changes, without their transactions.
    case changesOnly = 4
    /// The transactions with their changes.
    case transactionsAndChanges = 5
}

/// The result of a history request: `result` is shaped by `resultType`.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistoryresult>.
open class NSPersistentHistoryResult: NSPersistentStoreResult {
    /// `[NSPersistentHistoryTransaction]`, `[NSPersistentHistoryChange]`, `[NSManagedObjectID]`,
    /// an `NSNumber` count or an `NSNumber` Boolean, as `resultType` says.
    public let result: Any?
    /// The shape of `result`.
    public let resultType: NSPersistentHistoryResultType

    package init(result: Any?, resultType: NSPersistentHistoryResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}

/// A request to fetch or delete persistent history, run with `context.execute(_:)`.
///
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? NSPersistentHistoryResult
/// for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] {
///     context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
/// }
/// ```
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest>.
open class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest {
    /// Where the request starts (fetch) or ends (delete).
    package enum Bound {
        case all
        case date(Date)
        case token(NSPersistentHistoryToken)
        case transaction(NSPersistentHistoryTransaction)
    }

    package private(set) var bound: Bound = .all
    package private(set) var isDelete = false

    /// The shape of the result; `.transactionsAndChanges` by default.
    open var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
    /// The token the request was made with, if any.
    public var token: NSPersistentHistoryToken? {
        if case .token(let token) = bound { return token }
        return nil
    }
    /// A fetch request on `NSPersistentHistoryTransaction` or `NSPersistentHistoryChange` whose
    /// predicate, limit and offset filter the history.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    /// A request that fetches all history; the class methods make the others.
    public required override init() {
        super.init()
    }

    private static func make(_ bound: Bound, delete: Bool) -> Self {
        let request = Self()
        request.bound = bound
        request.isDelete = delete
        return request
    }

    // MARK: - Fetching

    /// History after a date: transactions whose timestamp is later.
    open class func fetchHistory(after date: Date) -> Self { make(.date(date), delete: false) }

    /// History after a token: transactions recorded after the one it marks; all with nil.
    open class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self {
        make(token.map { .token($0) } ?? .all, delete: false)
    }

    /// History after a transaction; all with nil.
    open class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self {
        make(transaction.map { .transaction($0) } ?? .all, delete: false)
    }

    /// History a fetch request on `NSPersistentHistoryTransaction.fetchRequest` or
    /// `NSPersistentHistoryChange.fetchRequest` selects.
    open class func fetchHistory(withFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> Self {
        let request = make(.all, delete: false)
        request.fetchRequest = fetchRequest
        return request
    }

    // MARK: - Deleting

    /// Deletes the transactions older than a date.
    open class func deleteHistory(before date: Date) -> Self { make(.date(date), delete: true) }

    /// Deletes the transactions up to and including the one a token marks; all with nil.
    open class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self {
        make(token.map { .token($0) } ?? .all, delete: true)
    }

    /// Deletes the transactions up to and including `transaction`; all with nil.
    open class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self {
        make(transaction.map { .transaction($0) } ?? .all, delete: true)
    }

    open override var description: String {
        "<NSPersistentHistoryChangeRequest: \(isDelete ? "delete" : "fetch") \(bound) resultType: \(resultType)>"
    }
}
