import Foundation
import Testing
@testable import OpenCoreData

/// A model that covers every key the predicate corpus uses, and data generated to stress the
/// places where SQL and memory could disagree: accents and case variants (precomposed and
/// decomposed), NULLs everywhere, to-one, to-many, ordered and many-to-many relationships.
enum LoweringTestModel {
    static func model() -> NSManagedObjectModel {
        typealias M = TestModels
        let person = M.entity("Person", [
            M.attribute("name", .stringAttributeType), M.attribute("firstName", .stringAttributeType),
            M.attribute("lastName", .stringAttributeType), M.attribute("nickname", .stringAttributeType),
            M.attribute("email", .stringAttributeType), M.attribute("city", .stringAttributeType),
            M.attribute("phone", .stringAttributeType), M.attribute("missing", .stringAttributeType),
            M.attribute("age", .integer32AttributeType), M.attribute("salary", .doubleAttributeType),
            M.attribute("isActive", .booleanAttributeType), M.attribute("birthday", .dateAttributeType),
            M.attribute("id", .UUIDAttributeType), M.attribute("homepage", .URIAttributeType),
            M.attribute("avatar", .binaryDataAttributeType), M.attribute("balance", .decimalAttributeType),
            M.attribute("level", .integer16AttributeType), M.attribute("IN", .integer64AttributeType),
            M.attribute("a", .integer64AttributeType), M.attribute("b", .integer64AttributeType),
            M.attribute("c", .integer64AttributeType), M.attribute("grade", .integer16AttributeType),
            M.attribute("rating", .floatAttributeType), M.attribute("scores", .transformableAttributeType),
            M.attribute("mood", .stringAttributeType, transient: true),
        ])
        let student = M.entity("Student", [M.attribute("school", .stringAttributeType)])
        person.subentities = [student]
        let department = M.entity("Department", [M.attribute("name", .stringAttributeType), M.attribute("budget", .integer64AttributeType)])
        let location = M.entity("Location", [M.attribute("placeName", .stringAttributeType), M.attribute("latitude", .doubleAttributeType)])
        let tag = M.entity("Tag", [M.attribute("name", .stringAttributeType), M.attribute("tagId", .stringAttributeType)])
        let toy = M.entity("Toy", [M.attribute("name", .stringAttributeType), M.attribute("price", .doubleAttributeType)])
        let todo = M.entity("Todo", [
            M.attribute("title", .stringAttributeType), M.attribute("todoId", .UUIDAttributeType),
            M.attribute("done", .booleanAttributeType), M.attribute("priority", .integer16AttributeType),
            M.attribute("updatedAt", .dateAttributeType),
        ])

        func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) { M.inverse(a, b) }
        let personDepartment = M.relationship("department", to: department, toMany: false)
        let employees = M.relationship("employees", to: person, toMany: true)
        pair(personDepartment, employees)
        let manager = M.relationship("manager", to: person, toMany: false)
        let personLocation = M.relationship("location", to: location, toMany: false)
        let residents = M.relationship("residents", to: person, toMany: true)
        pair(personLocation, residents)
        let tags = M.relationship("tags", to: tag, toMany: true)
        let people = M.relationship("people", to: person, toMany: true)
        pair(tags, people)
        let groups = M.relationship("groups", to: tag, toMany: true, ordered: true)
        let members = M.relationship("members", to: person, toMany: true)
        pair(groups, members)
        let children = M.relationship("children", to: person, toMany: true)
        let parent = M.relationship("parent", to: person, toMany: false)
        pair(children, parent)
        let toys = M.relationship("toys", to: toy, toMany: true, ordered: true)
        let owner = M.relationship("owner", to: person, toMany: false)
        pair(toys, owner)
        let friends = M.relationship("friends", to: person, toMany: true)
        pair(friends, friends)
        let todoTags = M.relationship("tags", to: tag, toMany: true)
        let tagTodos = M.relationship("todos", to: todo, toMany: true)
        pair(todoTags, tagTodos)
        person.properties += [personDepartment, personLocation, tags, groups, children, parent, toys, friends]
        department.properties += [employees, manager]
        location.properties += [residents]
        tag.properties += [people, members, tagTodos]
        toy.properties += [owner]
        todo.properties += [todoTags]

