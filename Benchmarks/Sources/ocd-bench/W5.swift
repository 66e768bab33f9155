import Foundation
import GRDB
import OpenCoreData

// W5: per-query overhead. 1,000 × (predicate + sort + limit 10) on 100k rows, with and without
// an index; then 1,000 prefix searches `name BEGINSWITH[c] %@` with limit 7 on 5k rows
// (GRDB issue #981's autocomplete). Raw SQLite binds one prepared statement per query.

enum W5 {
    static let budget = 60.0

    static func cases(_ bench: Bench) throws -> [BenchCase] {
        var cases: [BenchCase] = []
        for indexed in [true, false] where bench.options.selects(indexed ? "W5-indexed" : "W5-unindexed") {
            cases.append(try topTen(bench, indexed: indexed))
        }
        if bench.options.selects("W5-prefix") { cases.append(try prefix(bench)) }
        return cases
    }

    static func topTen(_ bench: Bench, indexed: Bool) throws -> BenchCase {
        let rows = bench.sizes.w5Rows, queries = bench.sizes.w5Queries
        let categories = (0..<queries).map { Int64(($0 &* 37) % Things.categories) }
        let plain = try Things.plainStore(bench, count: rows, indexed: indexed)
        let kvcURL = try Things.coreDataStore(bench, count: rows, indexed: indexed, style: .kvc)
        let typedURL = try Things.coreDataStore(bench, count: rows, indexed: indexed, style: .typed)
        let sql = "SELECT pk, name, category, value FROM thing WHERE category = ? ORDER BY value DESC LIMIT 10"

        let rawDB = try RawDatabase(path: plain.path)
        func rawRun() throws -> Int64 {
            var sum: Int64 = 0
            let statement = try rawDB.prepare(sql)
            for category in categories {
                statement.reset()
                statement.bind(category, at: 1)
                while try statement.step() {
                    _ = statement.int64(0)
                    _ = statement.textLength(1)
                    _ = statement.int64(2)
                    sum &+= statement.int64(3)
                }
            }
            return sum
        }
        let expected = try rawRun()

        let raw = Variant.run {
            var sum: Int64 = 0
            let seconds = try timed { sum = try rawRun() }
            try check(sum == expected, "raw W5 sum \(sum)")
            return seconds
        }

        let dbQueue = try GRDBSupport.queue(plain)
        let grdbRows = Variant.run {
            var sum: Int64 = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    for category in categories {
                        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: [category])
                        while let row = try cursor.next() {
                            _ = row[0] as Int64
                            _ = row[1] as String
                            _ = row[2] as Int64
                            sum &+= row[3] as Int64
                        }
                    }
                }
            }
            try check(sum == expected, "GRDB rows W5 sum \(sum)")
            return seconds
        }

        let grdbRecords = Variant.run {
            var sum = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    for category in categories {
                        for thing in try ThingRecord.filter(Column("category") == category).order(Column("value").desc).limit(10).fetchAll(db) {
                            sum &+= thing.value
                        }
                    }
                }
            }
            try check(Int64(sum) == expected, "GRDB records W5 sum \(sum)")
            return seconds
        }

        func ocd(_ style: Style, _ url: URL) throws -> Variant {
            let stack = try CoreDataStack(model: Models.thing(style, indexed: indexed), url: url)
            return .run {
                let context = stack.context
                var sum: Int64 = 0
                let budget = Budget(seconds: W5.budget)
                let seconds = try timed {
                    for (done, category) in categories.enumerated() {
                        try budget.check(done: done, total: queries, what: "\(queries) queries")
                        switch style {
                        case .kvc:
                            let request = NSFetchRequest<NSManagedObject>(entityName: "Thing")
                            request.predicate = NSPredicate(format: "category == %d", category)
                            request.sortDescriptors = [NSSortDescriptor(key: "value", ascending: false)]
                            request.fetchLimit = 10
                            for thing in try context.fetch(request) {
                                _ = thing.value(forKey: "name")
                                _ = thing.value(forKey: "category")
                                sum &+= (thing.value(forKey: "value") as! NSNumber).int64Value
                            }
                        case .typed:
                            let request = NSFetchRequest<ThingObject>(entityName: "Thing")
                            request.predicate = NSPredicate(format: "category == %d", category)
                            request.sortDescriptors = [NSSortDescriptor(key: "value", ascending: false)]
                            request.fetchLimit = 10
                            for thing in try context.fetch(request) {
                                _ = thing.name
                                _ = thing.category
                                sum &+= thing.value
                            }
                        }
                    }
                }
                context.reset()
                try check(sum == expected, "OCD \(style) W5 sum \(sum), expected \(expected)")
                return seconds
            }
        }

        return BenchCase(
            id: indexed ? "W5-indexed" : "W5-unindexed",
            summary: "\(queries) × (category == ? sorted by value DESC, limit 10) on \(rows) rows, \(indexed ? "with an index on category" : "no index"); predicate built per query",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords,
                       .ocdKVC: try ocd(.kvc, kvcURL), .ocdTyped: try ocd(.typed, typedURL)])
    }

    static func prefix(_ bench: Bench) throws -> BenchCase {
        let words = bench.sizes.w5Words, searches = bench.sizes.w5Searches
        let prefixes = (0..<searches).map { Things.prefix($0, words: words) }
        let plain = try Things.plainWords(bench, count: words)
        let kvcURL = try Things.coreDataWords(bench, count: words, style: .kvc)
        let typedURL = try Things.coreDataWords(bench, count: words, style: .typed)
        let sql = "SELECT pk, name FROM word WHERE name LIKE ? LIMIT 7"

        let rawDB = try RawDatabase(path: plain.path)
        func rawRun() throws -> Int {
            var found = 0
            let statement = try rawDB.prepare(sql)
            for prefix in prefixes {
                statement.reset()
                statement.bind(prefix + "%", at: 1)
                while try statement.step() {
                    _ = statement.int64(0)
                    found &+= statement.textLength(1)
                }
            }
            return found
        }
        let expected = try rawRun()

        let raw = Variant.run {
            var found = 0
            let seconds = try timed { found = try rawRun() }
            try check(found == expected, "raw W5-prefix \(found)")
            return seconds
        }

        let dbQueue = try GRDBSupport.queue(plain)
        let grdbRows = Variant.run {
            var found = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    for prefix in prefixes {
                        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: [prefix + "%"])
                        while let row = try cursor.next() {
                            _ = row[0] as Int64
                            found &+= (row[1] as String).utf8.count
                        }
                    }
                }
            }
            try check(found == expected, "GRDB rows W5-prefix \(found)")
            return seconds
        }

        let grdbRecords = Variant.run {
            var found = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    for prefix in prefixes {
                        for word in try WordRecord.filter(Column("name").like(prefix + "%")).limit(7).fetchAll(db) {
                            found &+= word.name.utf8.count
                        }
                    }
                }
            }
            try check(found == expected, "GRDB records W5-prefix \(found)")
            return seconds
        }

        func ocd(_ style: Style, _ url: URL) throws -> Variant {
            let stack = try CoreDataStack(model: Models.word(style), url: url)
            return .run {
                let context = stack.context
                var found = 0
                let budget = Budget(seconds: W5.budget)
                let seconds = try timed {
                    for (done, prefix) in prefixes.enumerated() {
                        try budget.check(done: done, total: searches, what: "\(searches) searches")
                        switch style {
                        case .kvc:
                            let request = NSFetchRequest<NSManagedObject>(entityName: "Word")
                            request.predicate = NSPredicate(format: "name BEGINSWITH[c] %@", prefix)
                            request.fetchLimit = 7
                            for word in try context.fetch(request) {
                                found &+= (word.value(forKey: "name") as! String).utf8.count
                            }
                        case .typed:
                            let request = NSFetchRequest<WordObject>(entityName: "Word")
                            request.predicate = NSPredicate(format: "name BEGINSWITH[c] %@", prefix)
                            request.fetchLimit = 7
                            for word in try context.fetch(request) {
                                found &+= word.name!.utf8.count
                            }
                        }
                    }
                }
                context.reset()
                try check(found == expected, "OCD \(style) W5-prefix \(found), expected \(expected)")
                return seconds
            }
        }

        return BenchCase(
            id: "W5-prefix",
            summary: "\(searches) × (name BEGINSWITH[c] prefix, limit 7) on \(words) words (raw/GRDB: LIKE 'prefix%')",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords,
                       .ocdKVC: try ocd(.kvc, kvcURL), .ocdTyped: try ocd(.typed, typedURL)])
    }
}
