import Foundation
import GRDB
import OpenCoreData

// W1: GRDB's own performance suite (Tests/Performance/GRDBPerformance, v7.10.0).
// Raw SQLite and GRDB run the suite's code (InsertPositionalValuesTests, InsertRecordStructTests,
// FetchPositionalValuesTests, FetchRecordStructTests) with WAL + synchronous=NORMAL; the
// OpenCoreData columns run the suite's Core Data code (InsertRecordClassTests.testCoreData,
// FetchRecordClassTests.testCoreData) unchanged except for one Linux difference: Swift on Linux
// has no `AnyObject` dynamic lookup, so `item as AnyObject` becomes `item as! NSManagedObject`.

enum W1 {
    static let createItemTable = "CREATE TABLE item (i0 INT, i1 INT, i2 INT, i3 INT, i4 INT, i5 INT, i6 INT, i7 INT, i8 INT, i9 INT)"
    static let insertItem = "INSERT INTO item (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) VALUES (?,?,?,?,?,?,?,?,?,?)"

    static func cases(_ bench: Bench) throws -> [BenchCase] {
        var cases: [BenchCase] = []
        if bench.options.selects("W1-insert") { cases.append(try insert(bench)) }
        if bench.options.selects("W1-fetch") { cases.append(try fetch(bench)) }
        return cases
    }

    // MARK: - Insert

    static func insert(_ bench: Bench) throws -> BenchCase {
        let count = bench.sizes.w1Insert
        let expectedSum = Int64(count) * Int64(count - 1) / 2

        func verifyPlain(_ url: URL) throws {
            let stats = try rowStats(url, table: "item", column: "i9")
            try check(stats.count == Int64(count) && stats.sum == expectedSum, "W1-insert wrote \(stats)")
        }
        func verifyCoreData(_ url: URL) throws {
            let stats = try rowStats(url, table: "ZITEM", column: "ZI9")
            try check(stats.count == Int64(count) && stats.sum == expectedSum, "W1-insert wrote \(stats)")
        }

        let raw = Variant.run {
            let url = bench.url("w1-insert-raw.sqlite")
            Bench.removeStore(url)
            let seconds = try timed {
                let db = try RawDatabase(path: url.path)
                try db.execute(createItemTable)
                try db.execute("BEGIN TRANSACTION")
                do {
                    let statement = try db.prepare(insertItem)
                    for i in Int64(0)..<Int64(count) {
                        statement.reset()
                        for column in Int32(1)...10 { statement.bind(i, at: column) }
                        _ = try statement.step()
                    }
                }
                try db.execute("COMMIT")
            }
            try verifyPlain(url)
            return seconds
        }

        let grdbRows = Variant.run {
            let url = bench.url("w1-insert-grdb-rows.sqlite")
            Bench.removeStore(url)
            let seconds = try timed {
                let dbQueue = try GRDBSupport.queue(url)
                try dbQueue.inDatabase { db in try db.execute(sql: createItemTable) }
                try dbQueue.inTransaction { db in
                    let statement = try db.makeStatement(sql: insertItem)
                    for i in 0..<count {
                        statement.setUncheckedArguments([i, i, i, i, i, i, i, i, i, i])
                        try statement.execute()
                    }
                    return .commit
                }
            }
            try verifyPlain(url)
            return seconds
        }

        let grdbRecords = Variant.run {
            let url = bench.url("w1-insert-grdb-records.sqlite")
            Bench.removeStore(url)
            let seconds = try timed {
                let dbQueue = try GRDBSupport.queue(url)
                try dbQueue.inDatabase { db in try db.execute(sql: createItemTable) }
                try dbQueue.inTransaction { db in
                    for i in 0..<count {
                        try ItemRecord(i0: i, i1: i, i2: i, i3: i, i4: i, i5: i, i6: i, i7: i, i8: i, i9: i).insert(db)
                    }
                    return .commit
                }
            }
            try verifyPlain(url)
            return seconds
        }

        let kvcModel = Models.item(.kvc)
        let ocdKVC = Variant.run {
            let url = bench.url("w1-insert-ocd-kvc.sqlite")
            Bench.removeStore(url)
            let mom = kvcModel
            let seconds = try timed {
                // InsertRecordClassTests.testCoreData, verbatim.
                let psc = NSPersistentStoreCoordinator(managedObjectModel: mom)
                let store = try psc.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
                let moc = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
                moc.persistentStoreCoordinator = psc

                for i in 0..<count {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: moc)
                    item.setValue(NSNumber(value: i), forKey: "i0")
                    item.setValue(NSNumber(value: i), forKey: "i1")
                    item.setValue(NSNumber(value: i), forKey: "i2")
                    item.setValue(NSNumber(value: i), forKey: "i3")
                    item.setValue(NSNumber(value: i), forKey: "i4")
                    item.setValue(NSNumber(value: i), forKey: "i5")
                    item.setValue(NSNumber(value: i), forKey: "i6")
                    item.setValue(NSNumber(value: i), forKey: "i7")
                    item.setValue(NSNumber(value: i), forKey: "i8")
                    item.setValue(NSNumber(value: i), forKey: "i9")
                }
                try moc.save()
                try psc.remove(store)
            }
            try verifyCoreData(url)
            return seconds
        }

