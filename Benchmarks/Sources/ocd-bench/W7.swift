import Foundation
import GRDB
import OpenCoreData

// W7: delete a parent with 100k children under a Cascade rule, and save. Raw SQLite and GRDB
// delete the children with one statement and then the parent: the cascade as SQL.
// A second parent with a few children must survive.

enum W7 {
    static func cases(_ bench: Bench) throws -> [BenchCase] {
        guard bench.options.selects("W7") else { return [] }
        let children = bench.sizes.w7Children
        let survivors = 10

        func makePlain(_ url: URL) throws {
            let db = try RawDatabase(path: url.path)
            try db.execute(Family.createTables)
            try db.transaction {
                try Family.rawInsert(db, parents: 1, children: children)
                try Family.rawInsert(db, parents: 1, children: survivors)
                try db.execute("UPDATE parent SET name = 'Survivor' WHERE pk = (SELECT MAX(pk) FROM parent)")
            }
        }
        func makeCoreData(_ style: Style) -> (URL) throws -> Void {
            { url in
                let stack = try CoreDataStack(model: Models.family(style), url: url)
                Family.insert(into: stack.context, parents: 1, children: children, style: style)
                try stack.context.save()
                stack.context.reset()
                // The survivor gets another name: insert() numbers parents from 0.
                Family.insert(into: stack.context, parents: 1, children: survivors, style: style)
                let request = NSFetchRequest<NSManagedObject>(entityName: "Parent")
                for parent in try stack.context.fetch(request) where parent.isInserted {
                    parent.setValue("Survivor", forKey: "name")
                }
                try stack.context.save()
                try stack.close()
            }
        }
        let plain = try bench.fixture("w7-plain-\(children).sqlite", makePlain)
        let kvc = try bench.fixture("w7-ocd-kvc-\(children).sqlite", makeCoreData(.kvc))
        let typed = try bench.fixture("w7-ocd-typed-\(children).sqlite", makeCoreData(.typed))

        func working(_ comparator: Comparator) throws -> URL {
            let url = bench.url("w7-\(comparator.key).sqlite")
            try bench.copyStore(comparator == .ocdKVC ? kvc : comparator == .ocdTyped ? typed : plain, to: url)
            return url
        }
        func verify(_ url: URL, parentTable: String, childTable: String) throws {
            let db = try RawDatabase(path: url.path)
            let parents = try db.scalarInt("SELECT COUNT(*) FROM \(parentTable)")
            let left = try db.scalarInt("SELECT COUNT(*) FROM \(childTable)")
            try check(parents == 1 && left == Int64(survivors), "W7 left \(parents) parents and \(left) children")
        }

        let raw = Variant.run {
            let url = try working(.raw)
            let db = try RawDatabase(path: url.path)
            let seconds = try timed {
                try db.transaction {
                    let find = try db.prepare("SELECT pk FROM parent WHERE name = ?")
                    find.bind(Family.parentName(0), at: 1)
                    guard try find.step() else { throw BenchError("no parent") }
                    let key = find.int64(0)
                    let deleteChildren = try db.prepare("DELETE FROM child WHERE parentId = ?")
                    deleteChildren.bind(key, at: 1)
                    try deleteChildren.run()
                    let deleteParent = try db.prepare("DELETE FROM parent WHERE pk = ?")
                    deleteParent.bind(key, at: 1)
                    try deleteParent.run()
                }
            }
            try verify(url, parentTable: "parent", childTable: "child")
            return seconds
        }

        let grdbRows = Variant.run {
            let url = try working(.grdbRows)
            let dbQueue = try GRDBSupport.queue(url)
            let seconds = try timed {
                try dbQueue.write { db in
                    guard let key = try Int64.fetchOne(db, sql: "SELECT pk FROM parent WHERE name = ?", arguments: [Family.parentName(0)]) else {
                        throw BenchError("no parent")
                    }
                    try db.execute(sql: "DELETE FROM child WHERE parentId = ?", arguments: [key])
                    try db.execute(sql: "DELETE FROM parent WHERE pk = ?", arguments: [key])
                }
            }
            try dbQueue.close()
            try verify(url, parentTable: "parent", childTable: "child")
            return seconds
        }

        let grdbRecords = Variant.run {
            let url = try working(.grdbRecords)
            let dbQueue = try GRDBSupport.queue(url)
            let seconds = try timed {
                try dbQueue.write { db in
                    guard let parent = try ParentRecord.filter(Column("name") == Family.parentName(0)).fetchOne(db) else { throw BenchError("no parent") }
                    try ChildRecord.filter(Column("parentId") == parent.pk).deleteAll(db)
                    try parent.delete(db)
                }
            }
            try dbQueue.close()
            try verify(url, parentTable: "parent", childTable: "child")
            return seconds
        }

        func ocd(_ style: Style) -> Variant {
            let model = Models.family(style)
            return .run {
                let url = try working(style == .kvc ? .ocdKVC : .ocdTyped)
                let stack = try CoreDataStack(model: model, url: url)
                let seconds = try timed {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Parent")
                    request.predicate = NSPredicate(format: "name == %@", Family.parentName(0))
                    guard let parent = try stack.context.fetch(request).first else { throw BenchError("no parent") }
                    stack.context.delete(parent)
                    try stack.context.save()
                }
                try stack.close()
                try verify(url, parentTable: "ZPARENT", childTable: "ZCHILD")
                return seconds
            }
        }

        return [BenchCase(
            id: "W7",
            summary: "find a parent by name, delete it with its \(children) children (Cascade), save; store open beforehand (raw/GRDB: DELETE children WHERE parent, then the parent)",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: ocd(.kvc), .ocdTyped: ocd(.typed)])]
    }
}
