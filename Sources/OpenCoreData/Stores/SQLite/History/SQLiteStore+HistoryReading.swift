import Foundation
import GRDB

// MARK: - Reading and deleting history

extension SQLiteStore {
    private var historySQL: SQLHistoryStatements { SQLiteHistoryRecorder.statements }

    /// Transactions after the request's bound, in number order, with their changes when asked.
    ///
    /// - Throws: `NSPersistentHistoryTokenExpiredError` (134301) when the bound is a transaction
    ///   whose successors were deleted (`deleteHistory(before:)` went past it).
    func fetchHistory(_ request: StoreHistoryRequest, store: NSPersistentStore) throws -> [StoreHistoryTransaction] {
        let dialect = Self.dialect
        var conditions = Self.historyBound(request.bound, after: true)
        let transactionLowering = SQLHistoryPredicateLowering(keys: SQLHistoryPredicateLowering.transactionKeys(historySQL, dialect: dialect), dialect: dialect)
        let changeLowering = SQLHistoryPredicateLowering(keys: SQLHistoryPredicateLowering.changeKeys(dialect: dialect), dialect: dialect)
        let transactionCondition = request.transactionPredicate.flatMap { transactionLowering.lower($0.node) }
        let changeCondition = request.changePredicate.flatMap { changeLowering.lower($0.node) }
        // A predicate that does not lower is evaluated in memory, and paging then follows it.
        let pagesInSQL = request.transactionPredicate == nil || transactionCondition != nil
        if let transactionCondition { conditions.append(transactionCondition) }

        return try read { db in
            if case .transaction(let number) = request.bound { try checkNotExpired(number, db: db) }
            let select = historySQL.selectTransactions(where: conditions, limit: pagesInSQL ? request.fetchLimit : 0,
                                                       offset: pagesInSQL ? request.fetchOffset : 0)
            var transactions: [StoreHistoryTransaction] = []
            try run(db, select) { statement, arguments in
                let rows = try Row.fetchCursor(statement, arguments: arguments)
                while let row = try rows.next() {
                    let seconds: Double = row[1] ?? 0
                    transactions.append(StoreHistoryTransaction(number: row[0], timestamp: Date(timeIntervalSinceReferenceDate: seconds),
                                                                author: row[2], bundleID: row[3], contextName: row[4], processID: row[5]))
                }
            }
            if let predicate = request.transactionPredicate, !pagesInSQL {
                transactions = transactions.filter { predicate.evaluate(with: $0.keyValues) }
                transactions = Array(transactions.dropFirst(request.fetchOffset))
                if request.fetchLimit > 0 { transactions = Array(transactions.prefix(request.fetchLimit)) }
            }
            guard request.includesChanges || request.changePredicate != nil, let first = transactions.first?.number,
                  let last = transactions.last?.number else { return transactions }
            var changes = try readChanges(first: first, last: last, condition: changeCondition, db: db, store: store)
            if let predicate = request.changePredicate, changeCondition == nil {
                for (number, list) in changes { changes[number] = list.filter { predicate.evaluate(with: $0.keyValues(store: store)) } }
            }
            var result: [StoreHistoryTransaction] = []
            result.reserveCapacity(transactions.count)
            for var transaction in transactions {
                let list = changes[transaction.number] ?? []
                // With a change predicate, a transaction none of whose changes match is left out.
                if request.changePredicate != nil && list.isEmpty { continue }
                transaction.changes = request.includesChanges ? list : nil
                result.append(transaction)
            }
            return result
        }
    }

    /// The changes of transactions `first…last`, by transaction number.
    private func readChanges(first: Int64, last: Int64, condition: SQLFragment?, db: Database,
                             store: NSPersistentStore) throws -> [Int64: [StoreHistoryChange]] {
        var result: [Int64: [StoreHistoryChange]] = [:]
        var unknownEntities = Set<Int64>()
        try run(db, historySQL.selectChanges(first: first, last: last, where: condition.map { [$0] } ?? [])) { statement, arguments in
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try rows.next() {
                let entityNumber: Int64 = row[2] ?? 0
                guard let entity = schema.entity(number: Int(entityNumber)),
                      let kind = StoreHistoryChangeKind(rawValue: row[1] ?? -1) else {
                    // A row of an entity this model lacks (or of an unknown kind) cannot name an object.
                    unknownEntities.insert(entityNumber)
                    continue
                }
                let columns = SQLiteHistoryColumns.decode(row[5])
                let transaction: Int64 = row[4] ?? 0
                result[transaction, default: []].append(StoreHistoryChange(
                    changeID: row[0], entity: entity, primaryKey: row[3] ?? 0, kind: kind,
                    updatedPropertyNames: kind == .update ? columns.updated : nil,
                    tombstone: kind == .delete ? columns.tombstone.map { Self.publicTombstone($0, entity: entity) } : nil,
                    transactionNumber: transaction))
            }
        }
        if !unknownEntities.isEmpty {
            Log.store.info("History changes of unknown entities or kinds (Z_ENT \(unknownEntities.sorted())) in \(url.path) were skipped")
        }
        return result
    }