        let typedModel = Models.item(.typed)
        let ocdTyped = Variant.run {
            let url = bench.url("w1-insert-ocd-typed.sqlite")
            Bench.removeStore(url)
            let mom = typedModel
            let seconds = try timed {
                let psc = NSPersistentStoreCoordinator(managedObjectModel: mom)
                let store = try psc.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
                let moc = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
                moc.persistentStoreCoordinator = psc

                for i in Int64(0)..<Int64(count) {
                    let item = ItemObject(context: moc)
                    item.i0 = i
                    item.i1 = i
                    item.i2 = i
                    item.i3 = i
                    item.i4 = i
                    item.i5 = i
                    item.i6 = i
                    item.i7 = i
                    item.i8 = i
                    item.i9 = i
                }
                try moc.save()
                try psc.remove(store)
            }
            try verifyCoreData(url)
            return seconds
        }

        return BenchCase(
            id: "W1-insert",
            summary: "open a new file, create the table, insert \(count) Item rows (10 integers) in one transaction / one save, close",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: ocdKVC, .ocdTyped: ocdTyped])
    }

    // MARK: - Fetch

    /// An Item store made by OpenCoreData with `count` rows where every value of row n is n.
    static func coreDataItems(_ bench: Bench, count: Int, style: Style) throws -> URL {
        try bench.fixture("items-ocd-\(style)-\(count).sqlite") { url in
            let stack = try CoreDataStack(model: Models.item(style), url: url)
            var i = 0
            while i < count {
                let end = min(i + 50_000, count)
                for n in i..<end {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context)
                    for column in 0..<10 { item.setValue(NSNumber(value: n), forKey: "i\(column)") }
                }
                try stack.context.save()
                stack.context.reset()
                i = end
            }
            try stack.close()
        }
    }

    /// The plain `item` table of GRDB's suite with `count` rows.
    static func plainItems(_ bench: Bench, count: Int) throws -> URL {
        try bench.fixture("items-plain-\(count).sqlite") { url in
            let db = try RawDatabase(path: url.path)
            try db.execute(createItemTable)
            try db.transaction {
                let statement = try db.prepare(insertItem)
                for i in Int64(0)..<Int64(count) {
                    statement.reset()
                    for column in Int32(1)...10 { statement.bind(i, at: column) }
                    _ = try statement.step()
                }
            }
        }
    }

    static func fetch(_ bench: Bench) throws -> BenchCase {
        let count = bench.sizes.w1Fetch
        let expectedSum = Int64(count) * Int64(count - 1) / 2
        let plain = try plainItems(bench, count: count)
        let kvcURL = try coreDataItems(bench, count: count, style: .kvc)
        let typedURL = try coreDataItems(bench, count: count, style: .typed)

        // Connections are opened once, outside the measured part, as in GRDB's suite.
        let rawDB = try RawDatabase(path: plain.path)
        let raw = Variant.run {
            var rows = 0
            var sum: Int64 = 0
            let seconds = try timed {
                let statement = try rawDB.prepare("SELECT * FROM item")
                while try statement.step() {
                    for column in Int32(0)..<10 { sum &+= statement.int64(column) }
                    rows += 1
                }
            }
            try check(rows == count && sum == expectedSum * 10, "raw fetched \(rows) rows, sum \(sum)")
            return seconds
        }

        let dbQueue = try GRDBSupport.queue(plain)
        let grdbRows = Variant.run {
            var rows = 0
            var sum = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM item")
                    while let row = try cursor.next() {
                        sum &+= row[0] as Int
                        sum &+= row[1] as Int
                        sum &+= row[2] as Int
                        sum &+= row[3] as Int
                        sum &+= row[4] as Int
                        sum &+= row[5] as Int
                        sum &+= row[6] as Int
                        sum &+= row[7] as Int
                        sum &+= row[8] as Int
                        sum &+= row[9] as Int
                        rows += 1
                    }
                }
            }
            try check(rows == count && Int64(sum) == expectedSum * 10, "GRDB rows fetched \(rows) rows, sum \(sum)")
            return seconds
        }

        let grdbRecords = Variant.run {
            var items: [ItemRecord] = []
            var sum = 0
            let seconds = try timed {
                items = try dbQueue.inDatabase { db in try ItemRecord.fetchAll(db) }
                for item in items { sum &+= item.sum }
            }
            try check(items.count == count && Int64(sum) == expectedSum * 10, "GRDB records fetched \(items.count) rows, sum \(sum)")
            return seconds
        }

        let kvcStack = try CoreDataStack(model: Models.item(.kvc), url: kvcURL)
        let ocdKVC = Variant.run {
            let moc = kvcStack.context
            var rows = 0
            var sum: Int64 = 0
            let seconds = try timed {
                // FetchRecordClassTests.testCoreData; `item as AnyObject` is `item as! NSManagedObject` on Linux.
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
                let items = try moc.fetch(request)
                for item in items {
                    let item = item as! NSManagedObject
                    sum &+= (item.value(forKey: "i0") as! NSNumber).int64Value
                    _ = item.value(forKey: "i1")
                    _ = item.value(forKey: "i2")
                    _ = item.value(forKey: "i3")
                    _ = item.value(forKey: "i4")
                    _ = item.value(forKey: "i5")
                    _ = item.value(forKey: "i6")
                    _ = item.value(forKey: "i7")
                    _ = item.value(forKey: "i8")
                    _ = item.value(forKey: "i9")
                }
                rows = items.count
            }
            try check(rows == count && sum == expectedSum, "OCD KVC fetched \(rows) rows, sum \(sum)")
            return seconds
        }

        let typedStack = try CoreDataStack(model: Models.item(.typed), url: typedURL)
        let ocdTyped = Variant.run {
            let moc = typedStack.context
            var rows = 0
            var sum: Int64 = 0
            let seconds = try timed {
                let items = try moc.fetch(NSFetchRequest<ItemObject>(entityName: "Item"))
                for item in items {
                    sum &+= item.i0! &+ item.i1! &+ item.i2! &+ item.i3! &+ item.i4!
                    sum &+= item.i5! &+ item.i6! &+ item.i7! &+ item.i8! &+ item.i9!
                }
                rows = items.count
            }
            try check(rows == count && sum == expectedSum * 10, "OCD typed fetched \(rows) rows, sum \(sum)")
            return seconds
        }

        return BenchCase(
            id: "W1-fetch",
            summary: "fetch \(count) Item rows and read all 10 values of each (connection/stack opened beforehand)",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: ocdKVC, .ocdTyped: ocdTyped])
    }
}
