import Foundation
import GRDB
import OpenCoreData

// W6: update one attribute on 10% of 100k objects and save; then the same as one batch
// statement, which is what NSBatchUpdateRequest does.

enum W6 {
    static func cases(_ bench: Bench) throws -> [BenchCase] {
        let rows = bench.sizes.w6Rows
        let limit = Int64(Things.categories / 10)
        let changed = (0..<rows).filter { Int64(Things.category($0)) < limit }.count
        var cases: [BenchCase] = []
        // Each comparator gets its own copy: the values grow by one every iteration.
        func copy(_ comparator: Comparator, _ tag: String) throws -> URL {
            let source: URL
            switch comparator {
            case .ocdKVC: source = try Things.coreDataStore(bench, count: rows, indexed: false, style: .kvc)
            case .ocdTyped: source = try Things.coreDataStore(bench, count: rows, indexed: false, style: .typed)
            default: source = try Things.plainStore(bench, count: rows, indexed: false)
            }
            let url = bench.url("w6-\(tag)-\(comparator.key).sqlite")
            try bench.copyStore(source, to: url)
            return url
        }
        /// Checks that one run added exactly one to the value of each of the `changed` rows.
        func verified(_ url: URL, table: String, _ body: () throws -> Double) throws -> Double {
            let sql = "SELECT COUNT(*), TOTAL(\(table == "thing" ? "value" : "ZVALUE")) FROM \(table) WHERE \(table == "thing" ? "category" : "ZCATEGORY") < \(limit)"
            func total() throws -> Int64 {
                let db = try RawDatabase(path: url.path)
                let statement = try db.prepare(sql)
                _ = try statement.step()
                return Int64(statement.double(1))
            }
            let before = try total()
            let seconds = try body()
            let after = try total()
            try check(after - before == Int64(changed), "W6 changed the total by \(after - before), expected \(changed)")
            return seconds
        }

        if bench.options.selects("W6-objects") {
            var urls: [Comparator: URL] = [:]
            for comparator in Comparator.allCases { urls[comparator] = try copy(comparator, "objects") }

            let raw = Variant.run {
                let url = urls[.raw]!
                let db = try RawDatabase(path: url.path)
                return try verified(url, table: "thing") {
                    try timed {
                        try db.transaction {
                            var rows: [(Int64, Int64)] = []
                            let select = try db.prepare("SELECT pk, value FROM thing WHERE category < ?")
                            select.bind(limit, at: 1)
                            while try select.step() { rows.append((select.int64(0), select.int64(1))) }
                            let update = try db.prepare("UPDATE thing SET value = ? WHERE pk = ?")
                            for (key, value) in rows {
                                update.bind(value + 1, at: 1)
                                update.bind(key, at: 2)
                                try update.run()
                            }
                        }
                    }
                }
            }

            let grdbRows = Variant.run {
                let url = urls[.grdbRows]!
                let dbQueue = try GRDBSupport.queue(url)
                defer { try? dbQueue.close() }
                return try verified(url, table: "thing") {
                    try timed {
                        try dbQueue.inTransaction { db in
                            let rows = try Row.fetchAll(db, sql: "SELECT pk, value FROM thing WHERE category < ?", arguments: [limit])
                            let update = try db.makeStatement(sql: "UPDATE thing SET value = ? WHERE pk = ?")
                            for row in rows {
                                update.setUncheckedArguments([(row[1] as Int64) + 1, row[0] as Int64])
                                try update.execute()
                            }
                            return .commit
                        }
                    }
                }
            }

            let grdbRecords = Variant.run {
                let url = urls[.grdbRecords]!
                let dbQueue = try GRDBSupport.queue(url)
                defer { try? dbQueue.close() }
                return try verified(url, table: "thing") {
                    try timed {
                        try dbQueue.inTransaction { db in
                            var things = try ThingRecord.filter(Column("category") < limit).fetchAll(db)
                            for index in things.indices {
                                things[index].value += 1
                                try things[index].update(db, columns: ["value"])
                            }
                            return .commit
                        }
                    }
                }
            }

            func ocd(_ style: Style) throws -> Variant {
                let comparator: Comparator = style == .kvc ? .ocdKVC : .ocdTyped
                let url = urls[comparator]!
                let stack = try CoreDataStack(model: Models.thing(style, indexed: false), url: url)
                return .run {
                    let context = stack.context
                    defer { context.reset() }
                    return try verified(url, table: "ZTHING") {
                        try timed {
                            switch style {
                            case .kvc:
                                let request = NSFetchRequest<NSManagedObject>(entityName: "Thing")
                                request.predicate = NSPredicate(format: "category < %d", limit)
                                for thing in try context.fetch(request) {
                                    let value = (thing.value(forKey: "value") as! NSNumber).int64Value
                                    thing.setValue(NSNumber(value: value + 1), forKey: "value")
                                }
                            case .typed:
                                let request = NSFetchRequest<ThingObject>(entityName: "Thing")
                                request.predicate = NSPredicate(format: "category < %d", limit)
                                for thing in try context.fetch(request) {
                                    thing.value += 1
                                }
                            }
                            try context.save()
                        }
                    }
                }
            }

            cases.append(BenchCase(
                id: "W6-objects",
                summary: "fetch the \(changed) of \(rows) things with category < \(limit), add 1 to value, save (raw/GRDB: SELECT, then one UPDATE per row, one transaction)",
                variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: try ocd(.kvc), .ocdTyped: try ocd(.typed)]))
        }

