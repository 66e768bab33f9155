import Foundation
import GRDB
import OpenCoreData

// W10: 10,000 single-object lookups by a unique key (`id == %@`) among 100k users.

enum W10 {
    static let budget = 60.0

    static func cases(_ bench: Bench) throws -> [BenchCase] {
        guard bench.options.selects("W10") else { return [] }
        let rows = bench.sizes.w10Rows, lookups = bench.sizes.w10Lookups
        let numbers = (0..<lookups).map { ($0 &* 7) % rows }
        let ids = numbers.map(Users.id)
        let idData = numbers.map(Users.idData)
        let expectedAge = numbers.reduce(0) { $0 + Users.age($1) }
        let plain = try Users.plainStore(bench, count: rows)
        let kvcURL = try Users.coreDataStore(bench, count: rows, style: .kvc)
        let typedURL = try Users.coreDataStore(bench, count: rows, style: .typed)
        let sql = "SELECT pk, id, firstName, lastName, age FROM user WHERE id = ?"

        let rawDB = try RawDatabase(path: plain.path)
        let raw = Variant.run {
            var ages = 0
            let seconds = try timed {
                let statement = try rawDB.prepare(sql)
                for id in ids {
                    statement.reset()
                    withUnsafeBytes(of: id.uuid) { statement.bindBlob($0, at: 1) }
                    guard try statement.step() else { throw BenchError("user not found") }
                    _ = statement.textLength(2)
                    ages += Int(statement.int64(4))
                }
            }
            try check(ages == expectedAge, "raw W10 ages \(ages)")
            return seconds
        }

        let dbQueue = try GRDBSupport.queue(plain)
        let grdbRows = Variant.run {
            var ages = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    let statement = try db.cachedStatement(sql: sql)
                    for data in idData {
                        guard let row = try Row.fetchOne(statement, arguments: [data]) else { throw BenchError("user not found") }
                        _ = row[2] as String
                        ages += row[4] as Int
                    }
                }
            }
            try check(ages == expectedAge, "GRDB rows W10 ages \(ages)")
            return seconds
        }

        let grdbRecords = Variant.run {
            var ages = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    for data in idData {
                        guard let user = try UserRecord.filter(Column("id") == data).fetchOne(db) else { throw BenchError("user not found") }
                        ages += user.age
                    }
                }
            }
            try check(ages == expectedAge, "GRDB records W10 ages \(ages)")
            return seconds
        }

        func ocd(_ style: Style, _ url: URL) throws -> Variant {
            let stack = try CoreDataStack(model: Models.user(style), url: url)
            return .run {
                let context = stack.context
                defer { context.reset() }
                var ages = 0
                let budget = Budget(seconds: W10.budget)
                let seconds = try timed {
                    for (done, id) in ids.enumerated() {
                        try budget.check(done: done, total: lookups, what: "\(lookups) lookups")
                        switch style {
                        case .kvc:
                            let request = NSFetchRequest<NSManagedObject>(entityName: "User")
                            request.predicate = NSPredicate(format: "id == %@", id)
                            request.fetchLimit = 1
                            guard let user = try context.fetch(request).first else { throw BenchError("user not found") }
                            _ = user.value(forKey: "firstName")
                            ages += (user.value(forKey: "age") as! NSNumber).intValue
                        case .typed:
                            let request = NSFetchRequest<UserObject>(entityName: "User")
                            request.predicate = NSPredicate(format: "id == %@", id)
                            request.fetchLimit = 1
                            guard let user = try context.fetch(request).first else { throw BenchError("user not found") }
                            _ = user.firstName
                            ages += Int(user.age)
                        }
                    }
                }
                try check(ages == expectedAge, "OCD \(style) W10 ages \(ages)")
                return seconds
            }
        }

        return [BenchCase(
            id: "W10",
            summary: "\(lookups) lookups of one user by its unique UUID id (indexed) among \(rows); predicate built per lookup",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords,
                       .ocdKVC: try ocd(.kvc, kvcURL), .ocdTyped: try ocd(.typed, typedURL)])]
    }
}
