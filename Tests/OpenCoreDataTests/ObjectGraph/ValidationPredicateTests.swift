import Foundation
import Testing
@testable import OpenCoreData

@Suite("Validation predicates")
struct ValidationPredicateTests {
    static func model() -> NSManagedObjectModel {
        let name = TestModels.attribute("name", .stringAttributeType)
        name.setValidationPredicates([NSPredicate(format: "length >= 3"), NSPredicate(format: "length <= 8"), NSPredicate(format: "SELF MATCHES %@", "[a-z]+")],
                                     withValidationWarnings: ["too short", "too long", "lowercase letters only"])
        let age = TestModels.attribute("age", .integer32AttributeType)
        age.setValidationPredicates([NSPredicate(format: "SELF >= 0"), NSPredicate(format: "SELF <= 150")], withValidationWarnings: ["negative", "too old"])
        let born = TestModels.attribute("born", .dateAttributeType)
        born.setValidationPredicates([NSPredicate(format: "SELF >= %@", Date(timeIntervalSinceReferenceDate: 0) as NSDate),
                                      NSPredicate(format: "SELF <= %@", Date(timeIntervalSinceReferenceDate: 1_000_000_000) as NSDate)],
                                     withValidationWarnings: ["too early", "too late"])
        let model = NSManagedObjectModel()
        model.entities = [TestModels.entity("Person", [name, age, born])]
        return model
    }

    enum Value: Sendable, CustomStringConvertible {
        case string(String), int(Int), date(TimeInterval)
        var any: Any {
            switch self {
            case .string(let string): return string
            case .int(let int): return int
            case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
            }
        }
        var description: String { "\(any)" }
    }

    @Test("Each rule reports its own code, key and value", arguments: [
        ("name", Value.string("ab"), NSValidationStringTooShortError),
        ("name", .string("abcdefghij"), NSValidationStringTooLongError),
        ("name", .string("Abc"), NSValidationStringPatternMatchingError),
        ("age", .int(-1), NSValidationNumberTooSmallError),
        ("age", .int(200), NSValidationNumberTooLargeError),
        ("born", .date(-10), NSValidationDateTooSoonError),
        ("born", .date(2_000_000_000), NSValidationDateTooLateError),
    ])
    func codes(key: String, value: Value, code: Int) throws {
        let context = try TestModels.inMemoryContext(Self.model())
        context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(value.any, forKey: key)
            do {
                try context.save()
                Issue.record("save should fail for \(key) = \(value)")
            } catch let error as NSError {
                #expect(error.code == code)
                #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key)
                #expect(error.userInfo[NSValidationValueErrorKey] != nil)
            }
            #expect(person.isInserted)
        }
    }

    @Test("Valid values pass every rule")
    func valid() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("anna", forKey: "name")
            person.setValue(30, forKey: "age")
            person.setValue(Date(timeIntervalSinceReferenceDate: 500), forKey: "born")
            try context.save()
        }
    }
}

@Suite("Fetching with predicates, sorts and aggregates")
struct PredicateFetchTests {
    @Test("A predicate naming an unknown key throws an error naming entity and key")
    func unknownKey() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            request.predicate = NSPredicate(format: "nope == 1")
            #expect {
                try context.fetch(request)
            } throws: { error in
                let message = (error as NSError).localizedDescription
                return message.contains("nope") && message.contains("TodoEntity")
            }
            request.predicate = NSPredicate(format: "location.nowhere == 1")
            #expect(throws: (any Error).self) { try context.fetch(request) }
            request.predicate = nil
            request.sortDescriptors = [NSSortDescriptor(key: "missing", ascending: true)]
            #expect(throws: (any Error).self) { try context.fetch(request) }
        }
    }

    @Test("Aggregates in dictionary results: count, sum, min, max, average, grouped")
    func aggregates() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            for (priority, done) in [(1, true), (2, true), (3, false), (4, false)] {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue(priority, forKey: "priority")
                todo.setValue(done, forKey: "done")
            }
            try context.save()
            func description(_ name: String, _ function: String) -> NSExpressionDescription {
                let description = NSExpressionDescription()
                description.name = name
                description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: "priority")])
                description.expressionResultType = .integer64AttributeType
                return description
            }
            let request = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [description("total", "sum:"), description("n", "count:"), description("low", "min:"),
                                         description("high", "max:"), description("mean", "average:")]
            let row = try #require(try context.fetch(request).first)
            #expect((row["total"] as? NSNumber)?.intValue == 10)
            #expect((row["n"] as? NSNumber)?.intValue == 4)
            #expect((row["low"] as? NSNumber)?.intValue == 1)
            #expect((row["high"] as? NSNumber)?.intValue == 4)
            #expect((row["mean"] as? NSNumber)?.doubleValue == 2.5)
            request.propertiesToFetch = ["done", description("total", "sum:")]
            request.propertiesToGroupBy = ["done"]
            let groups = try context.fetch(request)
            let totals = Dictionary(uniqueKeysWithValues: groups.map { (($0["done"] as? Bool) ?? false, ($0["total"] as? NSNumber)?.intValue ?? -1) })
            #expect(totals == [true: 3, false: 7])
        }
    }
}

