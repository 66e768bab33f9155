import Foundation
import OpenCoreData

/// Parents and children of W3 and W7, in both schemas.
enum Family {
    static let createTables = """
    CREATE TABLE parent (pk INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE child (pk INTEGER PRIMARY KEY, parentId INTEGER, name TEXT, value INTEGER NOT NULL);
    CREATE INDEX child_parent ON child (parentId);
    """
    static let insertParent = "INSERT INTO parent (name) VALUES (?)"
    static let insertChild = "INSERT INTO child (parentId, name, value) VALUES (?, ?, ?)"

    static func parentName(_ p: Int) -> String { "Parent \(p)" }
    static func childName(_ c: Int) -> String { "Child \(c)" }

    /// Writes `parents` × `children` rows with prepared statements (no transaction handling).
    static func rawInsert(_ db: RawDatabase, parents: Int, children: Int) throws {
        let parentStatement = try db.prepare(insertParent)
        let childStatement = try db.prepare(insertChild)
        for p in 0..<parents {
            parentStatement.reset()
            parentStatement.bind(parentName(p), at: 1)
            _ = try parentStatement.step()
            let key = sqlite3LastInsertRowID(db)
            for c in 0..<children {
                childStatement.reset()
                childStatement.bind(key, at: 1)
                childStatement.bind(childName(c), at: 2)
                childStatement.bind(Int64(c), at: 3)
                _ = try childStatement.step()
            }
        }
    }

    /// Inserts `parents` × `children` objects into a context (no save).
    static func insert(into context: NSManagedObjectContext, parents: Int, children: Int, style: Style) {
        for p in 0..<parents {
            switch style {
            case .kvc:
                let parent = NSEntityDescription.insertNewObject(forEntityName: "Parent", into: context)
                parent.setValue(parentName(p), forKey: "name")
                for c in 0..<children {
                    let child = NSEntityDescription.insertNewObject(forEntityName: "Child", into: context)
                    child.setValue(childName(c), forKey: "name")
                    child.setValue(NSNumber(value: c), forKey: "value")
                    child.setValue(parent, forKey: "parent")
                }
            case .typed:
                let parent = ParentObject(context: context)
                parent.name = parentName(p)
                for c in 0..<children {
                    let child = ChildObject(context: context)
                    child.name = childName(c)
                    child.value = Int64(c)
                    child.parent = parent
                }
            }
        }
    }

    static func plainStore(_ bench: Bench, name: String, parents: Int, children: Int) throws -> URL {
        try bench.fixture(name) { url in
            let db = try RawDatabase(path: url.path)
            try db.execute(createTables)
            try db.transaction { try rawInsert(db, parents: parents, children: children) }
        }
    }

    static func coreDataStore(_ bench: Bench, name: String, parents: Int, children: Int, style: Style) throws -> URL {
        try bench.fixture(name) { url in
            let stack = try CoreDataStack(model: Models.family(style), url: url)
            insert(into: stack.context, parents: parents, children: children, style: style)
            try stack.context.save()
            try stack.close()
        }
    }
}
