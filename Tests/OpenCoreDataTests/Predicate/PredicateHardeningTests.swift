import Foundation
import Testing
@testable import OpenCoreData

// MARK: - PredicateHardeningTests

/// Issue 14 points 1 and 2: a predicate that parses never traps later, and no input overflows
/// the stack or takes super-linear time. Apple raises `NSInvalidArgumentException` for a key the
/// entity lacks; on the fetch path that becomes a thrown `NSError`.
@Suite("Predicate hardening: model check, depth and time bounds")
struct PredicateHardeningTests {
    static func fetchError(_ format: String, _ arguments: [Any] = [], kind: StoreKind = .sqlite,
                           count: Bool = false) throws -> NSError? {
        let context = try kind.context(LoweringTestModel.model())
        try LoweringTestModel.populate(context)
        let predicate = try NSPredicate.parse(format: format, arguments: arguments)
        return context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.predicate = predicate
            do {
                if count { _ = try context.count(for: request) } else { _ = try context.fetch(request) }
            } catch {
                return error as NSError
            }
            return nil
        }
    }

    @Test("Apple: a key path the entity lacks is 'keypath … not found in entity'; here a thrown NSError naming both",
          arguments: [
              ("SUBQUERY(tags, $t, age > 1).@count > 0", "age", "Tag"), ("SUBQUERY(tags, $t, $t.age > 1).@count > 0", "age", "Tag"),
              ("SELF['key'] == 1", "key", "Person"), ("children.SELF == 1", "SELF", "Person"), ("tags[FIRST].nope == 1", "nope", "Tag"),
              ("children.@avg.nope > 1", "nope", "Person"), ("TERNARY(age > 1, department, location).budget > 1", "budget", "Location"),
              ("(children UNION tags).name != nil AND (children UNION tags).age > 1", "age", "Tag"),
              ("SUBQUERY(children, $c, SUBQUERY($c.tags, $t, $t.name == $c.nope).@count > 0).@count > 0", "nope", "Person"),
          ] as [(String, String, String)])
    func unknownKeysThrow(format: String, key: String, entity: String) throws {
        for kind in StoreKind.allCases {
            let error = try #require(try Self.fetchError(format, kind: kind))
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key, "\(format): \(error)")
            #expect(error.localizedDescription.contains("entity '\(entity)'"), "\(format): \(error)")
        }
        #expect(try Self.fetchError(format, count: true)?.code == NSCoreDataError)
    }

    @Test("An empty key path component (%K with \"...\") is an unknown key, not a trap")
    func emptyComponentsThrow() throws {
        #expect(try Self.fetchError("%K == 1", ["..."])?.code == NSCoreDataError)
        #expect(try Self.fetchError("%K == 1", ["tags..name"])?.code == NSCoreDataError)
    }

    @Test("Keys the model has pass the check, through every form", arguments: [
        "SUBQUERY(tags, $t, name == 'x' AND $t.tagId != nil).@count >= 0", "SELF['name'] != 'x' OR SELF['name'] == 'x'",
        "tags[FIRST].name != 'no such tag'", "children.@avg.age >= 0 OR children.@count == 0", "SELF.self.name != nil OR name == nil",
        "TERNARY(age > 1, department, department).budget >= 0 OR department == nil", "objectID != nil", "children[SIZE] >= 0",
        "ANY children.toys.price >= 0 OR children.@count >= 0", "department.manager.department.name != 'x' OR department == nil",
    ])
    func knownKeysPass(format: String) throws {
        for kind in StoreKind.allCases { #expect(try Self.fetchError(format, kind: kind) == nil, "\(format)") }
    }

    @Test("A subscript computed at run time on objects cannot be checked, so the fetch refuses it")
    func computedSubscriptThrows() throws {
        #expect(try Self.fetchError("SELF[name] == 1")?.code == NSCoreDataError)
        #expect(try Self.fetchError("scores[age] == 1") == nil)  // a subscript of values reads no key
    }

    @Test("Operator chains deeper than 128 levels are a PredicateFormatError, not a stack overflow")
    func chainsAreBounded() throws {
        func chain(_ count: Int, _ separator: String) -> String {
            Array(repeating: "1", count: count).joined(separator: separator) + " == 1"
        }
        for separator in [" + ", " * ", " ** ", " UNION "] {
            #expect(throws: Never.self) { try NSPredicate.parse(format: chain(90, separator)) }
            let error = try #require(throws: PredicateFormatError.self) { try NSPredicate.parse(format: chain(29_000, separator)) }
            #expect(error.code == .tooDeep)
        }
        let subscripts = try #require(throws: PredicateFormatError.self) {
            try NSPredicate.parse(format: "a" + String(repeating: "[0]", count: 729) + " == 1")
        }
        #expect(subscripts.code == .tooDeep)
        #expect(throws: PredicateFormatError.self) { try NSPredicate.parse(format: "a" + String(repeating: "[0].b", count: 100) + " == 1") }
        // The deepest accepted chain prints and evaluates.
        let deep = try NSPredicate.parse(format: chain(120, " + "))
        #expect(deep.evaluate(with: nil) == false)
        #expect(try NSPredicate.parse(format: deep.predicateFormat) == deep)
    }

    @Test("A 300,000-component key path parses into one key path node")
    func longKeyPathParses() throws {
        let path = Array(repeating: "a", count: 300_000).joined(separator: ".")
        let predicate = try NSPredicate.parse(format: path + " == 1")
        #expect((predicate as? NSComparisonPredicate)?.leftExpression.keyPath == path)
    }

    @Test("A programmatic predicate deeper than the limit is refused by the fetch with an NSError")
    func deepProgrammaticPredicateThrows() throws {
        var predicate: NSPredicate = NSPredicate(format: "age > 1")
        for _ in 0..<200 { predicate = NSCompoundPredicate(notPredicateWithSubpredicate: predicate) }
        let context = try TestModels.sqliteContext(LoweringTestModel.model())
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = predicate
        let error = context.performAndWait { () -> NSError? in
            do { _ = try context.fetch(request) } catch { return error as NSError }
            return nil
        }
        #expect(error?.code == NSCoreDataError)
    }

    @Test("A subscript of an unordered to-many picks by primary key, in SQL, in memory and before a save")
    func unorderedSubscriptOrder() throws {
        let model = LoweringTestModel.model()
        for kind in StoreKind.allCases {
            let context = try kind.context(model)
            try context.performAndWait {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue("P", forKey: "name")
                let tags = ["m", "z", "a"].map { name -> NSManagedObject in
                    let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                    tag.setValue(name, forKey: "name")
                    return tag
                }
                person.setValue(Set(tags), forKey: "tags")
                // Unsaved: temporary IDs count in creation order.
                #expect(NSPredicate(format: "tags[FIRST].name == 'm' AND tags[LAST].name == 'a' AND tags[1].name == 'z'").evaluate(with: person), "\(kind)")
                try context.save()
                let byKey = tags.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }.map { $0.value(forKey: "name") as? String ?? "" }
                let format = "tags[FIRST].name == %@ AND tags[LAST].name == %@ AND tags[1].name == %@"
                let predicate = NSPredicate(format: format, byKey[0], byKey[2], byKey[1])
                #expect(predicate.evaluate(with: person), "\(kind)")
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.predicate = predicate
                #expect(try context.fetch(request) == [person], "\(kind)")
                request.predicate = NSPredicate(format: "tags[FIRST].name == %@", byKey[2])
                #expect(try context.fetch(request).isEmpty, "\(kind)")
            }
        }
    }

    @Test("Long AND runs fetch the same rows on both stores (SQLite's depth limit is avoided)")
    func longAndRuns() throws {
        let format = Array(repeating: "age >= 0", count: 2_000).joined(separator: " AND ") + " AND name != nil"
        var counts: [Int] = []
        for kind in StoreKind.allCases {
            let context = try kind.context(LoweringTestModel.model())
            try LoweringTestModel.populate(context)
            let predicate = try NSPredicate.parse(format: format)
            counts.append(try context.performAndWait {
                try context.save()
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.predicate = predicate
                return try context.fetch(request).count
            })
        }
        #expect(counts[0] == counts[1] && counts[0] > 0)
    }

    @Test("A catastrophically backtracking MATCHES is abandoned: false in evaluate, a thrown NSError from fetch")
    func regexIsBounded() throws {
        let slow = String(repeating: "a", count: 40) + "c"
        let predicate = try NSPredicate.parse(format: "name MATCHES '(a*)*b'")
        #expect(predicate.evaluate(with: ["name": slow]) == false)
        #expect(try NSPredicate.parse(format: "name MATCHES 'a*c'").evaluate(with: ["name": slow]))
        for kind in StoreKind.allCases {
            let context = try kind.context(LoweringTestModel.model())
            try LoweringTestModel.populate(context)
            let error = context.performAndWait { () -> NSError? in
                do {
                    let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
                    for person in people { person.setValue(slow, forKey: "name") }
                    try context.save()
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                    request.predicate = predicate
                    _ = try context.fetch(request)
                } catch {
                    return error as NSError
                }
                return nil
            }
            #expect(error?.code == NSCoreDataError, "\(kind): \(String(describing: error))")
            #expect(error?.localizedDescription.contains("(a*)*b") == true)
        }
    }
}
