import Foundation
import GRDB
import OpenCoreData

// W12: a batch insert of 1M users into an entity with a uniqueness constraint (`id`), half of
// them already stored: those update the stored row (an upsert). Raw SQLite and GRDB rows run
// `INSERT … ON CONFLICT (id) DO UPDATE`; GRDB records call `upsert`; OpenCoreData runs one
// NSBatchInsertRequest fed by a dictionary handler.

enum W12 {
    static func cases(_ bench: Bench) throws -> [BenchCase] {
        guard bench.options.selects("W12") else { return [] }
        let rows = bench.sizes.w12Rows
        let stored = rows / 2
        // Every row's age is one more than the stored one, so updated rows are seen to change.
        func age(_ n: Int) -> Int { Users.age(n) + 1 }
        let expectedAges = (0..<rows).reduce(Int64(0)) { $0 + Int64(age($1)) }

        /// A fresh copy of the half-filled store for one iteration (untimed).
        func freshCopy(_ source: URL, _ comparator: Comparator) throws -> URL {
            let url = bench.url("w12-\(comparator.key).sqlite")
            try bench.copyStore(source, to: url)
            return url
        }
        /// Checks that a run left exactly `rows` users with the new ages.
        func verify(_ url: URL, table: String, age column: String) throws {
            let db = try RawDatabase(path: url.path)
            let count = try db.scalarInt("SELECT COUNT(*) FROM \(table)")
            let ages = try db.scalarInt("SELECT TOTAL(\(column)) FROM \(table)")
            try check(count == Int64(rows) && ages == expectedAges, "W12 left \(count) rows with ages \(ages); expected \(rows) with \(expectedAges)")
        }

        let plain = try Users.plainStore(bench, count: stored)
        let upsertSQL = Users.insertSQL + " ON CONFLICT (id) DO UPDATE SET firstName = excluded.firstName, lastName = excluded.lastName, age = excluded.age"

        let raw = Variant.run {
            let url = try freshCopy(plain, .raw)
            let seconds: Double
            do {
                let db = try RawDatabase(path: url.path)
                seconds = try timed {
                    try db.transaction {
                        let statement = try db.prepare(upsertSQL)
                        for n in 0..<rows {
                            statement.reset()
                            withUnsafeBytes(of: Users.id(n).uuid) { statement.bindBlob($0, at: 1) }
                            statement.bind(Users.firstName(n), at: 2)
                            statement.bind(Users.lastName(n), at: 3)
                            statement.bind(Int64(age(n)), at: 4)
                            try statement.run()
                        }
                    }
                }
            }
            try verify(url, table: "user", age: "age")
            return seconds
        }

        let grdbRows = Variant.run {
            let url = try freshCopy(plain, .grdbRows)
            let dbQueue = try GRDBSupport.queue(url)
            let seconds = try timed {
                try dbQueue.inTransaction { db in
                    let statement = try db.makeStatement(sql: upsertSQL)
                    for n in 0..<rows {
                        statement.setUncheckedArguments([Users.idData(n), Users.firstName(n), Users.lastName(n), age(n)])
                        try statement.execute()
                    }
                    return .commit
                }
            }
            try dbQueue.close()
            try verify(url, table: "user", age: "age")
            return seconds
        }

        let grdbRecords = Variant.run {
            let url = try freshCopy(plain, .grdbRecords)
            let dbQueue = try GRDBSupport.queue(url)
            let seconds = try timed {
                try dbQueue.inTransaction { db in
                    for n in 0..<rows {
                        var user = UserRecord(id: Users.idData(n), firstName: Users.firstName(n), lastName: Users.lastName(n), age: age(n))
                        try user.upsert(db)
                    }
                    return .commit
                }
            }
            try dbQueue.close()
            try verify(url, table: "user", age: "age")
            return seconds
        }

        func ocd(_ style: Style) throws -> Variant {
            let comparator: Comparator = style == .kvc ? .ocdKVC : .ocdTyped
            let source = try Users.coreDataStore(bench, count: stored, style: style)
            return .run {
                let url = try freshCopy(source, comparator)
                let stack = try CoreDataStack(model: Models.user(style), url: url)
                var n = 0
                let request = NSBatchInsertRequest(entityName: "User", dictionaryHandler: { row in
                    guard n < rows else { return true }
                    row["id"] = Users.id(n)
                    row["firstName"] = Users.firstName(n)
                    row["lastName"] = Users.lastName(n)
                    row["age"] = age(n)
                    n += 1
                    return false
                })
                request.resultType = .count
                var written: Int?
                let seconds = try timed {
                    written = (try stack.context.execute(request) as! NSBatchInsertResult).result as? Int
                }
                try stack.close()
                try check(written == rows, "OCD W12 reported \(String(describing: written)) rows, expected \(rows)")
                try verify(url, table: "ZUSER", age: "ZAGE")
                return seconds
            }
        }

        return [BenchCase(
            id: "W12",
            summary: "batch insert of \(rows) users into an entity with a unique id, \(stored) of them already stored (upsert): raw/GRDB rows INSERT … ON CONFLICT DO UPDATE, GRDB records upsert, OpenCoreData NSBatchInsertRequest with a dictionary handler",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: try ocd(.kvc), .ocdTyped: try ocd(.typed)])]
    }
}
