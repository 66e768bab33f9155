import Foundation
import GRDB
import OpenCoreData

// W2: Users (unique UUID id, firstName, lastName, age). Insert 100k in saves of 10k; then on
// 1M rows: a predicate + sort + limit fetch, rename everyone, delete everyone.
// The row-by-row comparators (raw, GRDB) write the same rows the object graph writes, one
// prepared statement per row; a single UPDATE/DELETE is the analogue of Core Data's batch
// requests, which OpenCoreData does not have yet.

enum W2 {
    static func cases(_ bench: Bench) throws -> [BenchCase] {
        var cases: [BenchCase] = []
        if bench.options.selects("W2-insert") { cases.append(try insert(bench)) }
        if bench.options.selects("W2-fetch") { cases.append(try fetch(bench)) }
        if bench.options.selects("W2-rename") { cases.append(try rename(bench)) }
        if bench.options.selects("W2-delete") { cases.append(try delete(bench)) }
        return cases
    }

    // MARK: - Insert

    static func insert(_ bench: Bench) throws -> BenchCase {
        let count = bench.sizes.w2Insert
        let chunk = bench.sizes.w2SaveEvery
        let chunks = stride(from: 0, to: count, by: chunk).map { $0..<min($0 + chunk, count) }

        func verify(_ url: URL, table: String, column: String) throws {
            let stats = try rowStats(url, table: table, column: column)
            let expected = (0..<count).reduce(Int64(0)) { $0 + Int64(Users.age($1)) }
            try check(stats.count == Int64(count) && stats.sum == expected, "W2-insert wrote \(stats)")
        }

        let raw = Variant.run {
            let url = bench.url("w2-insert-raw.sqlite")
            Bench.removeStore(url)
            let db = try RawDatabase(path: url.path)
            try db.execute(Users.createTable)
            let seconds = try timed {
                let statement = try db.prepare(Users.insertSQL)
                for range in chunks {
                    try db.execute("BEGIN")
                    for n in range {
                        statement.reset()
                        withUnsafeBytes(of: Users.id(n).uuid) { statement.bindBlob($0, at: 1) }
                        statement.bind(Users.firstName(n), at: 2)
                        statement.bind(Users.lastName(n), at: 3)
                        statement.bind(Int64(Users.age(n)), at: 4)
                        _ = try statement.step()
                    }
                    try db.execute("COMMIT")
                }
            }
            try verify(url, table: "user", column: "age")
            return seconds
        }

        let grdbRows = Variant.run {
            let url = bench.url("w2-insert-grdb-rows.sqlite")
            Bench.removeStore(url)
            let dbQueue = try GRDBSupport.queue(url)
            try dbQueue.write { db in try db.execute(sql: Users.createTable) }
            let seconds = try timed {
                for range in chunks {
                    try dbQueue.inTransaction { db in
                        let statement = try db.cachedStatement(sql: Users.insertSQL)
                        for n in range {
                            statement.setUncheckedArguments([Users.idData(n), Users.firstName(n), Users.lastName(n), Users.age(n)])
                            try statement.execute()
                        }
                        return .commit
                    }
                }
            }
            try dbQueue.close()
            try verify(url, table: "user", column: "age")
            return seconds
        }

        let grdbRecords = Variant.run {
            let url = bench.url("w2-insert-grdb-records.sqlite")
            Bench.removeStore(url)
            let dbQueue = try GRDBSupport.queue(url)
            try dbQueue.write { db in try db.execute(sql: Users.createTable) }
            let seconds = try timed {
                for range in chunks {
                    try dbQueue.inTransaction { db in
                        for n in range {
                            var user = UserRecord(id: Users.idData(n), firstName: Users.firstName(n), lastName: Users.lastName(n), age: Users.age(n))
                            try user.insert(db)
                        }
                        return .commit
                    }
                }
            }
            try dbQueue.close()
            try verify(url, table: "user", column: "age")
            return seconds
        }

        func ocd(_ style: Style) -> Variant {
            let model = Models.user(style)
            return .run {
                let url = bench.url("w2-insert-ocd-\(style).sqlite")
                Bench.removeStore(url)
                let stack = try CoreDataStack(model: model, url: url)
                let context = stack.context
                let seconds = try timed {
                    for range in chunks {
                        for n in range {
                            if style == .kvc { Users.insert(n, into: context) } else { Users.insertTyped(n, into: context) }
                        }
                        try context.save()
                    }
                }
                try stack.close()
                try verify(url, table: "ZUSER", column: "ZAGE")
                return seconds
            }
        }

        return BenchCase(
            id: "W2-insert",
            summary: "insert \(count) User rows (unique UUID id, two strings, an integer) in saves of \(chunk); store open beforehand",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: ocd(.kvc), .ocdTyped: ocd(.typed)])
    }

    // MARK: - Fetch

    static func fetch(_ bench: Bench) throws -> BenchCase {
        let count = bench.sizes.w2Rows
        let plain = try Users.plainStore(bench, count: count)
        let kvcURL = try Users.coreDataStore(bench, count: count, style: .kvc)
        let typedURL = try Users.coreDataStore(bench, count: count, style: .typed)
        let sql = "SELECT pk, id, firstName, lastName, age FROM user WHERE age > 30 AND lastName GLOB 'B*' ORDER BY lastName LIMIT 100"

        let rawDB = try RawDatabase(path: plain.path)
        // The expected answer: the sorted last names of the first 100 matches.
        var expected: [String] = []
        do {
            let statement = try rawDB.prepare(sql)
            while try statement.step() { expected.append(statement.string(3)) }
        }
        try check(expected.count == 100, "W2 fixture has \(expected.count) matches")

        let raw = Variant.run {
            var names: [String] = []
            let seconds = try timed {
                let statement = try rawDB.prepare(sql)
                while try statement.step() {
                    _ = statement.int64(0)
                    _ = statement.textLength(2)
                    names.append(statement.string(3))
                    _ = statement.int64(4)
                }
            }
            try check(names == expected, "raw W2-fetch results differ")
            return seconds
        }

        let dbQueue = try GRDBSupport.queue(plain)
        let grdbRows = Variant.run {
            var names: [String] = []
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    let cursor = try Row.fetchCursor(db, sql: sql)
                    while let row = try cursor.next() {
                        _ = row[0] as Int64
                        _ = row[2] as String
                        names.append(row[3] as String)
                        _ = row[4] as Int
                    }
                }
            }
            try check(names == expected, "GRDB rows W2-fetch results differ")
            return seconds
        }

        let grdbRecords = Variant.run {
            var users: [UserRecord] = []
            let seconds = try timed {
                users = try dbQueue.inDatabase { db in
                    try UserRecord.filter(Column("age") > 30 && Column("lastName").like("B%"))
                        .order(Column("lastName")).limit(100).fetchAll(db)
                }
            }
            try check(users.map(\.lastName) == expected, "GRDB records W2-fetch results differ")
            return seconds
        }

        func ocd(_ style: Style, _ url: URL) throws -> Variant {
            let stack = try CoreDataStack(model: Models.user(style), url: url)
            return .run {
                var names: [String] = []
                let seconds = try timed {
                    if style == .kvc {
                        let request = NSFetchRequest<NSManagedObject>(entityName: "User")
                        request.predicate = NSPredicate(format: "age > 30 AND lastName BEGINSWITH %@", "B")
                        request.sortDescriptors = [NSSortDescriptor(key: "lastName", ascending: true)]
                        request.fetchLimit = 100
                        for user in try stack.context.fetch(request) {
                            _ = user.value(forKey: "id")
                            _ = user.value(forKey: "firstName")
                            names.append(user.value(forKey: "lastName") as! String)
                            _ = user.value(forKey: "age")
                        }
                    } else {
                        let request = NSFetchRequest<UserObject>(entityName: "User")
                        request.predicate = NSPredicate(format: "age > 30 AND lastName BEGINSWITH %@", "B")
                        request.sortDescriptors = [NSSortDescriptor(key: "lastName", ascending: true)]
                        request.fetchLimit = 100
                        for user in try stack.context.fetch(request) {
                            _ = user.id
                            _ = user.firstName
                            names.append(user.lastName!)
                            _ = user.age
                        }
                    }
                }
                stack.context.reset()
                try check(names == expected, "OCD \(style) W2-fetch results differ: \(names.prefix(3)) vs \(expected.prefix(3))")
                return seconds
            }
        }

        return BenchCase(
            id: "W2-fetch",
            summary: "on \(count) users: age > 30 AND lastName BEGINSWITH \"B\", sorted by lastName, limit 100, read every value (no index)",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords,
                       .ocdKVC: try ocd(.kvc, kvcURL), .ocdTyped: try ocd(.typed, typedURL)])
    }

    // MARK: - Rename and delete

    static func source(_ bench: Bench, _ comparator: Comparator) throws -> URL {
        let count = bench.sizes.w2Rows
        switch comparator {
        case .ocdKVC: return try Users.coreDataStore(bench, count: count, style: .kvc)
        case .ocdTyped: return try Users.coreDataStore(bench, count: count, style: .typed)
        default: return try Users.plainStore(bench, count: count)
        }
    }

    static func rename(_ bench: Bench) throws -> BenchCase {
        let count = bench.sizes.w2Rows
        var urls: [Comparator: URL] = [:]
        for comparator in Comparator.allCases {
            let url = bench.url("w2-rename-\(comparator.key).sqlite")
            try bench.copyStore(try source(bench, comparator), to: url)
            urls[comparator] = url
        }
        var round = 0
        func nextName() -> String {
            round += 1
            return "Renamed\(round)"
        }
        func verify(_ url: URL, table: String, column: String, name: String) throws {
            let db = try RawDatabase(path: url.path)
            let statement = try db.prepare("SELECT COUNT(*) FROM \(table) WHERE \(column) = ?")
            statement.bind(name, at: 1)
            _ = try statement.step()
            try check(statement.int64(0) == Int64(count), "W2-rename renamed \(statement.int64(0)) of \(count) in \(url.lastPathComponent)")
        }

        let raw = Variant.run {
            let url = urls[.raw]!
            let name = nextName()
            let seconds = try timed {
                let db = try RawDatabase(path: url.path)
                try db.transaction {
                    var keys: [Int64] = []
                    let select = try db.prepare("SELECT pk FROM user")
                    while try select.step() { keys.append(select.int64(0)) }
                    let update = try db.prepare("UPDATE user SET firstName = ? WHERE pk = ?")
                    for key in keys {
                        update.bind(name, at: 1)
                        update.bind(key, at: 2)
                        try update.run()
                    }
                }
            }
            try verify(url, table: "user", column: "firstName", name: name)
            return seconds
        }

        let grdbRows = Variant.run {
            let url = urls[.grdbRows]!
            let name = nextName()
            let seconds = try timed {
                let dbQueue = try GRDBSupport.queue(url)
                try dbQueue.inTransaction { db in
                    let keys = try Int64.fetchAll(db, sql: "SELECT pk FROM user")
                    let statement = try db.makeStatement(sql: "UPDATE user SET firstName = ? WHERE pk = ?")
                    for key in keys {
                        statement.setUncheckedArguments([name, key])
                        try statement.execute()
                    }
                    return .commit
                }
                try dbQueue.close()
            }
            try verify(url, table: "user", column: "firstName", name: name)
            return seconds
        }

        let grdbRecords = Variant.run {
            let url = urls[.grdbRecords]!
            let name = nextName()
            let seconds = try timed {
                let dbQueue = try GRDBSupport.queue(url)
                try dbQueue.inTransaction { db in
                    var users = try UserRecord.fetchAll(db)
                    for index in users.indices {
                        users[index].firstName = name
                        try users[index].update(db)
                    }
                    return .commit
                }
                try dbQueue.close()
            }
            try verify(url, table: "user", column: "firstName", name: name)
            return seconds
        }

        func ocd(_ style: Style) -> Variant {
            let model = Models.user(style)
            let comparator: Comparator = style == .kvc ? .ocdKVC : .ocdTyped
            return .run {
                let url = urls[comparator]!
                let name = nextName()
                let seconds = try timed {
                    let stack = try CoreDataStack(model: model, url: url)
                    if style == .kvc {
                        for user in try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User")) {
                            user.setValue(name, forKey: "firstName")
                        }
                    } else {
                        for user in try stack.context.fetch(NSFetchRequest<UserObject>(entityName: "User")) {
                            user.firstName = name
                        }
                    }
                    try stack.context.save()
                    try stack.close()
                }
                try verify(url, table: "ZUSER", column: "ZFIRSTNAME", name: name)
                return seconds
            }
        }

        return BenchCase(
            id: "W2-rename",
            summary: "open the \(count)-user store, fetch every user, set firstName, save (raw/GRDB: one UPDATE per row), close",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: ocd(.kvc), .ocdTyped: ocd(.typed)])
    }

    static func delete(_ bench: Bench) throws -> BenchCase {
        let count = bench.sizes.w2Rows
        var sources: [Comparator: URL] = [:]
        for comparator in Comparator.allCases { sources[comparator] = try source(bench, comparator) }
        func prepare(_ comparator: Comparator) throws -> URL {
            let url = bench.url("w2-delete-\(comparator.key).sqlite")
            try bench.copyStore(sources[comparator]!, to: url)
            return url
        }
        func verify(_ url: URL, table: String) throws {
            let db = try RawDatabase(path: url.path)
            let left = try db.scalarInt("SELECT COUNT(*) FROM \(table)")
            try check(left == 0, "W2-delete left \(left) rows in \(url.lastPathComponent)")
        }

        let raw = Variant.run {
            let url = try prepare(.raw)
            let seconds = try timed {
                let db = try RawDatabase(path: url.path)
                try db.transaction {
                    var keys: [Int64] = []
                    let select = try db.prepare("SELECT pk FROM user")
                    while try select.step() { keys.append(select.int64(0)) }
                    let delete = try db.prepare("DELETE FROM user WHERE pk = ?")
                    for key in keys {
                        delete.bind(key, at: 1)
                        try delete.run()
                    }
                }
            }
            try verify(url, table: "user")
            return seconds
        }

        let grdbRows = Variant.run {
            let url = try prepare(.grdbRows)
            let seconds = try timed {
                let dbQueue = try GRDBSupport.queue(url)
                try dbQueue.inTransaction { db in
                    let keys = try Int64.fetchAll(db, sql: "SELECT pk FROM user")
                    let statement = try db.makeStatement(sql: "DELETE FROM user WHERE pk = ?")
                    for key in keys {
                        statement.setUncheckedArguments([key])
                        try statement.execute()
                    }
                    return .commit
                }
                try dbQueue.close()
            }
            try verify(url, table: "user")
            return seconds
        }

        let grdbRecords = Variant.run {
            let url = try prepare(.grdbRecords)
            let seconds = try timed {
                let dbQueue = try GRDBSupport.queue(url)
                try dbQueue.inTransaction { db in
                    for user in try UserRecord.fetchAll(db) {
                        try user.delete(db)
                    }
                    return .commit
                }
                try dbQueue.close()
            }
            try verify(url, table: "user")
            return seconds
        }

        func ocd(_ style: Style) -> Variant {
            let model = Models.user(style)
            let comparator: Comparator = style == .kvc ? .ocdKVC : .ocdTyped
            return .run {
                let url = try prepare(comparator)
                let seconds = try timed {
                    let stack = try CoreDataStack(model: model, url: url)
                    if style == .kvc {
                        for user in try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User")) {
                            stack.context.delete(user)
                        }
                    } else {
                        for user in try stack.context.fetch(NSFetchRequest<UserObject>(entityName: "User")) {
                            stack.context.delete(user)
                        }
                    }
                    try stack.context.save()
                    try stack.close()
                }
                try verify(url, table: "ZUSER")
                return seconds
            }
        }

        return BenchCase(
            id: "W2-delete",
            summary: "open a copy of the \(count)-user store, fetch every user, delete each, save (raw/GRDB: one DELETE per row), close",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: ocd(.kvc), .ocdTyped: ocd(.typed)])
    }
}