        let model = NSManagedObjectModel()
        model.entities = [person, student, department, location, tag, toy, todo]
        return model
    }

    // MARK: - Data

    static let names: [String?] = ["Adam", "adam", "ADAM", "Ädam", "Eve", "Zoë", "Zoe\u{308}", "zoe", "Émile", "émile", "Emile",
                                   "Ole", "", "Mia", "Jürgen", "\u{212A}elvin", "Kelvin", "Ann", "Bob", "bob", nil]
    static let cities: [String?] = ["Zürich", "Zurich", "zurich", "ZÜRICH", "Zu\u{308}rich", "Paris", "Oslo", "São Paulo", nil]
    static let tagNames: [String?] = ["swift", "linux", "go", "coredata", "admins", "staff", "Home", "Errand", "Work", "Swift", nil]

    /// Fills a context with deterministic data and saves it.
    static func populate(_ context: NSManagedObjectContext, seed: UInt64 = 7) throws {
        var random = SeededGenerator(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        func insert(_ entity: String) -> NSManagedObject { NSEntityDescription.insertNewObject(forEntityName: entity, into: context) }

        try context.performAndWait {
            let tags = tagNames.enumerated().map { offset, name -> NSManagedObject in
                let tag = insert("Tag")
                tag.setValue(name, forKey: "name")
                tag.setValue(name.map { $0 + "-id" } ?? (offset % 2 == 0 ? nil : "home"), forKey: "tagId")
                return tag
            }
            let locations = ["Paris", "Oslo", "Zürich", nil].map { name -> NSManagedObject in
                let location = insert("Location")
                location.setValue(name, forKey: "placeName")
                location.setValue(name == nil ? nil : Double(random.next() % 9000) / 100, forKey: "latitude")
                return location
            }
            let departments = ["Engineering", "Sales", "engineering", nil, "Ops"].map { name -> NSManagedObject in
                let department = insert("Department")
                department.setValue(name, forKey: "name")
                department.setValue(name == nil ? nil : Int64(random.next() % 5) * 50_000, forKey: "budget")
                return department
            }
            var persons: [NSManagedObject] = []
            for index in 0..<70 {
                let person = insert(index % 9 == 4 ? "Student" : "Person")
                if index % 9 == 4 { person.setValue(pick(["MIT", "EPFL", nil]), forKey: "school") }
                let name = index == 0 ? "Adam" : pick(names)
                person.setValue(name, forKey: "name")
                person.setValue(chance(80) ? pick(names) : nil, forKey: "firstName")
                person.setValue(chance(80) ? pick(["Smith", "smith", "Smíth", "Chen", "Müller", "Muller", nil]) : nil, forKey: "lastName")
                person.setValue(chance(15) ? pick(names) : nil, forKey: "nickname")
                person.setValue(chance(70) ? pick(["user\(index)@example.com", "ADAM@EXAMPLE.COM", "x@y.org", ""]) : nil, forKey: "email")
                person.setValue(pick(cities), forKey: "city")
                person.setValue(chance(60) ? "555-\(1000 + random.next() % 9000)" : pick(["5551234", nil]), forKey: "phone")
                person.setValue(chance(10) ? "m" : nil, forKey: "missing")
                person.setValue(chance(90) ? Int(random.next() % 90) : nil, forKey: "age")
                person.setValue(chance(85) ? Double(random.next() % 40_000) / 4 : nil, forKey: "salary")
                person.setValue(chance(90) ? chance(50) : nil, forKey: "isActive")
                person.setValue(chance(85) ? Date(timeIntervalSinceReferenceDate: Double(Int64(random.next() % 800_000_000) - 200_000_000) + pick([0, 0.25, 0.5])) : nil,
                                forKey: "birthday")
                person.setValue(index == 0 ? PredicateFixtures.adamID : (chance(80) ? UUID(uuid: uuidBytes(&random)) : nil), forKey: "id")
                person.setValue(index == 0 ? URL(string: "https://example.com/adam")! : (chance(60) ? URL(string: "https://example.com/p\(index % 7)") : nil),
                                forKey: "homepage")
                person.setValue(index == 0 ? Data([1, 2, 3]) : (chance(70) ? Data((0..<Int(random.next() % 4)).map { _ in UInt8(random.next() % 4) }) : nil),
                                forKey: "avatar")
                person.setValue(index == 0 ? Decimal(string: "10.25")! : (chance(75) ? (chance(25) ? pick([Decimal(string: "0.1")!, Decimal(string: "0.3")!, Decimal(string: "2.675")!])
                                                                                     : Decimal(Int(random.next() % 4000)) / 4) : nil), forKey: "balance")
                person.setValue(chance(80) ? Int16(random.next() % 6) : nil, forKey: "level")
                person.setValue(chance(70) ? Int64(random.next() % 5) : nil, forKey: "IN")
                for key in ["a", "b", "c"] { person.setValue(chance(80) ? Int64(random.next() % 4) : nil, forKey: key) }
                person.setValue(chance(80) ? Int16(random.next() % 12) : nil, forKey: "grade")
                // Some ratings are doubles no Float holds: the column keeps them, memory reads a Float.
                person.setValue(chance(80) ? (chance(30) ? 0.1 : Float(random.next() % 20) / 2) as Any : nil, forKey: "rating")
                if chance(60) { person.setValue((0..<Int(random.next() % 4)).map { _ in Int(random.next() % 100) }, forKey: "scores") }
                if chance(85) { person.setValue(pick(departments), forKey: "department") }
                if chance(70) { person.setValue(pick(locations), forKey: "location") }
                let tagCount = Int(random.next() % 5)
                person.setValue(NSSet(array: (0..<tagCount).map { _ in pick(tags) }), forKey: "tags")
                let groupCount = Int(random.next() % 4)
                var groups: [NSManagedObject] = []
                for _ in 0..<groupCount { let group = pick(tags); if !groups.contains(group) { groups.append(group) } }
                person.setValue(NSOrderedSet(array: groups), forKey: "groups")
                var toys: [NSManagedObject] = []
                for _ in 0..<Int(random.next() % 4) {
                    let toy = insert("Toy")
                    toy.setValue(pick(["ball", "Ball", "kite", "yo-yo", nil]), forKey: "name")
                    toy.setValue(chance(80) ? Double(random.next() % 100) / 2 : nil, forKey: "price")
                    toys.append(toy)
                }
                person.setValue(NSOrderedSet(array: toys), forKey: "toys")
                if index >= 6, chance(70) { person.setValue(persons[Int(random.next() % UInt64(index - 1))], forKey: "parent") }
                if index < 4 { adamLike(person, index: index, tags: tags, department: departments[0], location: locations[0]) }
                if index >= 4, index < 8 { childLike(person, index: index, persons: persons) }
                persons.append(person)
            }
            for person in persons where chance(40) {
                let friends = (0..<Int(random.next() % 3)).map { _ in pick(persons) }.filter { $0 !== person }
                person.setValue(NSSet(array: friends), forKey: "friends")
            }
            for department in departments where chance(80) {
                department.setValue(pick(persons), forKey: "manager")
            }
            departments[0].setValue(persons[4], forKey: "manager")
            for index in 0..<25 {
                let todo = insert("Todo")
                todo.setValue(index == 0 ? "Buy Milk" : pick(["buy milk", "Buy MÍLK", "Walk the dog", "Call Zoë", "milk", "", nil]), forKey: "title")
                todo.setValue(index == 0 ? PredicateFixtures.todoID : UUID(uuid: uuidBytes(&random)), forKey: "todoId")
                todo.setValue(chance(50), forKey: "done")
                todo.setValue(chance(90) ? Int16(random.next() % 4) : nil, forKey: "priority")
                todo.setValue(chance(90) ? Date(timeIntervalSinceReferenceDate: Double(random.next() % 1_000_000)) : nil, forKey: "updatedAt")
                todo.setValue(NSSet(array: (0..<Int(random.next() % 3)).map { _ in pick(tags) }), forKey: "tags")
            }
            try context.save()
        }
    }

    /// Persons 0…3 look like `PredicateFixtures.adam()`, so the corpus strings match some rows;
    /// each differs from Adam in one more place.
    private static func adamLike(_ person: NSManagedObject, index: Int, tags: [NSManagedObject],
                                 department: NSManagedObject, location: NSManagedObject) {
        let values: [String: Any?] = [
            "name": "Adam", "firstName": "Adam", "lastName": "Smith", "age": 34, "salary": 5200.5, "isActive": true,
            "birthday": PredicateFixtures.birthday, "email": "adam@example.com", "city": "Zürich", "phone": "555-1234",
            "level": Int16(3), "IN": Int64(3), "nickname": nil, "balance": Decimal(string: "10.25")!,
            "department": department, "location": location,
        ]
        for (key, value) in values { person.setValue(value, forKey: key) }
        person.setValue(NSSet(array: [tags[0], tags[1], tags[3]]), forKey: "tags")
        person.setValue(NSOrderedSet(array: [tags[4], tags[5]]), forKey: "groups")
        department.setValue("Engineering", forKey: "name")
        department.setValue(Int64(100_000), forKey: "budget")
        location.setValue("Paris", forKey: "placeName")
        location.setValue(48.85, forKey: "latitude")
        switch index {
        case 1: person.setValue(35, forKey: "age")
        case 2: person.setValue("Zurich", forKey: "city"); person.setValue(nil, forKey: "department")
        case 3: person.setValue(nil, forKey: "name"); person.setValue(NSSet(), forKey: "tags")
        default: break
        }
    }

    /// Persons 4…7: Eve (the Engineering manager) and Adam's children Ann (5) and Bob (12).
    private static func childLike(_ person: NSManagedObject, index: Int, persons: [NSManagedObject]) {
        let (name, age): (String, Int) = [(name: "Eve", age: 51), ("Ann", 5), ("Bob", 12), ("Ann", 9)][index - 4]
        person.setValue(name, forKey: "name")
        person.setValue(name, forKey: "firstName")
        person.setValue(age, forKey: "age")
        if index > 4 { person.setValue(persons[index == 7 ? 1 : 0], forKey: "parent") }
    }

    private static func uuidBytes(_ random: inout SeededGenerator) -> uuid_t {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: random.next()) }
        }
        return bytes
    }
}
