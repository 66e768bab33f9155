import OpenCoreData
import Testing
import TodoModel

/// CRUD through the classes the build plugin generated from Todo.xcdatamodeld.
@Suite("Generated TodoEntity, TagEntity and LocationEntity")
struct GeneratedClassesTests {
    @Test("Create, read, update and delete through the generated classes and accessors", arguments: StoreKind.allCases)
    func crud(_ store: StoreKind) throws {
        let storeURL = try store.newStoreURL()
        defer { if let storeURL { try? FileManager.default.removeItem(at: storeURL.deletingLastPathComponent()) } }
        let container = try TodoStore.makeContainer(storeURL: storeURL)
        let context = container.newBackgroundContext()
        let created = Date(timeIntervalSinceReferenceDate: 700_000_000)
        try context.performAndWait {
            // Create
            let todo = TodoEntity(context: context)
            todo.todoId = "T1"
            todo.title = "Buy milk"
            todo.createdAt = created
            let home = TagEntity(context: context)
            home.title = "home"
            let errands = TagEntity(context: context)
            errands.title = "errands"
            let shop = LocationEntity(context: context)
            #expect(shop.latitude == 0, "a scalar attribute reads its default value")
            shop.placeName = "Shop"
            shop.latitude = 48.85
            shop.longitude = 2.35
            todo.addToTags(home)
            todo.addToTags(errands)
            todo.location = shop
            #expect(todo.tags?.count == 2)
            #expect(home.todos?.contains(todo) == true, "addToTags maintains the inverse")
            #expect(shop.todos?.count == 1, "setting a to-one maintains the to-many inverse")
            try context.save()
        }

        // Read, in another context, through the generated fetchRequest()
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.predicate = NSPredicate(format: "title == %@", "Buy milk")
            let todo = try #require(try reader.fetch(request).first)
            #expect(todo.todoId == "T1")
            #expect(todo.createdAt == created)
            #expect(todo.completedAt == nil)
            let tags = try #require(todo.tags as? Set<TagEntity>, "to-many destinations are instances of the generated class")
            #expect(Set(tags.compactMap(\.title)) == ["home", "errands"])
            let location = try #require(todo.location)
            #expect(location.placeName == "Shop")
            #expect(location.latitude == 48.85)
            #expect(location.longitude == 2.35)
            #expect(location.altitude == 0)

            // Update: remove a tag, change attributes
            let home = try #require(tags.first { $0.title == "home" })
            todo.removeFromTags(home)
            #expect(home.todos?.count == 0, "removeFromTags maintains the inverse")
            todo.title = "Buy oat milk"
            todo.completedAt = created.addingTimeInterval(3600)
            location.altitude = 35
            try reader.save()
        }

        try context.performAndWait {
            context.reset()
            let todos = try context.fetch(TodoEntity.fetchRequest() as NSFetchRequest<TodoEntity>)
            let todo = try #require(todos.first)
            #expect(todos.count == 1)
            #expect(todo.title == "Buy oat milk")
            #expect(todo.completedAt == created.addingTimeInterval(3600))
            #expect(todo.location?.altitude == 35)
            #expect((todo.tags as? Set<TagEntity>)?.compactMap(\.title) == ["errands"])

            // The NSSet variants of the accessors
            let tagRequest: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
            let allTags = try context.fetch(tagRequest)
            todo.addToTags(NSSet(array: allTags))
            #expect(todo.tags?.count == 2)
            todo.removeFromTags(NSSet(array: allTags))
            #expect(todo.tags?.count == 0)
            for tag in allTags { #expect(tag.todos?.count == 0) }
            todo.addToTags(NSSet(array: allTags))
            try context.save()

            // Delete: the nullify rule empties the inverses
            context.delete(todo)
            try context.save()
            #expect(try context.count(for: TodoEntity.fetchRequest() as NSFetchRequest<TodoEntity>) == 0)
            for tag in allTags { #expect(tag.todos?.count == 0) }
            let location = try #require(try context.fetch(LocationEntity.fetchRequest() as NSFetchRequest<LocationEntity>).first)
            #expect(location.todos?.count == 0)
        }
    }

    @Test("The generated classes match the model's entities", arguments: StoreKind.allCases)
    func entities(_ store: StoreKind) throws {
        let storeURL = try store.newStoreURL()
        defer { if let storeURL { try? FileManager.default.removeItem(at: storeURL.deletingLastPathComponent()) } }
        let container = try TodoStore.makeContainer(storeURL: storeURL)
        let model = container.managedObjectModel
        #expect(TodoEntity.entity().name == "TodoEntity")
        #expect(TagEntity.entity().name == "TagEntity")
        #expect(LocationEntity.entity().name == "LocationEntity")
        #expect(model.entities.count == 3)
        let context = container.newBackgroundContext()
        context.performAndWait {
            let location = LocationEntity(context: context)
            location.id = "L1"
            // Xcode adds `Identifiable`; an `id` attribute becomes the identity.
            #expect(location.id == "L1")
            let todo = TodoEntity(context: context)
            #expect(todo.id == ObjectIdentifier(todo))
        }
    }
}
