import Foundation
import OpenCoreData

// W15: editing in a child context (issue 18, which calls it W11; #19 takes W14). 10,000 users
// are stored; every user's age is raised by one and saved, once from the root context (fetch,
// edit, save) and once through a private-queue child of that root context (fetch and edit in
// the child, save the child into the root, save the root). Both paths write the same rows; the
// child path adds the child's fetch through its parent and the push into the parent. Target:
// the child path within 1.3× the root path (the target line compares the two cases' medians).
// Only OpenCoreData has contexts, so raw SQLite and GRDB have no variant.

enum W15 {
    /// The two paths, one case each.
    enum Path: String, CaseIterable {
        case root, child
        var id: String { "W15-\(rawValue)" }
    }

    static func cases(_ bench: Bench) throws -> [BenchCase] {
        let count = bench.sizes.w15Users
        var cases: [BenchCase] = []
        for path in Path.allCases where bench.options.selects(path.id) {
            let unavailable = Variant.notAvailable("no managed object contexts (OpenCoreData's root and child paths are compared with each other)")
            cases.append(BenchCase(
                id: path.id,
                summary: path == .root
                    ? "\(count) stored users: fetch them all in the root context, age += 1 on each, save"
                    : "\(count) stored users: fetch them all in a private child of the root context, age += 1 on each, save the child, then save the root",
                variants: [
                    .raw: unavailable, .grdbRows: unavailable, .grdbRecords: unavailable,
                    .ocdKVC: try variant(bench, path: path, style: .kvc, count: count),
                    .ocdTyped: try variant(bench, path: path, style: .typed, count: count),
                ]))
        }
        return cases
    }

    private static func variant(_ bench: Bench, path: Path, style: Style, count: Int) throws -> Variant {
        let comparator: Comparator = style == .kvc ? .ocdKVC : .ocdTyped
        let source = try Users.coreDataStore(bench, count: count, style: style)
        let model = Models.user(style)
        return .run {
            // A fresh copy of the stored users for every run (untimed), opened untimed.
            let url = bench.url("w15-\(path.rawValue)-\(comparator.key).sqlite")
            try bench.copyStore(source, to: url)
            let stack = try CoreDataStack(model: model, url: url)
            let seconds = try timed {
                switch path {
                case .root:
                    try edit(in: stack.context, style: style, count: count)
                case .child:
                    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                    child.parent = stack.context
                    try child.performAndWait { try edit(in: child, style: style, count: count) }
                    try stack.context.save()
                }
            }
            try stack.close()
            try verify(url, count: count)
            return seconds
        }
    }

    /// Fetches every user in `context`, adds one to each age, saves `context`.
    private static func edit(in context: NSManagedObjectContext, style: Style, count: Int) throws {
        if style == .kvc {
            let users = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "User"))
            try check(users.count == count, "W15 fetched \(users.count) users, expected \(count)")
            for user in users {
                let age = (user.value(forKey: "age") as? NSNumber)?.int64Value ?? 0
                user.setValue(NSNumber(value: age + 1), forKey: "age")
            }
        } else {
            let users = try context.fetch(NSFetchRequest<UserObject>(entityName: "User"))
            try check(users.count == count, "W15 fetched \(users.count) users, expected \(count)")
            for user in users { user.age += 1 }
        }
        try context.save()
    }

    /// Checks, row by row, that the store has every user once with its stored age plus one.
    private static func verify(_ url: URL, count: Int) throws {
        let db = try RawDatabase(path: url.path)
        let rows = try db.prepare("SELECT hex(ZID), ZAGE FROM ZUSER")
        var seen = Set<Int>()
        while try rows.step() {
            let hex = rows.string(0)
            // The UUID's last eight bytes are n (Users.id).
            guard hex.count == 32, let n = UInt64(hex.suffix(16), radix: 16).map(Int.init) else {
                throw BenchError("W15: unexpected id \(hex)")
            }
            try check(rows.int64(1) == Int64(Users.age(n) + 1), "W15: user \(n) has age \(rows.int64(1)), expected \(Users.age(n) + 1)")
            seen.insert(n)
        }
        try check(seen.count == count && seen == Set(0..<count), "W15 left \(seen.count) distinct users, expected \(count)")
    }
}
