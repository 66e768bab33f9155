import Foundation
import Testing
@testable import OpenCoreData

@Suite("Nested contexts: reading through the parent, saving into it")
struct NestedContextTests {
    @Test("A child's coordinator is its root's; three levels push up one level per save, and only the root writes", arguments: StoreKind.allCases)
    func threeLevels(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.todoModel())
        let middle = Nesting.child(of: root)
        let leaf = Nesting.child(of: middle, .mainQueueConcurrencyType)
        #expect(leaf.parent === middle && middle.parent === root && root.parent == nil)
        #expect(leaf.persistentStoreCoordinator === root.persistentStoreCoordinator)
        #expect(middle.persistentStoreCoordinator === root.persistentStoreCoordinator)

        try leaf.performAndWait {
            Nesting.todo("leaf", in: leaf)
            try leaf.save()
            #expect(!leaf.hasChanges)
        }
        try middle.performAndWait {
            #expect(middle.insertedObjects.count == 1)
            #expect(try Nesting.titles(middle) == ["leaf"])
            try middle.save()
        }
        try root.performAndWait {
            #expect(root.insertedObjects.count == 1)
            #expect(try Nesting.storedTitles(root) == [])
            try root.save()
        }
        #expect(try Nesting.storedTitles(root) == ["leaf"])
        try leaf.performAndWait { () throws in #expect(try Nesting.titles(leaf) == ["leaf"]) }
    }

    @Test("A child's fetches (objects, IDs, counts, dictionaries, batched) include the parent's unsaved inserts, updates and deletes", arguments: StoreKind.allCases)
    func fetchesSeeParentState(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        try root.performAndWait {
            Nesting.todo("D", in: root)
            try root.existingObject(with: ids["B"]!).setValue("B2", forKey: "title")
            root.delete(try root.existingObject(with: ids["C"]!))
        }
        let child = Nesting.child(of: root)
        try child.performAndWait {
            #expect(try Nesting.titles(child) == ["A", "B2", "D"])
            #expect(try Nesting.titles(child, NSPredicate(format: "title BEGINSWITH 'B'")) == ["B2"])

            let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "TodoEntity")
            idRequest.resultType = .managedObjectIDResultType
            let fetchedIDs = try child.fetch(idRequest)
            #expect(fetchedIDs.count == 3)
            #expect(!fetchedIDs.contains(ids["C"]!))
            #expect(fetchedIDs.filter(\.isTemporaryID).count == 1)

            #expect(try child.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) == 3)

            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "TodoEntity")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["title"]
            #expect(Set(try child.fetch(dictionaries).compactMap { $0["title"] as? String }) == ["A", "B2", "D"])

            let batched = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            batched.fetchBatchSize = 2
            batched.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            #expect(try child.fetch(batched).map { $0.value(forKey: "title") as? String } == ["A", "B2", "D"])

            // The child's own changes come on top; includesPendingChanges = false leaves out only them.
            Nesting.todo("E", in: child)
            #expect(try Nesting.titles(child) == ["A", "B2", "D", "E"])
            #expect(try Nesting.titles(child, pending: false) == ["A", "B2", "D"])
            #expect(try child.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) == 4)

