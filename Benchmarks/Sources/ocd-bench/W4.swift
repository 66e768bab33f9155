import Foundation
import GRDB
import OpenCoreData

// W4: fetch 200k Items as faults (`includesPropertyValues = false`: IDs only, as Core Data
// documents it), then fire 10% of them (every tenth) by reading their ten values.
// Raw SQLite and GRDB do the same work: read every row id, then fetch every tenth row by id.

enum W4 {
    static func cases(_ bench: Bench) throws -> [BenchCase] {
        guard bench.options.selects("W4") else { return [] }
        let count = bench.sizes.w4Rows
        let fired = (count + 9) / 10
        let expectedSum = stride(from: 0, to: count, by: 10).reduce(Int64(0)) { $0 + Int64($1) } * 10
        let plain = try W1.plainItems(bench, count: count)
        let kvcURL = try W1.coreDataItems(bench, count: count, style: .kvc)
        let typedURL = try W1.coreDataItems(bench, count: count, style: .typed)

        let rawDB = try RawDatabase(path: plain.path)
        let raw = Variant.run {
            var sum: Int64 = 0
            var rows = 0
            let seconds = try timed {
                var keys: [Int64] = []
                let ids = try rawDB.prepare("SELECT rowid FROM item")
                while try ids.step() { keys.append(ids.int64(0)) }
                rows = keys.count
                let row = try rawDB.prepare("SELECT * FROM item WHERE rowid = ?")
                for index in stride(from: 0, to: keys.count, by: 10) {
                    row.reset()
                    row.bind(keys[index], at: 1)
                    guard try row.step() else { throw BenchError("row \(keys[index]) missing") }
                    for column in Int32(0)..<10 { sum &+= row.int64(column) }
                }
            }
            try check(rows == count && sum == expectedSum, "raw W4: \(rows) rows, sum \(sum)")
            return seconds
        }

        let dbQueue = try GRDBSupport.queue(plain)
        let grdbRows = Variant.run {
            var sum = 0
            var rows = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    let keys = try Int64.fetchAll(db, sql: "SELECT rowid FROM item")
                    rows = keys.count
                    let statement = try db.cachedStatement(sql: "SELECT * FROM item WHERE rowid = ?")
                    for index in stride(from: 0, to: keys.count, by: 10) {
                        guard let row = try Row.fetchOne(statement, arguments: [keys[index]]) else { throw BenchError("row missing") }
                        for column in 0..<10 { sum &+= row[column] as Int }
                    }
                }
            }
            try check(rows == count && Int64(sum) == expectedSum, "GRDB rows W4: \(rows) rows, sum \(sum)")
            return seconds
        }

        let grdbRecords = Variant.run {
            var sum = 0
            var rows = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    let keys = try Int64.fetchAll(db, sql: "SELECT rowid FROM item")
                    rows = keys.count
                    for index in stride(from: 0, to: keys.count, by: 10) {
                        guard let item = try ItemRecord.fetchOne(db, key: keys[index]) else { throw BenchError("row missing") }
                        sum &+= item.sum
                    }
                }
            }
            try check(rows == count && Int64(sum) == expectedSum, "GRDB records W4: \(rows) rows, sum \(sum)")
            return seconds
        }

        func ocd(_ style: Style, _ url: URL) throws -> Variant {
            let stack = try CoreDataStack(model: Models.item(style), url: url)
            return .run {
                let context = stack.context
                var sum: Int64 = 0
                var rows = 0
                let seconds = try timed {
                    switch style {
                    case .kvc:
                        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                        request.includesPropertyValues = false
                        let items = try context.fetch(request)
                        rows = items.count
                        for index in stride(from: 0, to: items.count, by: 10) {
                            let item = items[index]
                            for column in 0..<10 { sum &+= (item.value(forKey: W4.keys[column]) as! NSNumber).int64Value }
                        }
                    case .typed:
                        let request = NSFetchRequest<ItemObject>(entityName: "Item")
                        request.includesPropertyValues = false
                        let items = try context.fetch(request)
                        rows = items.count
                        for index in stride(from: 0, to: items.count, by: 10) {
                            let item = items[index]
                            sum &+= item.i0! &+ item.i1! &+ item.i2! &+ item.i3! &+ item.i4!
                            sum &+= item.i5! &+ item.i6! &+ item.i7! &+ item.i8! &+ item.i9!
                        }
                    }
                }
                context.reset()
                try check(rows == count && sum == expectedSum, "OCD \(style) W4: \(rows) rows, sum \(sum)")
                return seconds
            }
        }

        return [BenchCase(
            id: "W4",
            summary: "fetch \(count) Items as faults (includesPropertyValues = false; raw/GRDB: the row ids), then fire every tenth (\(fired)) by reading its 10 values",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords,
                       .ocdKVC: try ocd(.kvc, kvcURL), .ocdTyped: try ocd(.typed, typedURL)])]
    }

    static let keys = (0..<10).map { "i\($0)" }
}
