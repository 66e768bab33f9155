import Foundation
import GRDB
import OpenCoreData

// W11: a heavyweight migration of 1.1M rows (100k parents with 10 children each) into a new
// store: `Parent.name` becomes `title`, each child's `value` becomes `value + 1`, keys and the
// parent relationship carried over. OpenCoreData runs NSMigrationManager with the inferred
// mapping model (the value expression edited), so every row goes through managed objects and
// the three passes; raw SQLite does it in two INSERT … SELECT statements, GRDB with records
// read through a cursor. Fresh process per run: peak RSS (VmHWM) is the target (300 MB).

enum W11 {
    static func cases(_ bench: Bench) throws -> [BenchCase] {
        guard bench.options.selects("W11") else { return [] }
        let parents = bench.sizes.w11Parents, children = bench.sizes.w11Children
        let expectedChildren = Int64(parents * children)
        // Child values run 0..<children under each parent; each gains 1.
        let expectedSum = Int64(parents) * Int64(children * (children - 1) / 2) + expectedChildren
        let plain = try Family.plainStore(bench, name: "w11-family-plain-\(parents)x\(children).sqlite", parents: parents, children: children)
        let source = try bench.fixture("w11-family-ocd-\(parents)x\(children).sqlite") { url in
            let stack = try CoreDataStack(model: Models.family(.kvc), url: url)
            var done = 0
            while done < parents {
                let batch = min(10_000, parents - done)
                Family.insert(into: stack.context, parents: batch, children: children, style: .kvc)
                try stack.context.save()
                stack.context.reset()
                done += batch
            }
            try stack.close()
        }
        let destination = bench.url("w11-destination.sqlite")

        func verify(_ url: URL, parentTable: String, childTable: String, valueColumn: String = "value", what: String) throws {
            let childStats = try rowStats(url, table: childTable, column: valueColumn)
            let parentStats = try rowStats(url, table: parentTable, column: "1")
            try check(childStats.count == expectedChildren && childStats.sum == expectedSum && parentStats.count == Int64(parents),
                      "\(what) W11: \(parentStats.count) parents, \(childStats.count) children, sum \(childStats.sum)")
        }

        let raw = Variant.run {
            Bench.removeStore(destination)
            let db = try RawDatabase(path: destination.path)
            let seconds = try timed {
                try db.execute("ATTACH DATABASE '\(plain.path)' AS old")
                try db.transaction {
                    try db.execute("""
                        CREATE TABLE parent (pk INTEGER PRIMARY KEY, title TEXT);
                        CREATE TABLE child (pk INTEGER PRIMARY KEY, parentId INTEGER, name TEXT, value INTEGER NOT NULL);
                        INSERT INTO parent (pk, title) SELECT pk, name FROM old.parent;
                        INSERT INTO child (pk, parentId, name, value) SELECT pk, parentId, name, value + 1 FROM old.child;
                        CREATE INDEX child_parent ON child (parentId);
                        """)
                }
                try db.execute("DETACH DATABASE old")
            }
            try verify(destination, parentTable: "parent", childTable: "child", what: "raw")
            return seconds
        }

        let grdbRecords = Variant.run {
            Bench.removeStore(destination)
            let oldQueue = try GRDBSupport.queue(plain)
            let newQueue = try GRDBSupport.queue(destination)
            let seconds = try timed {
                try newQueue.write { db in
                    try db.execute(sql: """
                        CREATE TABLE parent (pk INTEGER PRIMARY KEY, title TEXT);
                        CREATE TABLE child (pk INTEGER PRIMARY KEY, parentId INTEGER, name TEXT, value INTEGER NOT NULL);
                        CREATE INDEX child_parent ON child (parentId);
                        """)
                    try oldQueue.read { old in
                        let parentCursor = try ParentRecord.fetchCursor(old)
                        while let parent = try parentCursor.next() {
                            var titled = TitledParentRecord(pk: parent.pk, title: parent.name)
                            try titled.insert(db)
                        }
                        let childCursor = try ChildRecord.fetchCursor(old)
                        while var child = try childCursor.next() {
                            child.value += 1
                            try child.insert(db)
                        }
                    }
                }
            }
            try newQueue.close()
            try verify(destination, parentTable: "parent", childTable: "child", what: "GRDB records")
            return seconds
        }

        let ocd = Variant.run {
            Bench.removeStore(destination)
            let (v1, v2) = (Models.family(.kvc), renamedFamily())
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
            guard let childMapping = mapping.entityMappings?.first(where: { $0.destinationEntityName == "Child" }),
                  let valueMapping = childMapping.attributeMappings?.first(where: { $0.name == "value" }) else {
                throw BenchError("W11: the inferred mapping has no Child.value mapping")
            }
            valueMapping.valueExpression = NSExpression(format: "$source.value + 1")
            let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
            let seconds = try timed {
                try manager.migrateStore(from: source, sourceType: NSSQLiteStoreType, with: mapping,
                                         toDestinationURL: destination, destinationType: NSSQLiteStoreType)
            }
            try verify(destination, parentTable: "ZPARENT", childTable: "ZCHILD", valueColumn: "ZVALUE", what: "OCD")
            return seconds
        }

        return [BenchCase(
            id: "W11",
            summary: "migrate \(parents) parents × \(children) children into a new store (rename an attribute, compute a value, keep keys and relationships); OCD: NSMigrationManager with a mapping model; fresh process per run, peak RSS = VmHWM",
            isolated: true,
            variants: [.raw: raw, .grdbRecords: grdbRecords, .ocdKVC: ocd,
                       .ocdTyped: .notAvailable("the migration manager moves NSManagedObjects by key-value coding; one OCD variant")])]
    }

    /// The family model with `Parent.name` renamed to `title` (its renaming identifier is the old name).
    static func renamedFamily() -> NSManagedObjectModel {
        let model = Models.family(.kvc)
        if let name = model.entitiesByName["Parent"]?.attributesByName["name"] {
            name.name = "title"
            name.renamingIdentifier = "name"
        }
        return model
    }
}

/// W11's destination parent row: the renamed column.
struct TitledParentRecord: MutablePersistableRecord {
    static let databaseTableName = "parent"
    var pk: Int64?
    var title: String

    func encode(to container: inout PersistenceContainer) {
        container["pk"] = pk
        container["title"] = title
    }
}