            let limited = NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")
            limited.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
            limited.fetchLimit = 2
            #expect(try child.fetch(limited).map { $0.value(forKey: "title") as? String } == ["E", "D"])
        }
    }

    @Test("Faults, existingObject(with:) and relationship faults resolve from the parent, its unsaved inserts included", arguments: StoreKind.allCases)
    func faultsResolveFromParent(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        let (newID, tagID) = root.performAndWait {
            let todo = Nesting.todo("new", in: root)
            let tag = NSEntityDescription.insertNewObject(forEntityName: "TagEntity", into: root)
            tag.setValue("urgent", forKey: "name")
            todo.mutableSetValue(forKey: "tags").add(tag)
            try! root.existingObject(with: ids["A"]!).setValue("A-edited", forKey: "title")
            return (todo.objectID, tag.objectID)
        }
        #expect(newID.isTemporaryID)
        let child = Nesting.child(of: root)
        try child.performAndWait {
            let todo = try child.existingObject(with: newID)
            #expect(todo.objectID == newID)
            #expect(todo.value(forKey: "title") as? String == "new")
            #expect(!todo.isInserted)
            let tags = todo.value(forKey: "tags") as? Set<NSManagedObject> ?? []
            #expect(tags.map(\.objectID) == [tagID])
            #expect(tags.first?.value(forKey: "name") as? String == "urgent")
            // The inverse side, read from the tag's own row in the parent.
            let tag = child.object(with: tagID)
            #expect((tag.value(forKey: "todos") as? Set<NSManagedObject>)?.map(\.objectID) == [newID])
            // A fault made from an ID fires against the parent's current values.
            #expect(child.object(with: ids["A"]!).value(forKey: "title") as? String == "A-edited")
        }
    }

    @Test("The parent never sees a child's unsaved changes", arguments: StoreKind.allCases)
    func parentDoesNotSeeChildChanges(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        let child = Nesting.child(of: root)
        try child.performAndWait {
            try child.existingObject(with: ids["A"]!).setValue("changed", forKey: "title")
            child.delete(try child.existingObject(with: ids["B"]!))
            Nesting.todo("inserted", in: child)
        }
        try root.performAndWait { () throws in
            #expect(try Nesting.titles(root) == ["A", "B", "C"])
            #expect(!root.hasChanges)
        }
    }

    @Test("Saving a child pushes its changes into the parent in one step: ObjectsDidChange there, nothing stored until the parent saves", arguments: StoreKind.allCases)
    func saveIntoParent(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        let log = NotificationLog([.NSManagedObjectContextObjectsDidChange, .NSManagedObjectContextDidSave], object: root)
        let child = Nesting.child(of: root)
        let childLog = NotificationLog([.NSManagedObjectContextDidSave], object: child)
        try child.performAndWait {
            try child.existingObject(with: ids["A"]!).setValue("A2", forKey: "title")
            child.delete(try child.existingObject(with: ids["B"]!))
            Nesting.todo("D", in: child)
            try child.save()
            #expect(!child.hasChanges)
        }
        #expect(childLog.notifications.count == 1)
        try root.performAndWait { () throws in
            #expect(root.hasChanges)
            #expect(root.updatedObjects.map(\.objectID) == [ids["A"]!])
            #expect(root.deletedObjects.map(\.objectID) == [ids["B"]!])
            #expect(root.insertedObjects.map { $0.value(forKey: "title") as? String } == ["D"])
            #expect(try Nesting.titles(root) == ["A2", "C", "D"])
        }
        let changes = log.notifications.filter { $0.name == .NSManagedObjectContextObjectsDidChange }
        #expect(changes.count == 1)
        let info = changes.first?.userInfo ?? [:]
        #expect((info[NSUpdatedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        #expect((info[NSDeletedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        #expect((info[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        #expect(!log.notifications.contains { $0.name == .NSManagedObjectContextDidSave })
        #expect(try Nesting.storedTitles(root) == ["A", "B", "C"])

        try root.performAndWait { try root.save() }
        #expect(try Nesting.storedTitles(root) == ["A2", "C", "D"])
    }

    @Test("A child's values win over the parent's later change to the same property; properties the child left keep the parent's", arguments: StoreKind.allCases)
    func childValuesArePushed(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        let child = Nesting.child(of: root)
        let id = ids["B"]!
        try child.performAndWait { _ = try child.existingObject(with: id).value(forKey: "title") }
        try root.performAndWait {
            let b = try root.existingObject(with: id)
            b.setValue("parent", forKey: "title")
            b.setValue(5, forKey: "priority")
        }
        try child.performAndWait {
            try child.existingObject(with: id).setValue("child", forKey: "title")
            try child.save()
        }
        try root.performAndWait {
            let b = try root.existingObject(with: id)
            #expect(b.value(forKey: "title") as? String == "child")
            #expect(b.value(forKey: "priority") as? Int == 5)
            try root.save()
        }
        #expect(try Nesting.storedTitles(root).contains("child"))
    }

    @Test("Delete rules run in the child: cascaded deletions and nullified inverses arrive in the parent with the save", arguments: StoreKind.allCases)
    func deleteRulesRunInChild(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.deleteRuleModel(rule: .cascadeDeleteRule))
        let ownerID = try root.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: root)
            for n in 0..<2 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: root)
                item.setValue("item\(n)", forKey: "name")
                item.setValue(owner, forKey: "owner")
                let part = NSEntityDescription.insertNewObject(forEntityName: "Part", into: root)
                part.setValue(item, forKey: "item")
            }
            try root.save()
            return owner.objectID
        }
        let child = Nesting.child(of: root)
        try child.performAndWait {
            child.delete(try child.existingObject(with: ownerID))
            child.processPendingChanges()
            #expect(child.deletedObjects.count == 5)
            try child.save()
        }
        try root.performAndWait {
            #expect(root.deletedObjects.count == 5)
            try root.save()
            for entity in ["Owner", "Item", "Part"] {
                #expect(try root.count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) == 0)
            }
        }
    }

    @Test("Both sides of a relationship changed in a child are consistent in the parent and in the store", arguments: StoreKind.allCases)
    func inversesArriveTogether(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.todoModel())
        let (todoID, homeID, workID) = try root.performAndWait {
            let todo = Nesting.todo("walk", in: root)
            let home = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: root)
            let work = NSEntityDescription.insertNewObject(forEntityName: "LocationEntity", into: root)
            todo.setValue(home, forKey: "location")
            try root.save()
            return (todo.objectID, home.objectID, work.objectID)
        }
        // The parent has loaded the home's to-dos; the child moves the to-do to work.
        try root.performAndWait { () throws in #expect((try root.existingObject(with: homeID).value(forKey: "todos") as? Set<NSManagedObject>)?.count == 1) }
        let child = Nesting.child(of: root)
        try child.performAndWait {
            try child.existingObject(with: todoID).setValue(child.object(with: workID), forKey: "location")
            try child.save()
        }
        try root.performAndWait {
            let todo = try root.existingObject(with: todoID)
            #expect((todo.value(forKey: "location") as? NSManagedObject)?.objectID == workID)
            #expect((try root.existingObject(with: homeID).value(forKey: "todos") as? Set<NSManagedObject>)?.isEmpty == true)
            #expect((try root.existingObject(with: workID).value(forKey: "todos") as? Set<NSManagedObject>)?.map(\.objectID) == [todoID])
            try root.save()
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = root.persistentStoreCoordinator
        try reader.performAndWait { () throws in
            #expect((try reader.existingObject(with: workID).value(forKey: "todos") as? Set<NSManagedObject>)?.map(\.objectID) == [todoID])
            #expect((try reader.existingObject(with: homeID).value(forKey: "todos") as? Set<NSManagedObject>)?.isEmpty == true)
        }
    }

    @Test("obtainPermanentIDs(for:) in a child asks the store; after the parent saves, the child's objects keep those IDs", arguments: StoreKind.allCases)
    func permanentIDsInChild(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.todoModel())
        let child = Nesting.child(of: root)
        let (todo, permanent) = try child.performAndWait {
            let todo = Nesting.todo("permanent", in: child)
            try child.obtainPermanentIDs(for: [todo])
            #expect(!todo.objectID.isTemporaryID)
            try child.save()
            return (UncheckedBox(todo), todo.objectID)
        }
        try root.performAndWait {
            #expect(root.insertedObjects.map(\.objectID) == [permanent])
            try root.save()
        }
        child.performAndWait { #expect(todo.value.objectID == permanent) }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = root.persistentStoreCoordinator
        try reader.performAndWait { () throws in #expect(try reader.existingObject(with: permanent).value(forKey: "title") as? String == "permanent") }
    }

    @Test("A child keeps finding an object by the temporary ID it saved it with, after the parent saved it", arguments: StoreKind.allCases)
    func temporaryIDAfterParentSave(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.todoModel())
        let child = Nesting.child(of: root)
        let temporary = try child.performAndWait {
            let todo = Nesting.todo("first", in: child)
            try child.save()
            return todo.objectID
        }
        try root.performAndWait { try root.save() }
        try child.performAndWait {
            let todo = try child.existingObject(with: temporary)
            todo.setValue("second", forKey: "title")
            try child.save()
        }
        try root.performAndWait { try root.save() }
        #expect(try Nesting.storedTitles(root) == ["second"])
    }

    @Test("rollback(), reset() and refresh(_:mergeChanges:) in a child leave the parent untouched", arguments: StoreKind.allCases)
    func discardingInChild(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        try root.performAndWait { try root.existingObject(with: ids["A"]!).setValue("parent-A", forKey: "title") }
        let child = Nesting.child(of: root)
        try child.performAndWait {
            let a = try child.existingObject(with: ids["A"]!)
            a.setValue("child-A", forKey: "title")
            child.rollback()
            #expect(a.value(forKey: "title") as? String == "parent-A")
            a.setValue("child-A", forKey: "title")
            child.refresh(a, mergeChanges: false)
            #expect(a.value(forKey: "title") as? String == "parent-A")
            Nesting.todo("child-only", in: child)
            child.reset()
            #expect(try Nesting.titles(child) == ["B", "C", "parent-A"])
        }
        try root.performAndWait { () throws in
            #expect(root.updatedObjects.count == 1)
            #expect(try Nesting.titles(root) == ["B", "C", "parent-A"])
        }
    }

    @Test("A fault whose row the parent deleted becomes an inaccessible tombstone in the child", arguments: StoreKind.allCases)
    func faultDeletedInParent(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        try root.performAndWait { root.delete(try root.existingObject(with: ids["C"]!)) }
        let child = Nesting.child(of: root)
        try child.performAndWait { () throws in
            #expect(throws: NSError.self) { try child.existingObject(with: ids["C"]!) }
            let fault = child.object(with: ids["C"]!)
            #expect(fault.value(forKey: "title") == nil)
            #expect(fault.isFault == false)
        }
    }

    @Test("Saving a child whose parent was reset gives an NSError naming the object, and changes nothing", arguments: StoreKind.allCases)
    func saveAfterParentReset(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.todoModel())
        let id = root.performAndWait { Nesting.todo("unsaved", in: root).objectID }
        let child = Nesting.child(of: root)
        try child.performAndWait { try child.existingObject(with: id).setValue("edited", forKey: "title") }
        root.performAndWait { root.reset() }
        child.performAndWait {
            #expect {
                try child.save()
            } throws: { error in
                let error = error as NSError
                return error.code == NSManagedObjectReferentialIntegrityError
                    && (error.userInfo[NSAffectedObjectsErrorKey] as? [NSManagedObjectID]) == [id]
            }
            #expect(child.hasChanges)
        }
        root.performAndWait { #expect(!root.hasChanges) }
    }

    @Test("automaticallyMergesChangesFromParent merges the parent's saves and a sibling's pushes into the child", arguments: StoreKind.allCases)
    func mergesFromParent(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        let watcher = Nesting.child(of: root)
        watcher.automaticallyMergesChangesFromParent = true
        let sibling = Nesting.child(of: root)
        let (a, b) = try watcher.performAndWait {
            let a = try watcher.existingObject(with: ids["A"]!)
            let b = try watcher.existingObject(with: ids["B"]!)
            b.setValue(7, forKey: "priority")  // a pending change the merge keeps
            return (UncheckedBox(a), UncheckedBox(b))
        }
        try sibling.performAndWait {
            try sibling.existingObject(with: ids["A"]!).setValue("from sibling", forKey: "title")
            try sibling.save()
        }
        watcher.performAndWait {}  // the merge was enqueued on the watcher's queue
        watcher.performAndWait { #expect(a.value.value(forKey: "title") as? String == "from sibling") }
        try root.performAndWait {
            try root.existingObject(with: ids["B"]!).setValue("from root", forKey: "title")
            try root.save()
        }
        watcher.performAndWait {}
        watcher.performAndWait {
            #expect(b.value.value(forKey: "title") as? String == "from root")
            #expect(b.value.value(forKey: "priority") as? Int == 7)
            #expect(watcher.updatedObjects.contains(b.value))
        }
        // Without the flag nothing is merged: the sibling still reads what it loaded.
        sibling.performAndWait { #expect(sibling.registeredObject(for: ids["B"]!) == nil) }
    }

    @Test("Query generations apply to contexts that read the stores: a child refuses one with an NSError")
    func childRefusesQueryGeneration() throws {
        let root = try StoreKind.sqlite.context(TestModels.todoModel())
        let child = Nesting.child(of: root)
        #expect(throws: NSError.self) { try child.setQueryGenerationFrom(.current) }
    }
}

extension NestedContextTests {
    @Test("A child keeps its parent alive (Apple's parent property is strong), so the parent cannot go away under it")
    func childRetainsParent() throws {
        weak var weakParent: NSManagedObjectContext?
        let child: NSManagedObjectContext = try {
            let parent = try StoreKind.inMemory.context(TestModels.todoModel())
            weakParent = parent
            return Nesting.child(of: parent)
        }()
        #expect(weakParent != nil)
        try child.performAndWait {
            Nesting.todo("kept", in: child)
            try child.save()
        }
        #expect(weakParent?.performAndWait { weakParent?.insertedObjects.count } == 1)
    }
}

extension NestedContextTests {
    @Test("A child that undoes a deletion it already saved into its parent brings the object back there", arguments: StoreKind.allCases)
    func undoPushedDeletion(_ kind: StoreKind) throws {
        let (root, ids) = try Nesting.rootWithABC(kind)
        let child = Nesting.child(of: root)
        let id = ids["B"]!
        try child.performAndWait {
            child.undoManager = UndoManager()
            child.delete(try child.existingObject(with: id))
            child.processPendingChanges()
            try child.save()
        }
        try root.performAndWait { () throws in #expect(try Nesting.titles(root) == ["A", "C"]) }
        try child.performAndWait {
            child.undo()
            #expect(try Nesting.titles(child) == ["A", "B", "C"])
            try child.save()
        }
        try root.performAndWait {
            #expect(root.deletedObjects.isEmpty)
            #expect(try Nesting.titles(root) == ["A", "B", "C"])
            try root.save()
        }
        #expect(try Nesting.storedTitles(root) == ["A", "B", "C"])
    }
}

extension NestedContextTests {
    @Test("A context has a parent or a coordinator, never both: giving a child a coordinator stops with a message")
    func coordinatorOnChildStops() async {
        await #expect(processExitsWith: .failure) {
            let root = try TestModels.inMemoryContext(TestModels.todoModel())
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = root
            child.persistentStoreCoordinator = root.persistentStoreCoordinator
        }
    }

    @Test("Giving a context with a coordinator a parent stops with a message")
    func parentOnRootStops() async {
        await #expect(processExitsWith: .failure) {
            let root = try TestModels.inMemoryContext(TestModels.todoModel())
            let other = try TestModels.inMemoryContext(TestModels.todoModel())
            other.parent = root
        }
    }

    @Test("The parent is set before first use: setting it on a context that has objects stops with a message")
    func parentAfterUseStops() async {
        await #expect(processExitsWith: .failure) {
            let root = try TestModels.inMemoryContext(TestModels.todoModel())
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = root
            child.performAndWait { _ = Nesting.todo("used", in: child) }
            child.parent = try TestModels.inMemoryContext(TestModels.todoModel())
        }
    }
}

extension NestedContextTests {
    @Test("After the parent saves what a child inserted, the child's next fetch finds its own object, now under the permanent ID (no second object)", arguments: StoreKind.allCases)
    func childAdoptsPermanentIDs(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.todoModel())
        let child = Nesting.child(of: root)
        let todo = try child.performAndWait {
            let todo = Nesting.todo("mine", in: child)
            try child.save()
            return UncheckedBox(todo)
        }
        try root.performAndWait { try root.save() }
        try child.performAndWait {
            let fetched = try child.fetch(NSFetchRequest<NSManagedObject>(entityName: "TodoEntity"))
            #expect(fetched.count == 1)
            #expect(fetched.first === todo.value)
            #expect(!todo.value.objectID.isTemporaryID)
            #expect(child.registeredObjects.count == 1)
        }
    }
}