        if bench.options.selects("W6-batch") {
            var urls: [Comparator: URL] = [:]
            for comparator in Comparator.allCases { urls[comparator] = try copy(comparator, "batch") }
            let sql = "UPDATE thing SET value = value + 1 WHERE category < \(limit)"

            let raw = Variant.run {
                let url = urls[.raw]!
                let db = try RawDatabase(path: url.path)
                return try verified(url, table: "thing") {
                    try timed { try db.transaction { try db.execute(sql) } }
                }
            }
            let grdbRows = Variant.run {
                let url = urls[.grdbRows]!
                let dbQueue = try GRDBSupport.queue(url)
                defer { try? dbQueue.close() }
                return try verified(url, table: "thing") {
                    try timed { try dbQueue.write { db in try db.execute(sql: sql) } }
                }
            }
            let grdbRecords = Variant.run {
                let url = urls[.grdbRecords]!
                let dbQueue = try GRDBSupport.queue(url)
                defer { try? dbQueue.close() }
                return try verified(url, table: "thing") {
                    try timed {
                        _ = try dbQueue.write { db in try ThingRecord.filter(Column("category") < limit).updateAll(db, Column("value") += 1) }
                    }
                }
            }
            // One NSBatchUpdateRequest; the styles differ only in the model's classes.
            func batch(_ style: Style) throws -> Variant {
                let url = urls[style == .kvc ? .ocdKVC : .ocdTyped]!
                let stack = try CoreDataStack(model: Models.thing(style, indexed: false), url: url)
                return .run {
                    let context = stack.context
                    return try verified(url, table: "ZTHING") {
                        try timed {
                            let request = NSBatchUpdateRequest(entityName: "Thing")
                            request.predicate = NSPredicate(format: "category < %d", limit)
                            request.propertiesToUpdate = ["value": NSExpression(format: "value + 1")]
                            request.resultType = .updatedObjectsCountResultType
                            let result = try context.execute(request) as! NSBatchUpdateResult
                            try check((result.result as? Int) == changed, "W6-batch updated \(String(describing: result.result)) rows, expected \(changed)")
                        }
                    }
                }
            }
            cases.append(BenchCase(
                id: "W6-batch",
                summary: "the same change as one statement: UPDATE … SET value = value + 1 WHERE category < \(limit) (OpenCoreData: NSBatchUpdateRequest)",
                variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: try batch(.kvc), .ocdTyped: try batch(.typed)]))
        }
        return cases
    }
}
