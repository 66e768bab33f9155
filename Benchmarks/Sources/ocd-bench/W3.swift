import Foundation
import GRDB
import OpenCoreData

// W3: 1,000 parents × 100 children (to-many `children` with inverse to-one `parent`).
// Insert them in one save; then walk every parent → children → parent: the cost of
// relationship faults (one query per parent's children).

enum W3 {
    static func cases(_ bench: Bench) throws -> [BenchCase] {
        var cases: [BenchCase] = []
        if bench.options.selects("W3-insert") { cases.append(try insert(bench)) }
        if bench.options.selects("W3-walk") { cases.append(try walk(bench)) }
        return cases
    }

    static func insert(_ bench: Bench) throws -> BenchCase {
        let parents = bench.sizes.w3Parents, children = bench.sizes.w3Children
        func verify(_ url: URL, parentTable: String, childTable: String, parentColumn: String) throws {
            let db = try RawDatabase(path: url.path)
            let parentCount = try db.scalarInt("SELECT COUNT(*) FROM \(parentTable)")
            let linked = try db.scalarInt("SELECT COUNT(*) FROM \(childTable) c JOIN \(parentTable) p ON p.\(parentTable == "parent" ? "pk" : "Z_PK") = c.\(parentColumn)")
            try check(parentCount == Int64(parents) && linked == Int64(parents * children), "W3-insert wrote \(parentCount) parents, \(linked) linked children")
        }

        let raw = Variant.run {
            let url = bench.url("w3-insert-raw.sqlite")
            Bench.removeStore(url)
            let db = try RawDatabase(path: url.path)
            try db.execute(Family.createTables)
            let seconds = try timed {
                try db.transaction { try Family.rawInsert(db, parents: parents, children: children) }
            }
            try verify(url, parentTable: "parent", childTable: "child", parentColumn: "parentId")
            return seconds
        }

        let grdbRows = Variant.run {
            let url = bench.url("w3-insert-grdb-rows.sqlite")
            Bench.removeStore(url)
            let dbQueue = try GRDBSupport.queue(url)
            try dbQueue.write { db in try db.execute(sql: Family.createTables) }
            let seconds = try timed {
                try dbQueue.inTransaction { db in
                    let parentStatement = try db.makeStatement(sql: Family.insertParent)
                    let childStatement = try db.makeStatement(sql: Family.insertChild)
                    for p in 0..<parents {
                        parentStatement.setUncheckedArguments([Family.parentName(p)])
                        try parentStatement.execute()
                        let key = db.lastInsertedRowID
                        for c in 0..<children {
                            childStatement.setUncheckedArguments([key, Family.childName(c), c])
                            try childStatement.execute()
                        }
                    }
                    return .commit
                }
            }
            try dbQueue.close()
            try verify(url, parentTable: "parent", childTable: "child", parentColumn: "parentId")
            return seconds
        }

        let grdbRecords = Variant.run {
            let url = bench.url("w3-insert-grdb-records.sqlite")
            Bench.removeStore(url)
            let dbQueue = try GRDBSupport.queue(url)
            try dbQueue.write { db in try db.execute(sql: Family.createTables) }
            let seconds = try timed {
                try dbQueue.inTransaction { db in
                    for p in 0..<parents {
                        var parent = ParentRecord(name: Family.parentName(p))
                        try parent.insert(db)
                        for c in 0..<children {
                            var child = ChildRecord(parentId: parent.pk, name: Family.childName(c), value: c)
                            try child.insert(db)
                        }
                    }
                    return .commit
                }
            }
            try dbQueue.close()
            try verify(url, parentTable: "parent", childTable: "child", parentColumn: "parentId")
            return seconds
        }

        func ocd(_ style: Style) -> Variant {
            let model = Models.family(style)
            return .run {
                let url = bench.url("w3-insert-ocd-\(style).sqlite")
                Bench.removeStore(url)
                let stack = try CoreDataStack(model: model, url: url)
                let seconds = try timed {
                    Family.insert(into: stack.context, parents: parents, children: children, style: style)
                    try stack.context.save()
                }
                try stack.close()
                try verify(url, parentTable: "ZPARENT", childTable: "ZCHILD", parentColumn: "ZPARENT")
                return seconds
            }
        }

        return BenchCase(
            id: "W3-insert",
            summary: "insert \(parents) parents × \(children) children (child.parent set, inverse maintained) in one save; store open beforehand",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords, .ocdKVC: ocd(.kvc), .ocdTyped: ocd(.typed)])
    }

    static func walk(_ bench: Bench) throws -> BenchCase {
        let parents = bench.sizes.w3Parents, children = bench.sizes.w3Children
        let expectedChildren = parents * children
        let expectedSum = Int64(parents) * Int64(children * (children - 1) / 2)
        let plain = try Family.plainStore(bench, name: "family-plain-\(parents)x\(children).sqlite", parents: parents, children: children)
        let kvcURL = try Family.coreDataStore(bench, name: "family-ocd-kvc-\(parents)x\(children).sqlite", parents: parents, children: children, style: .kvc)
        let typedURL = try Family.coreDataStore(bench, name: "family-ocd-typed-\(parents)x\(children).sqlite", parents: parents, children: children, style: .typed)

        let rawDB = try RawDatabase(path: plain.path)
        let raw = Variant.run {
            var walked = 0
            var sum: Int64 = 0
            let seconds = try timed {
                let parentStatement = try rawDB.prepare("SELECT pk, name FROM parent")
                let childStatement = try rawDB.prepare("SELECT pk, parentId, name, value FROM child WHERE parentId = ?")
                while try parentStatement.step() {
                    let key = parentStatement.int64(0)
                    _ = parentStatement.textLength(1)
                    childStatement.reset()
                    childStatement.bind(key, at: 1)
                    while try childStatement.step() {
                        guard childStatement.int64(1) == key else { throw BenchError("child → parent mismatch") }
                        _ = childStatement.textLength(2)
                        sum &+= childStatement.int64(3)
                        walked += 1
                    }
                }
            }
            try check(walked == expectedChildren && sum == expectedSum, "raw walked \(walked), sum \(sum)")
            return seconds
        }

        let dbQueue = try GRDBSupport.queue(plain)
        let grdbRows = Variant.run {
            var walked = 0
            var sum: Int64 = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    let childStatement = try db.cachedStatement(sql: "SELECT pk, parentId, name, value FROM child WHERE parentId = ?")
                    let parentRows = try Row.fetchCursor(db, sql: "SELECT pk, name FROM parent")
                    while let parent = try parentRows.next() {
                        let key: Int64 = parent[0]
                        _ = parent[1] as String
                        let childRows = try Row.fetchCursor(childStatement, arguments: [key])
                        while let child = try childRows.next() {
                            guard child[1] as Int64 == key else { throw BenchError("child → parent mismatch") }
                            _ = child[2] as String
                            sum &+= child[3] as Int64
                            walked += 1
                        }
                    }
                }
            }
            try check(walked == expectedChildren && sum == expectedSum, "GRDB rows walked \(walked), sum \(sum)")
            return seconds
        }

        let grdbRecords = Variant.run {
            var walked = 0
            var sum = 0
            let seconds = try timed {
                try dbQueue.inDatabase { db in
                    for parent in try ParentRecord.fetchAll(db) {
                        for child in try ChildRecord.filter(Column("parentId") == parent.pk).fetchAll(db) {
                            guard child.parentId == parent.pk else { throw BenchError("child → parent mismatch") }
                            sum &+= child.value
                            walked += 1
                        }
                    }
                }
            }
            try check(walked == expectedChildren && Int64(sum) == expectedSum, "GRDB records walked \(walked), sum \(sum)")
            return seconds
        }

        func ocd(_ style: Style, _ url: URL) throws -> Variant {
            let stack = try CoreDataStack(model: Models.family(style), url: url)
            return .run {
                var walked = 0
                var sum: Int64 = 0
                let context = stack.context
                let seconds = try timed {
                    switch style {
                    case .kvc:
                        for parent in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Parent")) {
                            _ = parent.value(forKey: "name")
                            for case let child as NSManagedObject in parent.value(forKey: "children") as! NSSet {
                                guard child.value(forKey: "parent") as? NSManagedObject === parent else { throw BenchError("child → parent mismatch") }
                                _ = child.value(forKey: "name")
                                sum &+= (child.value(forKey: "value") as! NSNumber).int64Value
                                walked += 1
                            }
                        }
                    case .typed:
                        for parent in try context.fetch(NSFetchRequest<ParentObject>(entityName: "Parent")) {
                            _ = parent.name
                            for child in parent.children {
                                guard child.parent === parent else { throw BenchError("child → parent mismatch") }
                                _ = child.name
                                sum &+= child.value
                                walked += 1
                            }
                        }
                    }
                }
                context.reset()
                try check(walked == expectedChildren && sum == expectedSum, "OCD \(style) walked \(walked), sum \(sum)")
                return seconds
            }
        }

        return BenchCase(
            id: "W3-walk",
            summary: "fetch the \(parents) parents, fire each one's children fault and read every child and child.parent (fresh context)",
            variants: [.raw: raw, .grdbRows: grdbRows, .grdbRecords: grdbRecords,
                       .ocdKVC: try ocd(.kvc, kvcURL), .ocdTyped: try ocd(.typed, typedURL)])
    }
}
