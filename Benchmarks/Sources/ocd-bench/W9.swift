import Foundation
import GRDB
import OpenCoreData

// W9: peak RSS while iterating 1M fetched Items with fetchBatchSize 0, 20 and 500. Every run is
// a fresh child process, so each peak (VmHWM) belongs to one comparator and one run.
// Raw SQLite and GRDB step a cursor (memory is flat by construction); they are measured in
// every W9 case so each case has its own raw baseline.

enum W9 {
    static let batchSizes = [0, 20, 500]

    static func cases(_ bench: Bench) throws -> [BenchCase] {
        let count = bench.sizes.w9Rows
        let expectedSum = Int64(count) * Int64(count - 1) / 2
        var cases: [BenchCase] = []
        for batchSize in batchSizes where bench.options.selects("W9-batch\(batchSize)") {
            let plain = try W1.plainItems(bench, count: count)
            let kvcURL = try W1.coreDataItems(bench, count: count, style: .kvc)
            let typedURL = try W1.coreDataItems(bench, count: count, style: .typed)

            let raw = Variant.run {
                let db = try RawDatabase(path: plain.path)
                var rows = 0
                var sum: Int64 = 0
                let seconds = try timed {
                    let statement = try db.prepare("SELECT * FROM item")
                    while try statement.step() {
                        sum &+= statement.int64(0)
                        for column in Int32(1)..<10 { _ = statement.int64(column) }
                        rows += 1
                    }
                }
                try check(rows == count && sum == expectedSum, "raw W9 \(rows) rows")
                return seconds
            }

            let grdbRows = Variant.run {
                let dbQueue = try GRDBSupport.queue(plain)
                var rows = 0
                var sum = 0
                let seconds = try timed {
                    try dbQueue.read { db in
                        let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM item")
                        while let row = try cursor.next() {
                            sum &+= row[0] as Int
                            for column in 1..<10 { _ = row[column] as Int }
                            rows += 1
                        }
                    }
                }
                try check(rows == count && Int64(sum) == expectedSum, "GRDB rows W9 \(rows) rows")
                return seconds
            }

            let grdbRecords = Variant.run {
                let dbQueue = try GRDBSupport.queue(plain)
                var rows = 0
                var sum = 0
                let seconds = try timed {
                    try dbQueue.read { db in
                        let cursor = try ItemRecord.fetchCursor(db)
                        while let item = try cursor.next() {
                            sum &+= item.i0
                            rows += 1
                        }
                    }
                }
                try check(rows == count && Int64(sum) == expectedSum, "GRDB records W9 \(rows) rows")
                return seconds
            }

            func ocd(_ style: Style, _ url: URL) -> Variant {
                .run {
                    let stack = try CoreDataStack(model: Models.item(style), url: url)
                    var rows = 0
                    var sum: Int64 = 0
                    let seconds = try timed {
                        switch style {
                        case .kvc:
                            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                            request.fetchBatchSize = batchSize
                            let items = try stack.context.fetch(request)
                            for item in items {
                                sum &+= (item.value(forKey: "i0") as! NSNumber).int64Value
                                for key in W4.keys.dropFirst() { _ = item.value(forKey: key) }
                            }
                            rows = items.count
                        case .typed:
                            let request = NSFetchRequest<ItemObject>(entityName: "Item")
                            request.fetchBatchSize = batchSize
                            let items = try stack.context.fetch(request)
                            for item in items {
                                sum &+= item.i0!
                                _ = (item.i1, item.i2, item.i3, item.i4, item.i5, item.i6, item.i7, item.i8, item.i9)
                            }
                            rows = items.count
                        }
                    }
                    try check(rows == count && sum == expectedSum, "OCD \(style) W9 \(rows) rows, sum \(sum)")
                    return seconds
                }
            }

            let cursorNote = "cursor; batch size does not apply"
            cases.append(BenchCase(
                id: "W9-batch\(batchSize)",
                summary: "iterate \(count) Items reading 10 values, fetchBatchSize \(batchSize) (raw/GRDB: a \(cursorNote)); fresh process per run, peak RSS = VmHWM",
                isolated: true,
                variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords,
                           .ocdKVC: ocd(.kvc, kvcURL), .ocdTyped: ocd(.typed, typedURL)]))
        }
        return cases
    }
}
