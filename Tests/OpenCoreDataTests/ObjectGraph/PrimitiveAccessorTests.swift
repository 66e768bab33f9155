import Foundation
import Testing
@testable import OpenCoreData

/// A class that declares primitive accessors, as Core Data code does with `@NSManaged`.
final class PTodo: NSManagedObject {
    @Managed var title: String?
    @Managed var priority: Int16
    @Managed var updatedAt: Date?
    @Managed private var primitiveTitle: String?
    @Managed private var primitivePriority: Int16
    @Managed private var primitiveUpdatedAt: Date?
    @Managed private var primitiveLocation: PLocation?
    @Managed private var primitiveTags: NSSet?

    private(set) var changeNotifications: [String] = []

    override func willChangeValue(forKey key: String) {
        super.willChangeValue(forKey: key)
        changeNotifications.append("will:\(key)")
    }

    override func didChangeValue(forKey key: String) {
        super.didChangeValue(forKey: key)
        changeNotifications.append("did:\(key)")
    }

    override func awakeFromInsert() {
        super.awakeFromInsert()
        primitiveTitle = "Untitled"
        primitivePriority = 2
    }

    override func willSave() {
        super.willSave()
        if !isDeleted { primitiveUpdatedAt = Date(timeIntervalSinceReferenceDate: 1_000) }
    }

    var rawTitle: String? {
        get { primitiveTitle }
        set { primitiveTitle = newValue }
    }
    var rawPriority: Int16 {
        get { primitivePriority }
        set { primitivePriority = newValue }
    }
    var rawLocation: PLocation? {
        get { primitiveLocation }
        set { primitiveLocation = newValue }
    }
    var rawTags: NSSet? { primitiveTags }
    func clearNotifications() { changeNotifications = [] }
}

final class PLocation: NSManagedObject {
    @Managed var placeName: String?
}

@Suite("Primitive accessors (@Managed var primitive<Key>)")
struct PrimitiveAccessorTests {
    static func model() -> NSManagedObjectModel {
        let model = TestModels.todoModel()
        model.entitiesByName["TodoEntity"]!.managedObjectClassName = "PTodo"
        model.entitiesByName["LocationEntity"]!.managedObjectClassName = "PLocation"
        return model
    }

    @Test("primitive<Key> set in awakeFromInsert gives the new object its values without change notifications", arguments: StoreKind.allCases)
    func awakeFromInsertDefaults(kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        try context.performAndWait {
            let todo = PTodo(context: context)
            #expect(todo.title == "Untitled")
            #expect(todo.priority == 2)
            #expect(todo.changeNotifications.isEmpty)
            try context.save()
            #expect(todo.updatedAt == Date(timeIntervalSinceReferenceDate: 1_000))
        }
    }

    @Test("Writing a primitive reads back as the key's value, is tracked as a change, and skips willChange/didChange", arguments: StoreKind.allCases)
    func primitiveWriteIsTrackedWithoutNotifications(kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        try context.performAndWait {
            let todo = PTodo(context: context)
            try context.save()
            todo.clearNotifications()
            todo.rawTitle = "Buy milk"
            todo.rawPriority = 7
            #expect(todo.title == "Buy milk")
            #expect(todo.priority == 7)
            #expect(todo.primitiveValue(forKey: "title") as? String == "Buy milk")
            #expect(todo.changeNotifications.isEmpty)
            #expect(todo.isUpdated)
            #expect(Set(todo.changedValues().keys).isSuperset(of: ["title", "priority"]))
            todo.title = "Buy bread"
            #expect(todo.changeNotifications == ["will:title", "did:title"])
            #expect(todo.rawTitle == "Buy bread")
            todo.rawTitle = nil
            #expect(todo.title == nil)
        }
    }

    @Test("Primitive accessors of relationships read and write the destination objects", arguments: StoreKind.allCases)
    func relationshipPrimitives(kind: StoreKind) throws {
        let context = try kind.context(Self.model())
        context.performAndWait {
            let todo = PTodo(context: context)
            let place = PLocation(context: context)
            place.placeName = "Shop"
            todo.clearNotifications()
            todo.rawLocation = place
            #expect(todo.rawLocation === place)
            #expect(todo.value(forKey: "location") as? PLocation === place)
            #expect(todo.changeNotifications.isEmpty)
            #expect(todo.rawTags?.count == 0)
        }
    }
}
