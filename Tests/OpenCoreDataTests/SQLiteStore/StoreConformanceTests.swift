import Foundation
import Testing
@testable import OpenCoreData

/// The same object-graph behaviours on every store type.
@Suite("Store conformance")
struct StoreConformanceTests {
    private func fetch(_ context: NSManagedObjectContext, _ entity: String, sortedBy key: String? = nil, ascending: Bool = true) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if let key { request.sortDescriptors = [NSSortDescriptor(key: key, ascending: ascending)] }
        return try context.fetch(request)
    }

    @Test("Insert, fetch, update, delete", arguments: ConformanceStoreKind.allCases)
    func crud(kind: ConformanceStoreKind) throws {
        let context = try kind.context(TestModels.todoModel())
        try context.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            todo.setValue("Buy milk", forKey: "title")
            todo.setValue(3, forKey: "priority")
            try context.save()
            #expect(!todo.objectID.isTemporaryID)
            let id = todo.objectID
            context.reset()

            let fetched = try #require(try fetch(context, "TodoEntity").first)
            #expect(fetched.objectID == id)
            #expect(fetched.value(forKey: "title") as? String == "Buy milk")
            #expect(fetched.value(forKey: "priority") as? Int == 3)
            #expect(fetched.value(forKey: "done") as? Bool == false)
            fetched.setValue("Buy oat milk", forKey: "title")
            try context.save()
            context.reset()
            #expect(try fetch(context, "TodoEntity").first?.value(forKey: "title") as? String == "Buy oat milk")

            let again = try context.existingObject(with: id)
            context.delete(again)
            try context.save()
            context.reset()
            #expect(try fetch(context, "TodoEntity").isEmpty)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) == 0)
        }
    }

    @Test("Every attribute type round-trips", arguments: ConformanceStoreKind.allCases)
    func attributeTypes(kind: ConformanceStoreKind) throws {
        let entity = TestModels.entity("All", [
            TestModels.attribute("i16", .integer16AttributeType), TestModels.attribute("i32", .integer32AttributeType),
            TestModels.attribute("i64", .integer64AttributeType), TestModels.attribute("dec", .decimalAttributeType),
            TestModels.attribute("dbl", .doubleAttributeType), TestModels.attribute("flt", .floatAttributeType),
            TestModels.attribute("str", .stringAttributeType), TestModels.attribute("bool", .booleanAttributeType),
            TestModels.attribute("date", .dateAttributeType), TestModels.attribute("data", .binaryDataAttributeType),
            TestModels.attribute("uuid", .UUIDAttributeType), TestModels.attribute("uri", .URIAttributeType),
            TestModels.attribute("trans", .transformableAttributeType), TestModels.attribute("scratch", .stringAttributeType, transient: true),
        ])
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let context = try kind.context(model)
        let uuid = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 737_057_646.84)
        try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "All", into: context)
            object.setValue(Int16(-7), forKey: "i16")
            object.setValue(70_000, forKey: "i32")
            object.setValue(Int64.max, forKey: "i64")
            object.setValue(Decimal(string: "10.11"), forKey: "dec")
            object.setValue(2.5, forKey: "dbl")
            object.setValue(Float(1.5), forKey: "flt")
            object.setValue("héllo", forKey: "str")
            object.setValue(true, forKey: "bool")
            object.setValue(date, forKey: "date")
            object.setValue(Data([1, 2, 3]), forKey: "data")
            object.setValue(uuid, forKey: "uuid")
            object.setValue(URL(string: "https://example.com/a?b=c")!, forKey: "uri")
            object.setValue(["a", "b"] as NSArray, forKey: "trans")
            object.setValue("not saved", forKey: "scratch")
            try context.save()
            context.reset()
            let fetched = try #require(try fetch(context, "All").first)
            #expect(fetched.value(forKey: "i16") as? Int == -7)
            #expect(fetched.value(forKey: "i32") as? Int32 == 70_000)
            #expect(fetched.value(forKey: "i64") as? Int64 == Int64.max)
            #expect(fetched.value(forKey: "dec") as? Decimal == Decimal(string: "10.11"))
            #expect(fetched.value(forKey: "dbl") as? Double == 2.5)
            #expect(fetched.value(forKey: "flt") as? Float == 1.5)
            #expect(fetched.value(forKey: "str") as? String == "héllo")
            #expect(fetched.value(forKey: "bool") as? Bool == true)
            #expect(fetched.value(forKey: "date") as? Date == date)
            #expect(fetched.value(forKey: "data") as? Data == Data([1, 2, 3]))
            #expect(fetched.value(forKey: "uuid") as? UUID == uuid)
            #expect(fetched.value(forKey: "uri") as? URL == URL(string: "https://example.com/a?b=c"))
            #expect((fetched.value(forKey: "trans") as? NSArray)?.count == 2)
            #expect(fetched.value(forKey: "scratch") == nil)
        }
    }

    @Test("To-one, one-to-many and many-to-many relationships persist", arguments: ConformanceStoreKind.allCases)
    func relationships(kind: ConformanceStoreKind) throws {
        let context = try kind.context(TestModels.todoModel())
        try context.performAndWait {
            let home = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
            home.setValue("Home", forKey: "placeName")
            let urgent = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            urgent.setValue("urgent", forKey: "name")
            let later = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: context)
            later.setValue("later", forKey: "name")
            for title in ["A", "B"] {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue(title, forKey: "title")
                todo.setValue(home, forKey: "location")
                todo.mutableSetValue(forKey: "tags").add(urgent)
                if title == "B" { todo.mutableSetValue(forKey: "tags").add(later) }
            }
            try context.save()
            context.reset()

            let todos = try fetch(context, "TodoEntity", sortedBy: "title")
            #expect(todos.map { $0.value(forKey: "title") as? String } == ["A", "B"])
            #expect((todos[0].value(forKey: "location") as? NSManagedObject)?.value(forKey: "placeName") as? String == "Home")
            let bTags = (todos[1].value(forKey: "tags") as? Set<NSManagedObject>) ?? []
            #expect(Set(bTags.compactMap { $0.value(forKey: "name") as? String }) == ["urgent", "later"])
            let location = try #require(try fetch(context, "LocationEntity").first)
            #expect((location.value(forKey: "todos") as? Set<NSManagedObject>)?.count == 2)
            let tags = try fetch(context, "TagEntity", sortedBy: "name")
            #expect((tags[1].value(forKey: "todos") as? Set<NSManagedObject>)?.count == 2)
            #expect((tags[0].value(forKey: "todos") as? Set<NSManagedObject>)?.count == 1)

            // Remove a tag from B, from the tag's side.
            tags[1].mutableSetValue(forKey: "todos").remove(todos[1])
            try context.save()
            context.reset()
            let b = try #require(try fetch(context, "TodoEntity", sortedBy: "title").last)
            #expect(((b.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String } == ["later"])
        }
    }

    @Test("Reflexive relationships: parent/children and a self-inverse many-to-many", arguments: ConformanceStoreKind.allCases)
    func reflexive(kind: ConformanceStoreKind) throws {
        let context = try kind.context(TestModels.personModel())
        try context.performAndWait {
            let mum = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            mum.setValue("Mum", forKey: "name")
            let kid = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            kid.setValue("Kid", forKey: "name")
            let pal = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            pal.setValue("Pal", forKey: "name")
            kid.setValue(mum, forKey: "mother")
            kid.mutableSetValue(forKey: "friends").add(pal)
            try context.save()
            context.reset()

            let people = try fetch(context, "Person", sortedBy: "name")
            let (fetchedKid, fetchedMum, fetchedPal) = (people[0], people[1], people[2])
            #expect((fetchedKid.value(forKey: "mother") as? NSManagedObject) === fetchedMum)
            #expect((fetchedMum.value(forKey: "children") as? Set<NSManagedObject>) == [fetchedKid])
            #expect((fetchedKid.value(forKey: "friends") as? Set<NSManagedObject>) == [fetchedPal])
            #expect((fetchedPal.value(forKey: "friends") as? Set<NSManagedObject>) == [fetchedKid])
        }
    }

    @Test("Ordered relationships keep their order", arguments: ConformanceStoreKind.allCases)
    func ordered(kind: ConformanceStoreKind) throws {
        let context = try kind.context(TestModels.orderedModel())
        try context.performAndWait {
            let playlist = NSEntityDescription.insertNewObject(forEntityName: "Playlist", into: context)
            let songs = playlist.mutableOrderedSetValue(forKey: "songs")
            let labels = playlist.mutableOrderedSetValue(forKey: "labels")
            for title in ["c", "a", "b"] {
                let song = NSEntityDescription.insertNewObject(forEntityName: "Song", into: context)
                song.setValue(title, forKey: "title")
                songs.add(song)
                let label = NSEntityDescription.insertNewObject(forEntityName: "Label", into: context)
                label.setValue(title, forKey: "text")
                labels.add(label)
            }
            try context.save()
            context.reset()
            let fetched = try #require(try fetch(context, "Playlist").first)
            let titles = (fetched.value(forKey: "songs") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
            #expect(titles == ["c", "a", "b"])
            let texts = (fetched.value(forKey: "labels") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "text") as? String }
            #expect(texts == ["c", "a", "b"])

            // Move the last song first.
            let mutable = fetched.mutableOrderedSetValue(forKey: "songs")
            let last = mutable.object(at: 2)
            mutable.removeObject(at: 2)
            mutable.insert(last, at: 0)
            try context.save()
            context.reset()
            let again = try #require(try fetch(context, "Playlist").first)
            let moved = (again.value(forKey: "songs") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
            #expect(moved == ["b", "c", "a"])
        }
    }

    @Test("Inheritance: fetching a parent entity returns subentity rows", arguments: ConformanceStoreKind.allCases)
    func inheritance(kind: ConformanceStoreKind) throws {
        let context = try kind.context(TestModels.vehicleModel())
        try context.performAndWait {
            let garage = NSEntityDescription.insertNewObject(forEntityName: "Garage", into: context)
            let car = NSEntityDescription.insertNewObject(forEntityName: "Car", into: context)
            car.setValue("Family", forKey: "name")
            car.setValue(5, forKey: "doors")
            let sports = NSEntityDescription.insertNewObject(forEntityName: "SportsCar", into: context)
            sports.setValue("Fast", forKey: "name")
            sports.setValue(300.5, forKey: "topSpeed")
            car.setValue(garage, forKey: "garage")
            sports.setValue(garage, forKey: "garage")
            garage.setValue(sports, forKey: "favourite")
            try context.save()
            context.reset()
            #expect(try fetch(context, "Vehicle").count == 2)
            #expect(try fetch(context, "Car").count == 2)
            #expect(try fetch(context, "SportsCar").count == 1)
            let onlyCars = NSFetchRequest<NSManagedObject>(entityName: "Car")
            onlyCars.includesSubentities = false
            #expect(try context.fetch(onlyCars).count == 1)
            #expect(try context.count(for: onlyCars) == 1)
            let fetchedGarage = try #require(try fetch(context, "Garage").first)
            let favourite = try #require(fetchedGarage.value(forKey: "favourite") as? NSManagedObject)
            #expect(favourite.entity.name == "SportsCar")
            #expect(favourite.value(forKey: "topSpeed") as? Double == 300.5)
            #expect((fetchedGarage.value(forKey: "vehicles") as? Set<NSManagedObject>)?.count == 2)
        }
    }

    @Test("Delete rules: cascade, nullify, deny", arguments: ConformanceStoreKind.allCases)
    func deleteRules(kind: ConformanceStoreKind) throws {
        for rule in [NSDeleteRule.cascadeDeleteRule, .nullifyDeleteRule, .denyDeleteRule] {
            let context = try kind.context(TestModels.deleteRuleModel(rule: rule))
            try context.performAndWait {
                let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                let part = NSEntityDescription.insertNewObject(forEntityName: "Part", into: context)
                item.setValue(owner, forKey: "owner")
                part.setValue(item, forKey: "item")
                try context.save()
                context.reset()
                let fetchedOwner = try #require(try fetch(context, "Owner").first)
                context.delete(fetchedOwner)
                switch rule {
                case .denyDeleteRule:
                    #expect(throws: (any Error).self) { try context.save() }
                    context.rollback()
                    #expect(try fetch(context, "Owner").count == 1)
                case .cascadeDeleteRule:
                    try context.save()
                    context.reset()
                    #expect(try fetch(context, "Item").isEmpty)
                    #expect(try fetch(context, "Part").isEmpty)
                default:
                    try context.save()
                    context.reset()
                    let fetchedItem = try #require(try fetch(context, "Item").first)
                    #expect(fetchedItem.value(forKey: "owner") == nil)
                }
            }
        }
    }

    @Test("Counts, limit and offset, object IDs, batched fetches", arguments: ConformanceStoreKind.allCases)
    func countsAndPaging(kind: ConformanceStoreKind) throws {
        let context = try kind.context(TestModels.todoModel())
        try context.performAndWait {
            for index in 0..<6 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("T\(index)", forKey: "title")
            }
            try context.save()
            context.reset()
            // Without sort descriptors the built-in stores return rows in primary-key (insertion)
            // order, and the example JSON store in the order its records were created.
            let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            request.fetchLimit = 3
            request.fetchOffset = 1
            #expect(try context.fetch(request).map { $0.value(forKey: "title") as? String } == ["T1", "T2", "T3"])
            #expect(try context.count(for: request) == 3)
            request.fetchOffset = 5
            #expect(try context.count(for: request) == 1)
            request.fetchLimit = 0
            request.fetchOffset = 0
            #expect(try context.count(for: request) == 6)

            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "TodoEntity")
            ids.resultType = .managedObjectIDResultType
            #expect(try context.fetch(ids).count == 6)

            let batched = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            batched.fetchBatchSize = 2
            #expect(try context.fetch(batched).map { $0.value(forKey: "title") as? String } == ["T0", "T1", "T2", "T3", "T4", "T5"])
        }
    }

    @Test("Sort descriptors, limit and offset, sorting through a to-one, pending changes", arguments: ConformanceStoreKind.allCases)
    func sorting(kind: ConformanceStoreKind) throws {
        let context = try kind.context(TestModels.todoModel())
        try context.performAndWait {
            let places = ["Zurich", "Athens", "Oslo"].map { name -> NSManagedObject in
                let place = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: context)
                place.setValue(name, forKey: "placeName")
                return place
            }
            for index in 0..<6 {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
                todo.setValue("T\(index)", forKey: "title")
                todo.setValue(index % 3, forKey: "priority")
                todo.setValue(places[index % 3], forKey: "location")
            }
            try context.save()
            context.reset()
            let request = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            request.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: false), NSSortDescriptor(key: "title", ascending: true)]
            request.fetchLimit = 3
            request.fetchOffset = 1
            #expect(try context.fetch(request).map { $0.value(forKey: "title") as? String } == ["T5", "T1", "T4"])
            #expect(try context.count(for: request) == 3)

            let byPlace = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            byPlace.sortDescriptors = [NSSortDescriptor(key: "location.placeName", ascending: true), NSSortDescriptor(key: "title", ascending: false)]
            #expect(try context.fetch(byPlace).map { $0.value(forKey: "title") as? String } == ["T4", "T1", "T5", "T2", "T3", "T0"])

            let insensitive = NSFetchRequest<NSManagedObject>(entityName: "LocationEntity")
            insensitive.sortDescriptors = [NSSortDescriptor(key: "placeName", ascending: false, selector: .caseInsensitiveCompare)]
            #expect(try context.fetch(insensitive).map { $0.value(forKey: "placeName") as? String } == ["Zurich", "Oslo", "Athens"])

            // Unsaved changes take part in sorted, paged fetches.
            let extra = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context)
            extra.setValue("T9", forKey: "title")
            extra.setValue(5, forKey: "priority")
            request.fetchOffset = 0
            request.fetchLimit = 2
            #expect(try context.fetch(request).map { $0.value(forKey: "title") as? String } == ["T9", "T2"])
        }
    }

    @Test("Uniqueness constraints under each merge policy", arguments: ConformanceStoreKind.allCases)
    func constraints(kind: ConformanceStoreKind) throws {
        let policies: [(NSMergePolicy, String)] = [(.error, "error"), (.mergeByPropertyObjectTrump, "objectTrump"),
                                                   (.mergeByPropertyStoreTrump, "storeTrump"), (.overwrite, "overwrite"), (.rollback, "rollback")]
        for (policy, name) in policies {
            let context = try kind.context(TestModels.uniqueUserModel())
            try context.performAndWait {
                let stored = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                stored.setValue("a@example.com", forKey: "email")
                stored.setValue("Stored", forKey: "name")
                stored.setValue(1, forKey: "age")
                let noEmail1 = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                noEmail1.setValue("NULL 1", forKey: "name")
                let noEmail2 = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                noEmail2.setValue("NULL 2", forKey: "name")
                try context.save()
                context.reset()
                context.mergePolicy = policy

                let duplicate = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                duplicate.setValue("a@example.com", forKey: "email")
                duplicate.setValue("New", forKey: "name")
                if name == "error" {
                    do {
                        try context.save()
                        Issue.record("A duplicate key saved under the error policy (\(kind)).")
                    } catch let error as NSError {
                        #expect(error.code == NSManagedObjectConstraintMergeError)
                        let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict]
                        #expect(conflicts?.first?.constraint == ["email"])
                        #expect(conflicts?.first?.databaseObject != nil)
                    }
                    context.rollback()
                    #expect(try fetch(context, "User").count == 3)
                    // Duplicates inside one save are found too.
                    for _ in 0..<2 {
                        let twin = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                        twin.setValue("twin@example.com", forKey: "email")
                    }
                    #expect(throws: (any Error).self) { try context.save() }
                    context.rollback()
                    return
                }
                try context.save()
                context.reset()
                let users = try fetch(context, "User").filter { $0.value(forKey: "email") as? String == "a@example.com" }
                #expect(users.count == 1, "policy \(name) on \(kind)")
                let expected = (name == "objectTrump" || name == "overwrite") ? "New" : "Stored"
                #expect(users.first?.value(forKey: "name") as? String == expected, "policy \(name) on \(kind)")
                #expect(try fetch(context, "User").count == 3, "policy \(name) on \(kind)")
            }
        }
    }

    @Test("Optimistic locking between two contexts under each merge policy", arguments: ConformanceStoreKind.allCases)
    func optimisticLocking(kind: ConformanceStoreKind) throws {
        let policies: [(NSMergePolicy, String)] = [(.error, "error"), (.mergeByPropertyObjectTrump, "objectTrump"),
                                                   (.mergeByPropertyStoreTrump, "storeTrump"), (.overwrite, "overwrite"), (.rollback, "rollback")]
        for (policy, name) in policies {
            let (first, second) = try kind.contextPair(TestModels.todoModel())
            let held = ObjectHolder()
            let id = try first.performAndWait {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
                todo.setValue("Original", forKey: "title")
                todo.setValue(1, forKey: "priority")
                try first.save()
                held.object = todo
                return todo.objectID
            }
            try second.performAndWait {
                let other = try second.existingObject(with: id)
                other.setValue("Theirs", forKey: "title")
                other.setValue(2, forKey: "priority")
                try second.save()
            }
            try first.performAndWait {
                first.mergePolicy = policy
                let mine = try #require(held.object)
                mine.setValue("Mine", forKey: "title")
                if name == "error" {
                    do {
                        try first.save()
                        Issue.record("A stale write saved under the error policy (\(kind)).")
                    } catch let error as NSError {
                        #expect(error.code == NSManagedObjectMergeError)
                        let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
                        #expect(conflicts?.count == 1)
                        #expect(conflicts?.first?.persistedSnapshot?["title"] as? String == "Theirs")
                        #expect(conflicts?.first?.newVersionNumber == 2)
                    }
                    return
                }
                try first.save()
            }
            guard name != "error" else { continue }
            // A new fetch in a reset context reads the rows from the store.
            let (title, priority) = try second.performAndWait {
                second.reset()
                let row = try #require(try fetch(second, "TodoEntity").first)
                return (row.value(forKey: "title") as? String, row.value(forKey: "priority") as? Int)
            }
            switch name {
            case "objectTrump":
                #expect(title == "Mine", "\(kind)")
                #expect(priority == 2, "\(kind)")
            case "storeTrump", "rollback":
                #expect(title == "Theirs", "\(name) on \(kind)")
                #expect(priority == 2, "\(name) on \(kind)")
            case "overwrite":
                #expect(title == "Mine", "\(kind)")
                #expect(priority == 1, "\(kind)")
            default:
                break
            }
        }
    }

    /// Apple's `NSErrorMergePolicy`: when two contexts fetched one object and the first saved a
    /// change, the second's save of the same object fails with `NSManagedObjectMergeError`, the
    /// conflict in `NSPersistentStoreSaveConflictsErrorKey`, and writes nothing; with
    /// `NSMergeByPropertyObjectTrumpMergePolicy` it saves, its changed values winning.
    @Test("Both contexts fetch an object, both change it: the second save fails under the error policy and wins under objectTrump",
          arguments: ConformanceStoreKind.allCases)
    func staleSaveAfterBothFetched(kind: ConformanceStoreKind) throws {
        for objectTrump in [false, true] {
            let (first, second) = try kind.contextPair(TestModels.todoModel())
            try first.performAndWait {
                let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
                todo.setValue("Original", forKey: "title")
                todo.setValue(1, forKey: "priority")
                try first.save()
                first.reset()
            }
            // Both contexts fetch the object and read it, before either changes it.
            let heldFirst = ObjectHolder(), heldSecond = ObjectHolder()
            for (context, held) in [(first, heldFirst), (second, heldSecond)] {
                try context.performAndWait {
                    let todo = try #require(try fetch(context, "TodoEntity").first)
                    #expect(todo.value(forKey: "title") as? String == "Original")
                    held.object = todo
                }
            }
            try first.performAndWait {
                let todo = try #require(heldFirst.object)
                todo.setValue("First", forKey: "title")
                todo.setValue(5, forKey: "priority")
                try first.save()
            }
            try StaleSave.save(second, heldSecond, objectTrump: objectTrump, persistedTitle: "First", "\(kind)")
            // What the store holds now, read afresh.
            let (title, priority) = try first.performAndWait {
                first.reset()
                let row = try #require(try fetch(first, "TodoEntity").first)
                return (row.value(forKey: "title") as? String, row.value(forKey: "priority") as? Int)
            }
            #expect(title == (objectTrump ? "Second" : "First"), "objectTrump: \(objectTrump) on \(kind)")
            #expect(priority == 5, "the first save's other change stays (objectTrump: \(objectTrump) on \(kind))")
        }
    }

    @Test("A refresh and a new fetch see another context's save", arguments: ConformanceStoreKind.allCases)
    func refreshSeesOtherSaves(kind: ConformanceStoreKind) throws {
        let (first, second) = try kind.contextPair(TestModels.todoModel())
        let id = try first.performAndWait {
            let todo = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
            todo.setValue("v1", forKey: "title")
            try first.save()
            return todo.objectID
        }
        try second.performAndWait {
            let other = try second.existingObject(with: id)
            #expect(other.value(forKey: "title") as? String == "v1")
        }
        try first.performAndWait {
            let todo = try first.existingObject(with: id)
            todo.setValue("v2", forKey: "title")
            let extra = NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: first)
            extra.setValue("extra", forKey: "title")
            try first.save()
        }
        try second.performAndWait {
            let other = try second.existingObject(with: id)
            second.refresh(other, mergeChanges: false)
            #expect(other.value(forKey: "title") as? String == "v2")
            #expect(try fetch(second, "TodoEntity").count == 2)
        }
    }
}

/// Keeps a managed object alive across `performAndWait` blocks of its (private-queue) context.
final class ObjectHolder: @unchecked Sendable {
    // @unchecked: only touched inside the owning context's performAndWait.
    var object: NSManagedObject?
}

extension StoreConformanceTests {
    @Test("Updates that keep their unique values save; an update taking a value another object of the same save keeps is still a conflict", arguments: StoreKind.allCases)
    func uniquenessOfUnchangedUpdates(_ kind: StoreKind) throws {
        let context = try kind.context(TestModels.uniqueUserModel())
        try context.performAndWait {
            let users = (0..<3).map { n in
                let user = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                user.setValue("u\(n)@example.com", forKey: "email")
                user.setValue(n, forKey: "age")
                return user
            }
            try context.save()
            for user in users { user.setValue(((user.value(forKey: "age") as? Int) ?? 0) + 10, forKey: "age") }
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "User")) == 3)

            users[0].setValue(99, forKey: "age")  // keeps u0
            users[1].setValue("u0@example.com", forKey: "email")  // takes u0's value
            #expect {
                try context.save()
            } throws: { error in
                (error as NSError).code == NSManagedObjectConstraintMergeError
            }
        }
    }
}