/// The Core Data snippet of the object-graph issue's "Done when", written against Apple's API.
@Suite("Apple's API, unchanged")
struct AppleSnippetTests {
    @Test("Model in code, insertNewObject + setValue, save, fetch with sort/limit/offset, cascade delete")
    func snippet() throws {
        // --- Begin code as written for Apple's Core Data (only the import differs). ---
        let model = NSManagedObjectModel()

        let department = NSEntityDescription()
        department.name = "Department"
        department.managedObjectClassName = NSStringFromClass(NSManagedObject.self)

        let employee = NSEntityDescription()
        employee.name = "Employee"
        employee.managedObjectClassName = NSStringFromClass(NSManagedObject.self)

        let deptName = NSAttributeDescription()
        deptName.name = "name"
        deptName.attributeType = .stringAttributeType
        deptName.isOptional = false

        let empName = NSAttributeDescription()
        empName.name = "name"
        empName.attributeType = .stringAttributeType
        empName.isOptional = false

        let salary = NSAttributeDescription()
        salary.name = "salary"
        salary.attributeType = .integer64AttributeType
        salary.defaultValue = 0

        let employees = NSRelationshipDescription()
        employees.name = "employees"
        employees.destinationEntity = employee
        employees.minCount = 0
        employees.maxCount = 0
        employees.deleteRule = .cascadeDeleteRule

        let worksIn = NSRelationshipDescription()
        worksIn.name = "department"
        worksIn.destinationEntity = department
        worksIn.minCount = 0
        worksIn.maxCount = 1
        worksIn.deleteRule = .nullifyDeleteRule

        employees.inverseRelationship = worksIn
        worksIn.inverseRelationship = employees

        department.properties = [deptName, employees]
        employee.properties = [empName, salary, worksIn]
        model.entities = [department, employee]

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator

        try context.performAndWait {
            let engineering = NSEntityDescription.insertNewObject(forEntityName: "Department", into: context)
            engineering.setValue("Engineering", forKey: "name")
            for index in 1...10 {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
                person.setValue("Employee \(index)", forKey: "name")
                person.setValue(index * 1000, forKey: "salary")
                person.setValue(engineering, forKey: "department")
            }
            try context.save()

            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "department.name == %@ AND salary > %d", "Engineering", 2000)
            request.sortDescriptors = [NSSortDescriptor(key: "salary", ascending: false)]
            request.fetchLimit = 3
            request.fetchOffset = 1
            let page = try context.fetch(request)
            #expect(page.map { $0.value(forKey: "salary") as! Int } == [9000, 8000, 7000])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Employee")) == 10)

            context.delete(engineering)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Employee")) == 0)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Department")) == 0)
        }
        // --- End. ---
    }
}

extension PredicateFetchTests {
    @Test("sum: of an integer attribute is an integer, as in SQL")
    func integerSum() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            for priority in [1, 2, 4] {
                NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context).setValue(priority, forKey: "priority")
            }
            try context.save()
            let total = NSExpressionDescription()
            total.name = "total"
            total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "priority")])
            total.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [total]
            let sum = try #require(try context.fetch(request).first?["total"] as? NSNumber)
            #expect(String(cString: sum.objCType) != "d")
            #expect(sum.intValue == 7)
        }
    }
}
