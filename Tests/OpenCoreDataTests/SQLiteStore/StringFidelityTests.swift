import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Issue 14 point 6: Core Data saves an `NSString` as given — every UTF-16 unit, U+0000
/// included, and canonically equivalent spellings as the distinct strings they are (`NSString`
/// compares literally; Apple's store binds the whole string).
@Suite("Strings saved as given")
struct StringFidelityTests {
    static let withNUL = "a\u{0}b"
    static let precomposed = "Zo\u{EB}"
    static let decomposed = "Zoe\u{308}"

    static func model() -> NSManagedObjectModel {
        let person = TestModels.entity("Person", [TestModels.attribute("name", .stringAttributeType),
                                                   TestModels.attribute("email", .stringAttributeType),
                                                   TestModels.attribute("homepage", .URIAttributeType)])
        person.uniquenessConstraints = [["email"]]
        let model = NSManagedObjectModel()
        model.entities = [person]
        return model
    }

    /// The bytes and SQLite type of every `ZNAME` (or another column), read with raw SQL.
    static func storedText(_ url: URL, column: String = "ZNAME") throws -> [(type: String, bytes: Data)] {
        let queue = try DatabaseQueue(path: url.path)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT typeof(\(column)) AS t, CAST(\(column) AS BLOB) AS b FROM ZPERSON ORDER BY Z_PK").map { row in
                (type: row["t"] as String, bytes: (row["b"] as Data?) ?? Data())
            }
        }
    }

    /// A second coordinator on the same file: values come from the file, not a row cache.
    static func reopenedNames(_ url: URL) throws -> [String] {
        let context = try TestModels.sqliteContext(model(), url: url)
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "email", ascending: true)]
            return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "<nil>" }
        }
    }

    @Test("A string holding U+0000 is saved whole: inserted and updated text bytes in the file are its UTF-8")
    func nulIsStoredWhole() throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(Self.model(), url: url)
        try context.performAndWait {
            let first = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            first.setValue(Self.withNUL, forKey: "name")
            first.setValue("1", forKey: "email")
            let second = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            second.setValue("plain", forKey: "name")
            second.setValue("2", forKey: "email")
            try context.save()
            second.setValue("x\u{0}\u{0}y\u{0}", forKey: "name")
            try context.save()
        }
        let stored = try Self.storedText(url)
        #expect(stored.map(\.type) == ["text", "text"])
        #expect(stored.map(\.bytes) == [Data(Self.withNUL.utf8), Data("x\u{0}\u{0}y\u{0}".utf8)])
        #expect(try Self.reopenedNames(url).map { Array($0.unicodeScalars) } == [Array(Self.withNUL.unicodeScalars), Array("x\u{0}\u{0}y\u{0}".unicodeScalars)])
    }

    @Test("Fetching by a string holding U+0000 finds the row in SQL, and dictionary results keep the NUL", arguments: StoreKind.allCases)
    func nulFetches(kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        try context.performAndWait {
            for (name, email) in [(Self.withNUL, "1"), ("a", "2"), ("a\u{0}c", "3")] {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue(name, forKey: "name")
                person.setValue(email, forKey: "email")
            }
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = NSPredicate(format: "name == %@", Self.withNUL)
            #expect(try context.fetch(request).map { $0.value(forKey: "email") as? String } == ["1"])
            #expect(try context.count(for: request) == 1)
            request.predicate = NSPredicate(format: "name IN %@", [Self.withNUL, "zzz"])
            #expect(try context.count(for: request) == 1)
            // String functions see the whole text too (SQL calls memory's code on every byte).
            for (format, argument, count) in [("name CONTAINS %@", "\u{0}b", 1), ("name LIKE[c] %@", "A\u{0}*", 2),
                                              ("name ENDSWITH %@", "\u{0}c", 1), ("lowercase:(name) == %@", "a\u{0}c", 1),
                                              ("name.length == %@", "3", 2)] {
                request.predicate = NSPredicate(format: format, argument)
                if format.hasSuffix("length == %@") { request.predicate = NSPredicate(format: "name.length == 3") }
                #expect(try context.count(for: request) == count, "\(format)")
            }
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Person")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["name"]
            dictionaries.sortDescriptors = [NSSortDescriptor(key: "email", ascending: true)]
            let names = try context.fetch(dictionaries).map { $0["name"] as? String ?? "" }
            #expect(names.map { Array($0.utf8) } == [Array(Self.withNUL.utf8), Array("a".utf8), Array("a\u{0}c".utf8)])
        }
    }

    @Test("Setting a canonically equivalent but different string is a change and is saved (NSString compares literally)", arguments: StoreKind.allCases)
    func canonicalEquivalentIsAChange(kind: StoreKind) throws {
        let url = TestStoreFiles.newStoreURL()
        let context = kind == .sqlite ? try TestModels.sqliteContext(Self.model(), url: url) : try kind.context(Self.model())
        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(Self.decomposed, forKey: "name")
            person.setValue("1", forKey: "email")
            try context.save()
            person.setValue(Self.precomposed, forKey: "name")
            #expect(person.hasChanges)
            #expect(person.changedValues().keys.sorted() == ["name"])
            #expect(context.updatedObjects.count == 1)
            try context.save()
            context.reset()
            let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(fetched.map { Array(($0.value(forKey: "name") as? String ?? "").unicodeScalars) } == [Array(Self.precomposed.unicodeScalars)])
        }
        if kind == .sqlite {
            #expect(try Self.storedText(url).map(\.bytes) == [Data(Self.precomposed.utf8)])
            #expect(try Self.reopenedNames(url).map { Array($0.utf8) } == [Array(Self.precomposed.utf8)])
        }
    }

    @Test("A URI attribute and a decomposed string are stored byte for byte", arguments: [Self.decomposed, Self.precomposed, "e\u{301}\u{0}"])
    func bytesAreTheStringsUTF8(name: String) throws {
        let url = TestStoreFiles.newStoreURL()
        let context = try TestModels.sqliteContext(Self.model(), url: url)
        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(name, forKey: "name")
            person.setValue("1", forKey: "email")
            person.setValue(URL(string: "https://example.com/a%00b"), forKey: "homepage")
            try context.save()
        }
        #expect(try Self.storedText(url).map(\.bytes) == [Data(name.utf8)])
        #expect(try Self.storedText(url, column: "ZHOMEPAGE").map(\.bytes) == [Data("https://example.com/a%00b".utf8)])
    }

    @Test("Uniqueness constraints compare strings literally, as SQLite's UNIQUE index does", arguments: StoreKind.allCases)
    func uniquenessIsLiteral(kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        try context.performAndWait {
            for email in [Self.precomposed, Self.decomposed] {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue(email, forKey: "email")
            }
            try context.save()
            context.reset()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 2)
            let duplicate = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            duplicate.setValue(Self.decomposed, forKey: "email")
            #expect(throws: NSError.self) { try context.save() }
        }
    }

    @Test("Store values compare strings by their exact scalars; equal values hash alike")
    func storeValueEquality() {
        #expect(StoreValue.string(Self.precomposed) != StoreValue.string(Self.decomposed))
        #expect(StoreValue.string(Self.precomposed) == StoreValue.string("Zo\u{EB}"))
        #expect(StoreValue.string("a\u{0}b") != StoreValue.string("a"))
        let set: Set<StoreValue> = [.string(Self.precomposed), .string(Self.decomposed), .string("Zo\u{EB}")]
        #expect(set.count == 2)
        #expect(StoreValue.int(1) == .int(1) && StoreValue.null == .null && StoreValue.int(1) != .double(1))
    }
}
