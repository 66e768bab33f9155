import Foundation
import OpenCoreData

/// The deterministic `User` rows of W2 and W10, and their stores in both schemas.
enum Users {
    static let firstNames = ["Alice", "Bruno", "Chloé", "David", "Emma", "Farid", "Grace", "Hugo", "Inès", "Jonas",
                             "Karin", "Louis", "Maya", "Nils", "Olga", "Paul", "Quinn", "Rosa", "Sam", "Tara"]
    static let lastNames = ["Adams", "Baker", "Brown", "Clark", "Davis", "Evans", "Fischer", "Garcia", "Hall", "Jones",
                            "King", "Lopez", "Martin", "Nguyen", "Olsen", "Petit", "Roux", "Smith", "Taylor", "Young"]

    /// The UUID of user n: a fixed prefix and n in the last eight bytes.
    static func id(_ n: Int) -> UUID {
        let v = UInt64(n)
        return UUID(uuid: (0x0C, 0xD0, 0xBE, 0x4C, 0x42, 0x00, 0x40, 0x00,
                           UInt8(truncatingIfNeeded: v >> 56), UInt8(truncatingIfNeeded: v >> 48), UInt8(truncatingIfNeeded: v >> 40),
                           UInt8(truncatingIfNeeded: v >> 32), UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
                           UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)))
    }

    static func idData(_ n: Int) -> Data {
        withUnsafeBytes(of: id(n).uuid) { Data($0) }
    }

    static func firstName(_ n: Int) -> String { firstNames[n % firstNames.count] }
    /// Distinct-ish last names: a base name and a number, so sorting by it is mostly unambiguous.
    static func lastName(_ n: Int) -> String { "\(lastNames[(n / firstNames.count) % lastNames.count])\(n % 997)" }
    static func age(_ n: Int) -> Int { 18 + (n * 7) % 60 }

    static let createTable = "CREATE TABLE user (pk INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE, firstName TEXT, lastName TEXT, age INTEGER NOT NULL)"
    static let insertSQL = "INSERT INTO user (id, firstName, lastName, age) VALUES (?, ?, ?, ?)"

    /// Inserts users `range` with a prepared statement (no transaction handling).
    static func rawInsert(_ db: RawDatabase, _ range: Range<Int>) throws {
        let statement = try db.prepare(insertSQL)
        for n in range {
            statement.reset()
            let uuid = id(n).uuid
            withUnsafeBytes(of: uuid) { statement.bindBlob($0, at: 1) }
            statement.bind(firstName(n), at: 2)
            statement.bind(lastName(n), at: 3)
            statement.bind(Int64(age(n)), at: 4)
            _ = try statement.step()
        }
    }

    /// The plain `user` table with `count` rows.
    static func plainStore(_ bench: Bench, count: Int) throws -> URL {
        try bench.fixture("users-plain-\(count).sqlite") { url in
            let db = try RawDatabase(path: url.path)
            try db.execute(createTable)
            try db.transaction { try rawInsert(db, 0..<count) }
        }
    }

    /// A Core Data `User` store with `count` rows, made by OpenCoreData.
    static func coreDataStore(_ bench: Bench, count: Int, style: Style) throws -> URL {
        try bench.fixture("users-ocd-\(style)-\(count).sqlite") { url in
            let stack = try CoreDataStack(model: Models.user(style), url: url)
            var start = 0
            while start < count {
                let end = min(start + 50_000, count)
                for n in start..<end { insert(n, into: stack.context) }
                try stack.context.save()
                stack.context.reset()
                start = end
            }
            try stack.close()
        }
    }

    static func insert(_ n: Int, into context: NSManagedObjectContext) {
        let user = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
        user.setValue(id(n), forKey: "id")
        user.setValue(firstName(n), forKey: "firstName")
        user.setValue(lastName(n), forKey: "lastName")
        user.setValue(NSNumber(value: age(n)), forKey: "age")
    }

    static func insertTyped(_ n: Int, into context: NSManagedObjectContext) {
        let user = UserObject(context: context)
        user.id = id(n)
        user.firstName = firstName(n)
        user.lastName = lastName(n)
        user.age = Int64(age(n))
    }
}
