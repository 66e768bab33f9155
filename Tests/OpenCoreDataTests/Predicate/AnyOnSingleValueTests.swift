import Foundation
import Testing
@testable import OpenCoreData

/// Issue 38, point 3: `ANY`/`ALL` on a key path that is not a collection — an attribute, a to-one,
/// a key path through a to-one — compare that one value, as Apple's SQLite store answers Apple's
/// sample search `ANY title CONTAINS[c] %@ AND trip.name = %@`. One answer on every path: a fetch
/// on SQLite, a fetch on the in-memory store, and `evaluate(with:)` (where Apple raises).
@Suite("ANY and ALL on a single value")
struct AnyOnSingleValueTests {
    /// Sights, each with a city as its mother (a to-one), on a SQLite and an in-memory store.
    static func contexts() throws -> [NSManagedObjectContext] {
        let model = TestModels.personModel()
        var contexts: [NSManagedObjectContext] = []
        for type in [NSSQLiteStoreType, NSInMemoryStoreType] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: type, configurationName: nil,
                                               at: type == NSSQLiteStoreType ? TestStoreFiles.newStoreURL() : nil, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                func person(_ name: String?, age: Int, mother: NSManagedObject? = nil) -> NSManagedObject {
                    let object = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                    object.setValue(name, forKey: "name")
                    object.setValue(age, forKey: "age")
                    object.setValue(mother, forKey: "mother")
                    return object
                }
                let paris = person("Paris", age: 1), london = person("London", age: 2)
                _ = person("Eiffel Tower", age: 3, mother: paris)
                _ = person("Tower Bridge", age: 4, mother: london)
                _ = person("Louvre", age: 5, mother: paris)
                _ = person(nil, age: 6, mother: paris)
                try context.save()
            }
            contexts.append(context)
        }
        return contexts
    }

    /// The names `format` selects: fetched and evaluated on each store, one answer or a failure.
    private func answer(_ format: String, _ arguments: [Any] = [], contexts: [NSManagedObjectContext],
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let predicate = NSPredicate(format: format, argumentArray: arguments)
        var answers: [[String]] = []
        for context in contexts {
            try context.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
                request.predicate = predicate
                answers.append(try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "nil" }.sorted())
                let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
                answers.append(all.filter { predicate.evaluate(with: $0) }.map { $0.value(forKey: "name") as? String ?? "nil" }.sorted())
            }
        }
        #expect(Set(answers).count == 1, "\(format): SQLite, evaluate, memory, evaluate: \(answers)", sourceLocation: sourceLocation)
        return answers[0]
    }

    @Test("ANY on an attribute compares its value: Apple's sample search matches")
    func anyOnAttribute() throws {
        let contexts = try Self.contexts()
        #expect(try answer("ANY name CONTAINS[c] %@", ["tower"], contexts: contexts) == ["Eiffel Tower", "Tower Bridge"])
        #expect(try answer("ANY name CONTAINS[c] %@ AND mother.name = %@", ["tower", "Paris"], contexts: contexts) == ["Eiffel Tower"])
        #expect(try answer("SOME name BEGINSWITH 'L'", contexts: contexts) == ["London", "Louvre"])
        #expect(try answer("ANY age > 4", contexts: contexts) == ["Louvre", "nil"])
        #expect(try answer("ANY name IN {'Paris', 'Louvre'}", contexts: contexts) == ["Louvre", "Paris"])
        #expect(try answer("NONE name CONTAINS 'o'", contexts: contexts) == ["Paris", "nil"])
    }

    @Test("ANY through a to-one compares the related object's value; a nil to-one has no element")
    func anyThroughToOne() throws {
        let contexts = try Self.contexts()
        #expect(try answer("ANY mother.name == 'Paris'", contexts: contexts) == ["Eiffel Tower", "Louvre", "nil"])
        #expect(try answer("ANY mother.name != 'Paris'", contexts: contexts) == ["Tower Bridge"])
        #expect(try answer("ALL mother.age < 2", contexts: contexts) == ["Eiffel Tower", "Louvre", "nil"])
        #expect(try answer("ANY mother.mother.name == 'Paris'", contexts: contexts) == [])
    }

    @Test("ALL on a single value is that value's comparison; nil is false under ANY and ALL")
    func allAndNil() throws {
        let contexts = try Self.contexts()
        #expect(try answer("ALL name ENDSWITH 'e'", contexts: contexts) == ["Louvre", "Tower Bridge"])
        #expect(try answer("ANY name == nil", contexts: contexts) == [])
        #expect(try answer("ALL name != 'Louvre'", contexts: contexts) == ["Eiffel Tower", "London", "Paris", "Tower Bridge"])
        // The to-many sides keep their collection semantics: ALL over no children is true.
        #expect(try answer("ALL children.name != 'Louvre'", contexts: contexts) == ["Eiffel Tower", "London", "Louvre", "Tower Bridge", "nil"])
    }
}
