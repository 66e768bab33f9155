import Foundation
import GRDB
import OpenCoreData

// W8: one save with 100k inserts + 5k updates + 5k deletes, on a store of 10k things.

enum W8 {
    static func cases(_ bench: Bench) throws -> [BenchCase] {
        guard bench.options.selects("W8") else { return [] }
        let existing = bench.sizes.w8Existing, inserts = bench.sizes.w8Inserts
        let updates = bench.sizes.w8Updates, deletes = bench.sizes.w8Deletes
        precondition(updates + deletes <= existing)
        let plain = try Things.plainStore(bench, count: existing, indexed: false)
        let kvc = try Things.coreDataStore(bench, count: existing, indexed: false, style: .kvc)
        let typed = try Things.coreDataStore(bench, count: existing, indexed: false, style: .typed)
        let expectedRows = Int64(existing - deletes + inserts)

        func working(_ comparator: Comparator) throws -> URL {
            let url = bench.url("w8-\(comparator.key).sqlite")
            try bench.copyStore(comparator == .ocdKVC ? kvc : comparator == .ocdTyped ? typed : plain, to: url)
            return url
        }
        func verify(_ url: URL, table: String, value: String) throws {
            let db = try RawDatabase(path: url.path)
            let rows = try db.scalarInt("SELECT COUNT(*) FROM \(table)")
            let bumped = try db.scalarInt("SELECT COUNT(*) FROM \(table) WHERE \(value) < 0")
            try check(rows == expectedRows && bumped == Int64(updates), "W8 left \(rows) rows, \(bumped) updated")
        }

        let raw = Variant.run {
            let url = try working(.raw)
            let db = try RawDatabase(path: url.path)
            let seconds = try timed {
                try db.transaction {
                    var keys: [Int64] = []
                    let select = try db.prepare("SELECT pk, name, category, value FROM thing")
                    while try select.step() { keys.append(select.int64(0)) }
                    let update = try db.prepare("UPDATE thing SET value = ? WHERE pk = ?")
                    for key in keys[0..<updates] {
                        update.bind(-key, at: 1)
                        update.bind(key, at: 2)
                        try update.run()
                    }
                    let delete = try db.prepare("DELETE FROM thing WHERE pk = ?")
                    for key in keys[updates..<(updates + deletes)] {
                        delete.bind(key, at: 1)
                        try delete.run()
                    }
                    let insert = try db.prepare(Things.insertSQL)
                    for n in existing..<(existing + inserts) {
                        insert.bind(Things.name(n), at: 1)
                        insert.bind(Int64(Things.category(n)), at: 2)
                        insert.bind(Int64(Things.value(n, rows: existing)), at: 3)
                        try insert.run()
                    }
                }
            }
            try verify(url, table: "thing", value: "value")
            return seconds
        }

        let grdbRows = Variant.run {
            let url = try working(.grdbRows)
            let dbQueue = try GRDBSupport.queue(url)
            let seconds = try timed {
                try dbQueue.inTransaction { db in
                    let keys = try Int64.fetchAll(db, sql: "SELECT pk FROM thing")
                    let update = try db.makeStatement(sql: "UPDATE thing SET value = ? WHERE pk = ?")
                    for key in keys[0..<updates] {
                        update.setUncheckedArguments([-key, key])
                        try update.execute()
                    }
                    let delete = try db.makeStatement(sql: "DELETE FROM thing WHERE pk = ?")
                    for key in keys[updates..<(updates + deletes)] {
                        delete.setUncheckedArguments([key])
                        try delete.execute()
                    }
                    let insert = try db.makeStatement(sql: Things.insertSQL)
                    for n in existing..<(existing + inserts) {
                        insert.setUncheckedArguments([Things.name(n), Things.category(n), Things.value(n, rows: existing)])
                        try insert.execute()
                    }
                    return .commit
                }
            }
            try dbQueue.close()
            try verify(url, table: "thing", value: "value")
            return seconds
        }

        let grdbRecords = Variant.run {
            let url = try working(.grdbRecords)
            let dbQueue = try GRDBSupport.queue(url)
            let seconds = try timed {
                try dbQueue.inTransaction { db in
                    var things = try ThingRecord.fetchAll(db)
                    for index in 0..<updates {
                        things[index].value = -Int(things[index].pk!)
                        try things[index].update(db)
                    }
                    for index in updates..<(updates + deletes) {
                        try things[index].delete(db)
                    }
                    for n in existing..<(existing + inserts) {
                        var thing = ThingRecord(name: Things.name(n), category: Things.category(n), value: Things.value(n, rows: existing))
                        try thing.insert(db)
                    }
                    return .commit
                }
            }
            try dbQueue.close()
            try verify(url, table: "thing", value: "value")
            return seconds
        }

        func ocd(_ style: Style) -> Variant {
            let model = Models.thing(style, indexed: false)
            return .run {
                let url = try working(style == .kvc ? .ocdKVC : .ocdTyped)
                let stack = try CoreDataStack(model: model, url: url)
                let context = stack.context
                let seconds = try timed {
                    switch style {
                    case .kvc:
                        let things = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Thing"))
                        for (index, thing) in things[0..<updates].enumerated() {
                            thing.setValue(NSNumber(value: -1 - index), forKey: "value")
                        }
                        for thing in things[updates..<(updates + deletes)] {
                            context.delete(thing)
                        }
                        for n in existing..<(existing + inserts) {
                            Things.insert(n, rows: existing, into: context)
                        }
                    case .typed:
                        let things = try context.fetch(NSFetchRequest<ThingObject>(entityName: "Thing"))
                        for (index, thing) in things[0..<updates].enumerated() {
                            thing.value = Int64(-1 - index)
                        }
                        for thing in things[updates..<(updates + deletes)] {
                            context.delete(thing)
                        }
                        for n in existing..<(existing + inserts) {
                            Things.insertTyped(n, rows: existing, into: context)
                        }
                    }
                    try context.save()
                }
                try stack.close()
                try verify(url, table: "ZTHING", value: "ZVALUE")
                return seconds
            }
        }

        return [BenchCase(
            id: "W8",
            summary: "on \(existing) stored things: fetch them, change \(updates), delete \(deletes), insert \(inserts) new, all in one save / one transaction; store open beforehand",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: ocd(.kvc), .ocdTyped: ocd(.typed)])]
    }
}
