import Foundation
import Testing
@testable import OpenCoreData

@Suite("Delete rules")
struct DeleteRuleTests {
    func makeGraph(_ rule: NSDeleteRule) throws -> (NSManagedObjectContext, NSManagedObject, [NSManagedObject], [NSManagedObject]) {
        let context = try TestModels.inMemoryContext(TestModels.deleteRuleModel(rule: rule))
        return context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            var items: [NSManagedObject] = []
            var parts: [NSManagedObject] = []
            for index in 0..<3 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("item\(index)", forKey: "name")
                item.setValue(owner, forKey: "owner")
                let part = NSEntityDescription.insertNewObject(forEntityName: "Part", into: context)
                part.setValue(item, forKey: "item")
                items.append(item)
                parts.append(part)
            }
            try! context.save()
            return (context, owner, items, parts)
        }
    }

    func count(_ entity: String, _ context: NSManagedObjectContext) throws -> Int {
        try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity))
    }

    @Test("Nullify removes the deleted object from the inverse")
    func nullify() throws {
        let (context, owner, items, _) = try makeGraph(.nullifyDeleteRule)
        try context.performAndWait {
            context.delete(owner)
            context.processPendingChanges()
            #expect(items.allSatisfy { $0.value(forKey: "owner") == nil })
            #expect(context.graphInvariantViolations().isEmpty)
            try context.save()
            #expect(try count("Owner", context) == 0)
            #expect(try count("Item", context) == 3)
        }
    }

    @Test("Cascade deletes transitively")
    func cascade() throws {
        let (context, owner, items, parts) = try makeGraph(.cascadeDeleteRule)
        try context.performAndWait {
            context.delete(owner)
            context.processPendingChanges()
            #expect(items.allSatisfy { $0.isDeleted })
            #expect(parts.allSatisfy { $0.isDeleted })
            #expect(context.graphInvariantViolations().isEmpty)
            try context.save()
            #expect(try count("Owner", context) == 0)
            #expect(try count("Item", context) == 0)
            #expect(try count("Part", context) == 0)
        }
    }

    @Test("Cascade through a cycle terminates (Item.parts ↔ Part.item both cascade)")
    func cascadeCycle() throws {
        let (context, _, items, parts) = try makeGraph(.nullifyDeleteRule)
        try context.performAndWait {
            context.delete(parts[0])
            context.processPendingChanges()
            #expect(items[0].isDeleted)
            #expect(!items[1].isDeleted)
            try context.save()
            #expect(try count("Item", context) == 2)
            #expect(try count("Part", context) == 2)
        }
    }

    @Test("Deny refuses the save with NSValidationRelationshipDeniedDeleteError and writes nothing")
    func deny() throws {
        let (context, owner, items, _) = try makeGraph(.denyDeleteRule)
        try context.performAndWait {
            context.delete(owner)
            items[0].setValue("changed", forKey: "name")
            #expect {
                try context.save()
            } throws: { error in
                let error = error as NSError
                return error.domain == NSCocoaErrorDomain && error.code == NSValidationRelationshipDeniedDeleteError
                    && error.userInfo[NSValidationKeyErrorKey] as? String == "items"
                    && error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === owner
            }
            #expect(context.hasChanges)
            #expect(owner.isDeleted)
            // Nothing was written: another context still sees the owner and the old name.
            let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            other.persistentStoreCoordinator = context.persistentStoreCoordinator
            try other.performAndWait {
                #expect(try count("Owner", other) == 1)
                let names = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String }
                #expect(!names.contains("changed"))
            }
            // Emptying the relationship lets the deletion through.
            for item in items { context.delete(item) }
            try context.save()
            #expect(try count("Owner", context) == 0)
        }
    }

    @Test("No Action leaves the destinations pointing at the deleted object")
    func noAction() throws {
        let (context, owner, items, _) = try makeGraph(.noActionDeleteRule)
        try context.performAndWait {
            context.delete(owner)
            context.processPendingChanges()
            #expect(items.allSatisfy { $0.value(forKey: "owner") as? NSManagedObject === owner })
            try context.save()
            #expect(try count("Item", context) == 3)
        }
    }
}