    /// Tombstone values as the attributes' types give them (UUIDs, URLs and decimals are stored as strings).
    private static func publicTombstone(_ values: [String: Any], entity: NSEntityDescription) -> [String: Any] {
        var result = values
        for (name, value) in values {
            guard let attribute = entity.attributesByName[name], let text = value as? String else { continue }
            switch attribute.attributeType {
            case .UUIDAttributeType: if let uuid = UUID(uuidString: text) { result[name] = uuid }
            case .URIAttributeType: if let url = URL(string: text) { result[name] = url }
            case .decimalAttributeType: if let decimal = Decimal(string: text) { result[name] = NSDecimalNumber(decimal: decimal) }
            default: break
            }
        }
        return result
    }

    /// Throws 134301 when transactions after `number` were deleted: history numbers are
    /// consecutive, so that is when the first stored one (or the next to come, when none is
    /// left) is past `number + 1`.
    private func checkNotExpired(_ number: Int64, db: Database) throws {
        let first = try Int64.fetchOne(db, sql: historySQL.selectFirstTransaction)
        let next = try first ?? ((Int64.fetchOne(db, sql: Self.bookkeeping.selectMaxKey, arguments: [SQLHistoryStatements.transactionEntityNumber]) ?? 0) + 1)
        guard number < next - 1 else { return }
        throw CoreDataError.make(NSPersistentHistoryTokenExpiredError,
                                 "The persistent history token (transaction \(number)) of the store \(url.path) has expired: the history after it was deleted. Fetch all history or start again from the current token.",
                                 userInfo: [NSFilePathErrorKey: url.path])
    }

    /// The condition on transactions of a request's bound: those after it (a fetch: later than
    /// the date, after the transaction) or those before it (a delete: older than the date, up
    /// to and including the transaction).
    private static func historyBound(_ bound: StoreHistoryRequest.Bound, after: Bool) -> [SQLFragment] {
        let t = SQLHistoryStatements.transactionAlias
        switch bound {
        case .all:
            return []
        case .date(let date):
            return [dialect.column("ZTIMESTAMP", of: t) + (after ? " > " : " < ") + dialect.parameter(.real(date.timeIntervalSinceReferenceDate))]
        case .transaction(let number):
            return [dialect.column("Z_PK", of: t) + (after ? " > " : " <= ") + dialect.parameter(.integer(number))]
        }
    }

    /// Deletes the transactions the request's bound selects (up to and including a transaction,
    /// or older than a date) with their changes; interned strings stay.
    func deleteHistory(_ request: StoreHistoryRequest) throws -> Int {
        let dialect = Self.dialect
        var conditions = Self.historyBound(request.bound, after: false)
        if let predicate = request.transactionPredicate {
            let lowering = SQLHistoryPredicateLowering(keys: SQLHistoryPredicateLowering.transactionKeys(historySQL, dialect: dialect), dialect: dialect)
            guard let lowered = lowering.lower(predicate.node) else {
                throw CoreDataError.make(NSCoreDataError, "deleteHistory cannot evaluate the predicate \(predicate) in SQL; nothing was deleted.")
            }
            conditions.append(lowered)
        }
        return try writeTransaction { db in
            try run(db, historySQL.deleteChanges(ofTransactionsWhere: conditions)) { statement, arguments in
                try statement.execute(arguments: arguments)
            }
            var deleted = 0
            try run(db, historySQL.deleteTransactions(where: conditions)) { statement, arguments in
                try statement.execute(arguments: arguments)
                deleted = db.changesCount
            }
            return deleted
        }
    }
}

// MARK: - Values for in-memory predicates

extension StoreHistoryTransaction {
    /// The transaction's keys as `NSPersistentHistoryTransaction`'s entity names them.
    var keyValues: [String: Any] {
        var values: [String: Any] = ["timestamp": timestamp, "transactionNumber": NSNumber(value: number)]
        values["author"] = author
        values["bundleID"] = bundleID
        values["contextName"] = contextName
        values["processID"] = processID
        return values
    }
}

extension StoreHistoryChange {
    /// The change's keys as `NSPersistentHistoryChange`'s entity names them.
    func keyValues(store: NSPersistentStore) -> [String: Any] {
        var values: [String: Any] = [
            "changeID": NSNumber(value: changeID), "changeType": NSNumber(value: kind.rawValue),
            "changedEntity": entity, "changedObjectID": NSManagedObjectID(entity: entity, primaryKey: primaryKey, store: store),
        ]
        values["tombstone"] = tombstone
        return values
    }
}
