import Foundation
import OpenCoreData

/// The `Thing(name, category, value)` rows of W5, W6 and W8, and W5's `Word` rows.
enum Things {
    static let categories = 1_000

    static func name(_ n: Int) -> String { "thing \(n)" }
    static func category(_ n: Int) -> Int { n % categories }
    static func value(_ n: Int, rows: Int) -> Int { (n &* 7919) % max(rows, 1) }

    static func createTable(indexed: Bool) -> String {
        "CREATE TABLE thing (pk INTEGER PRIMARY KEY, name TEXT, category INTEGER NOT NULL, value INTEGER NOT NULL);"
            + (indexed ? " CREATE INDEX thing_category ON thing (category);" : "")
    }
    static let insertSQL = "INSERT INTO thing (name, category, value) VALUES (?, ?, ?)"

    static func plainStore(_ bench: Bench, count: Int, indexed: Bool) throws -> URL {
        try bench.fixture("things-plain-\(indexed ? "indexed" : "plain")-\(count).sqlite") { url in
            let db = try RawDatabase(path: url.path)
            try db.execute(createTable(indexed: indexed))
            try db.transaction {
                let statement = try db.prepare(insertSQL)
                for n in 0..<count {
                    statement.reset()
                    statement.bind(name(n), at: 1)
                    statement.bind(Int64(category(n)), at: 2)
                    statement.bind(Int64(value(n, rows: count)), at: 3)
                    _ = try statement.step()
                }
            }
        }
    }

    static func coreDataStore(_ bench: Bench, count: Int, indexed: Bool, style: Style) throws -> URL {
        try bench.fixture("things-ocd-\(style)-\(indexed ? "indexed" : "plain")-\(count).sqlite") { url in
            let stack = try CoreDataStack(model: Models.thing(style, indexed: indexed), url: url)
            var start = 0
            while start < count {
                let end = min(start + 50_000, count)
                for n in start..<end { insert(n, rows: count, into: stack.context) }
                try stack.context.save()
                stack.context.reset()
                start = end
            }
            try stack.close()
        }
    }

    static func insert(_ n: Int, rows: Int, into context: NSManagedObjectContext) {
        let thing = NSEntityDescription.insertNewObject(forEntityName: "Thing", into: context)
        thing.setValue(name(n), forKey: "name")
        thing.setValue(NSNumber(value: category(n)), forKey: "category")
        thing.setValue(NSNumber(value: value(n, rows: rows)), forKey: "value")
    }

    static func insertTyped(_ n: Int, rows: Int, into context: NSManagedObjectContext) {
        let thing = ThingObject(context: context)
        thing.name = name(n)
        thing.category = Int64(category(n))
        thing.value = Int64(value(n, rows: rows))
    }

    // MARK: - Words

    static let syllables = ["ka", "lo", "mi", "ne", "ra", "so", "tu", "vi", "ze", "ba", "do", "fi", "gu", "ha", "jo", "pe"]

    /// Word n: three syllables, capitalised, and a number (so case-insensitive search matters).
    static func word(_ n: Int) -> String {
        let count = syllables.count
        let text = syllables[n % count] + syllables[(n / count) % count] + syllables[(n / count / count) % count]
        return text.prefix(1).uppercased() + text.dropFirst() + "\(n)"
    }

    /// The lowercase prefix of search k: 1–3 letters of some word.
    static func prefix(_ k: Int, words: Int) -> String {
        String(word((k &* 131) % words).lowercased().prefix(1 + k % 3))
    }

    static func plainWords(_ bench: Bench, count: Int) throws -> URL {
        try bench.fixture("words-plain-\(count).sqlite") { url in
            let db = try RawDatabase(path: url.path)
            try db.execute("CREATE TABLE word (pk INTEGER PRIMARY KEY, name TEXT)")
            try db.transaction {
                let statement = try db.prepare("INSERT INTO word (name) VALUES (?)")
                for n in 0..<count {
                    statement.reset()
                    statement.bind(word(n), at: 1)
                    _ = try statement.step()
                }
            }
        }
    }

    static func coreDataWords(_ bench: Bench, count: Int, style: Style) throws -> URL {
        try bench.fixture("words-ocd-\(style)-\(count).sqlite") { url in
            let stack = try CoreDataStack(model: Models.word(style), url: url)
            for n in 0..<count {
                NSEntityDescription.insertNewObject(forEntityName: "Word", into: stack.context).setValue(word(n), forKey: "name")
            }
            try stack.context.save()
            try stack.close()
        }
    }
}
