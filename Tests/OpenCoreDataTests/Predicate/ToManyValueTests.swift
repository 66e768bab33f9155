import Foundation
import Testing
@testable import OpenCoreData

// MARK: - ToManyValueTests

/// Issue 30, point 2: a key path through a to-many relationship to an attribute of any type —
/// above all a decimal, whose `NSDecimalNumber.hash` overflows the stack on Linux — never traps:
/// in fetches on both stores, `evaluate(with:)`, key-value coding, sorting, grouping and
/// fetched-results sections. And the three agree.
@Suite("To-many key paths to every attribute type")
struct ToManyValueTests {
    /// Every attribute type a key path can reach, with the value each object gets.
    static let attributes: [(name: String, type: NSAttributeType, value: @Sendable (Int) -> Any)] = [
        ("i16", .integer16AttributeType, { Int16($0 % 3) }),
        ("i32", .integer32AttributeType, { Int32(60 + $0 % 3 * 5) }),
        ("i64", .integer64AttributeType, { Int64($0 % 3) * 1_000_000_007 }),
        ("dec", .decimalAttributeType, { [Decimal(1), Decimal(string: "1.5")!, Decimal(string: "0.5")!][$0 % 3] }),
        ("dbl", .doubleAttributeType, { Double($0 % 3) / 4 }),
        ("flt", .floatAttributeType, { Float($0 % 3) / 2 }),
        ("str", .stringAttributeType, { ["café", "cafe\u{301}", "Cafe"][$0 % 3] }),
        ("flag", .booleanAttributeType, { $0 % 2 == 0 }),
        ("date", .dateAttributeType, { Date(timeIntervalSinceReferenceDate: Double($0 % 3) * 86_400) }),
        ("blob", .binaryDataAttributeType, { Data([UInt8($0 % 3), 7]) }),
        ("uuid", .UUIDAttributeType, { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0 % 3)")! }),
        ("uri", .URIAttributeType, { URL(string: "https://example.com/\($0 % 3)")! }),
    ]

    static func model() -> NSManagedObjectModel {
        typealias M = TestModels
        let item = M.entity("Item", [M.attribute("name", .stringAttributeType)] + attributes.map { M.attribute($0.name, $0.type) })
        let friends = M.relationship("friends", to: item, toMany: true)
        let friendOf = M.relationship("friendOf", to: item, toMany: true)
        M.inverse(friends, friendOf)
        let children = M.relationship("children", to: item, toMany: true)
        let parent = M.relationship("parent", to: item, toMany: false)
        M.inverse(children, parent)
        let pets = M.relationship("pets", to: item, toMany: true, ordered: true)
        let keeper = M.relationship("keeper", to: item, toMany: false)
        M.inverse(pets, keeper)
        item.properties += [friends, friendOf, children, parent, pets, keeper]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    /// Eight items, item `i` holding the values of `i % 3` (item 7 none); item 0 has friends
    /// 1…4 (1 and 4 hold equal values), children 4 and 5, pets 1 and 4.
    static func populate(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let items = (0..<8).map { index -> NSManagedObject in
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("item\(index)", forKey: "name")
                if index < 7 { for attribute in attributes { item.setValue(attribute.value(index), forKey: attribute.name) } }
                return item
            }
            items[0].setValue(NSSet(array: [items[1], items[2], items[3], items[4]]), forKey: "friends")
            items[2].setValue(NSSet(array: [items[0], items[7]]), forKey: "friends")
            items[5].setValue(NSSet(array: [items[6]]), forKey: "friends")
            items[0].setValue(NSSet(array: [items[4], items[5]]), forKey: "children")
            items[3].setValue(NSSet(array: [items[7]]), forKey: "children")
            items[0].setValue(NSOrderedSet(array: [items[1], items[4]]), forKey: "pets")
            try context.save()
        }
    }

    static func contexts() throws -> [NSManagedObjectContext] {
        try StoreKind.allCases.map { kind in
            let context = try kind.context(model())
            try populate(context)
            return context
        }
    }

    /// Predicates through to-many paths to `attribute`, with the value of item 1 as `%@`.
    static func predicates(_ attribute: String, numeric: Bool) -> [String] {
        var formats = [
            "ANY friends.\(attribute) == %@", "%@ IN children.\(attribute)", "NONE friends.\(attribute) == %@",
            "ALL friends.\(attribute) != %@", "friends.\(attribute) CONTAINS %@", "ANY friendOf.\(attribute) != nil",
            "SUBQUERY(friends, $f, $f.\(attribute) == %@).@count > 0", "count:(friends.\(attribute)) == 3",
            "ANY pets.\(attribute) == %@", "ANY friends.friends.\(attribute) == %@",
        ]
        if numeric {
            formats += ["average:(friendOf.\(attribute)) <= \(attribute)", "sum:(friends.\(attribute)) > 1", "max:(friends.\(attribute)) >= %@",
                        "friends.@sum.\(attribute) > 1", "friends.@avg.\(attribute) <= \(attribute)", "ANY friends.\(attribute) > 1e308",
                        "ANY friends.\(attribute) < -1e300", "ANY children.\(attribute) == nil"]
        }
        return formats
    }

    @Test("Fetch on both stores and evaluate(with:) agree, and never trap, for every attribute type")
    func fetchAndEvaluate() throws {
        let contexts = try Self.contexts()
        for attribute in Self.attributes {
            let numeric = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
                           .doubleAttributeType, .floatAttributeType].contains(attribute.type)
            for format in Self.predicates(attribute.name, numeric: numeric) {
                let predicate = try NSPredicate.parse(format: format, arguments: [attribute.value(1)])
                var answers: [[String]] = []
                for context in contexts {
                    try context.performAndWait {
                        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                        request.predicate = predicate
                        let fetched = try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
                        let everything = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                        let evaluated = everything.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }.sorted()
                        answers += [fetched, evaluated]
                    }
                }
                #expect(Set(answers).count == 1, "\(format): memory store, evaluate, SQLite, evaluate: \(answers)")
            }
        }
    }

    @Test("The issue's reproducers, on both stores and in evaluate(with:)")
    func issueReproducers() throws {
        for context in try Self.contexts() {
            try context.performAndWait {
                func names(_ format: String) throws -> [String] {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                    request.predicate = try NSPredicate.parse(format: format, arguments: [])
                    let fetched = try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
                    let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                    #expect(all.filter { request.predicate!.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }.sorted() == fetched, "\(format)")
                    return fetched
                }
                // Decimals 1, 1.5, 0.5 by `i % 3`: item 0's friend 3, item 2's friend 0 and item
                // 5's friend 6 hold 1.
                #expect(try names("ANY friends.dec == 1") == ["item0", "item2", "item5"])
                #expect(try names("65 IN children.i32") == ["item0"])
                #expect(try names("1.5 IN children.dec") == ["item0"])
                #expect(try names("2 IN children.dec") == [])
                // Friends-of: 1…4 ← 0 (1), 0 ← 2 (0.5), 6 ← 5 (0.5); item 5 has none.
                #expect(try names("average:(friendOf.dec) <= dec") == ["item0", "item1", "item3", "item4", "item6"])
                let item0 = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first { $0.value(forKey: "name") as? String == "item0" }!
                let decimals = item0.value(forKeyPath: "friends.dec") as? NSSet
                #expect(decimals?.count == 3)
                #expect(decimals?.contains(NSDecimalNumber(string: "1.5")) == true)
                #expect(decimals?.contains(Decimal(string: "0.5")!) == true)
                #expect(decimals?.contains(NSDecimalNumber(string: "2")) == false)
            }
        }
    }

    @Test("Key-value coding, sorting, grouping and sections through to-many paths never trap")
    func kvcSortGroupSections() throws {
        for context in try Self.contexts() {
            try context.performAndWait {
                let everything = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
                let item0 = everything.first { $0.value(forKey: "name") as? String == "item0" }!
                for attribute in Self.attributes {
                    let name = attribute.name
                    // Friends 1…4 hold the values of items 1, 2, 3 and 4 (= 1): three distinct
                    // ones, strings told apart literally ("café" and "cafe\u{301}" both stay).
                    let values = item0.value(forKeyPath: "friends.\(name)") as? NSSet
                    let distinct = name == "flag" ? 2 : 3
                    #expect(values?.count == distinct, "friends.\(name): \(String(describing: values))")
                    #expect(values.map { "\($0)" }?.isEmpty == false)
                    #expect(values?.contains(attribute.value(4)) == true, "friends.\(name)")
                    #expect(values?.isEqual(values?.copy()) == true)
                    #expect(values?.allObjects.count == values?.count)
                    let pets = item0.value(forKeyPath: "pets.\(name)")
                    let petValues = name == "flag" ? 2 : 1
                    #expect((pets as? NSOrderedSet)?.count == petValues || (pets as? [Any])?.count == petValues, "pets.\(name): \(String(describing: pets))")
                    #expect((item0.value(forKeyPath: "friends.@count") as? Int) == 4)
                    _ = item0.value(forKeyPath: "friends.@distinctUnionOfObjects.\(name)")
                    _ = item0.value(forKeyPath: "friends.@max.\(name)")
                    _ = NSExpression(forKeyPath: "friends.\(name)").expressionValue(with: item0, context: nil)

                    // Sorting by a to-many key path: sorted in memory, or refused with an NSError.
                    let sorted = NSFetchRequest<NSManagedObject>(entityName: "Item")
                    sorted.sortDescriptors = [NSSortDescriptor(key: "friends.\(name)", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
                    do { #expect(try context.fetch(sorted).count == 8) } catch { #expect((error as NSError).domain == NSCocoaErrorDomain) }
                    _ = everything.sorted(using: sorted.sortDescriptors!)

                    // Grouping by the attribute, and (refused or not) by a to-many path to it.
                    for groupKey in [name, "friends.\(name)", "parent.\(name)"] {
                        let grouped = NSFetchRequest<NSDictionary>(entityName: "Item")
                        grouped.resultType = .dictionaryResultType
                        grouped.propertiesToFetch = [groupKey]
                        grouped.propertiesToGroupBy = [groupKey]
                        do {
                            let rows = try context.fetch(grouped)
                            #expect(!rows.isEmpty)
                        } catch {
                            #expect((error as NSError).domain == NSCocoaErrorDomain, "group by \(groupKey): \(error)")
                        }
                    }

                    // Sections named by a to-many path: results, or an NSError for names out of order.
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                    request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                    for sectionKey in ["friends.\(name)", name] {
                        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                                    sectionNameKeyPath: sectionKey, cacheName: nil)
                        do { try controller.performFetch() } catch { #expect((error as NSError).domain == NSCocoaErrorDomain) }
                    }
                }
            }
        }
    }
}
