import Foundation
import GRDB

// GRDB's comparators: record structs as in GRDB's performance suite (FetchRecordStructTests,
// InsertRecordStructTests), and queues configured like every other comparator.

enum GRDBSupport {
    /// A queue with WAL and `synchronous=NORMAL`, the suite's settings.
    static func queue(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }
}

struct ItemRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var i0: Int
    var i1: Int
    var i2: Int
    var i3: Int
    var i4: Int
    var i5: Int
    var i6: Int
    var i7: Int
    var i8: Int
    var i9: Int

    init(i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int) {
        (self.i0, self.i1, self.i2, self.i3, self.i4) = (i0, i1, i2, i3, i4)
        (self.i5, self.i6, self.i7, self.i8, self.i9) = (i5, i6, i7, i8, i9)
    }

    init(row: Row) {
        i0 = row["i0"]
        i1 = row["i1"]
        i2 = row["i2"]
        i3 = row["i3"]
        i4 = row["i4"]
        i5 = row["i5"]
        i6 = row["i6"]
        i7 = row["i7"]
        i8 = row["i8"]
        i9 = row["i9"]
    }

    func encode(to container: inout PersistenceContainer) {
        container["i0"] = i0
        container["i1"] = i1
        container["i2"] = i2
        container["i3"] = i3
        container["i4"] = i4
        container["i5"] = i5
        container["i6"] = i6
        container["i7"] = i7
        container["i8"] = i8
        container["i9"] = i9
    }

    var sum: Int { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}

struct UserRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "user"
    var pk: Int64?
    var id: Data
    var firstName: String
    var lastName: String
    var age: Int

    init(pk: Int64? = nil, id: Data, firstName: String, lastName: String, age: Int) {
        (self.pk, self.id, self.firstName, self.lastName, self.age) = (pk, id, firstName, lastName, age)
    }

    init(row: Row) {
        pk = row["pk"]
        id = row["id"]
        firstName = row["firstName"]
        lastName = row["lastName"]
        age = row["age"]
    }

    func encode(to container: inout PersistenceContainer) {
        container["pk"] = pk
        container["id"] = id
        container["firstName"] = firstName
        container["lastName"] = lastName
        container["age"] = age
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        pk = inserted.rowID
    }
}

struct ParentRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "parent"
    var pk: Int64?
    var name: String

    init(pk: Int64? = nil, name: String) {
        self.pk = pk
        self.name = name
    }

    init(row: Row) {
        pk = row["pk"]
        name = row["name"]
    }

    func encode(to container: inout PersistenceContainer) {
        container["pk"] = pk
        container["name"] = name
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        pk = inserted.rowID
    }
}

struct ChildRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "child"
    var pk: Int64?
    var parentId: Int64?
    var name: String
    var value: Int

    init(pk: Int64? = nil, parentId: Int64?, name: String, value: Int) {
        (self.pk, self.parentId, self.name, self.value) = (pk, parentId, name, value)
    }

    init(row: Row) {
        pk = row["pk"]
        parentId = row["parentId"]
        name = row["name"]
        value = row["value"]
    }

    func encode(to container: inout PersistenceContainer) {
        container["pk"] = pk
        container["parentId"] = parentId
        container["name"] = name
        container["value"] = value
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        pk = inserted.rowID
    }
}

struct ThingRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "thing"
    var pk: Int64?
    var name: String
    var category: Int
    var value: Int

    init(pk: Int64? = nil, name: String, category: Int, value: Int) {
        (self.pk, self.name, self.category, self.value) = (pk, name, category, value)
    }

    init(row: Row) {
        pk = row["pk"]
        name = row["name"]
        category = row["category"]
        value = row["value"]
    }

    func encode(to container: inout PersistenceContainer) {
        container["pk"] = pk
        container["name"] = name
        container["category"] = category
        container["value"] = value
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        pk = inserted.rowID
    }
}

struct WordRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "word"
    var pk: Int64
    var name: String

    init(row: Row) {
        pk = row["pk"]
        name = row["name"]
    }
}
