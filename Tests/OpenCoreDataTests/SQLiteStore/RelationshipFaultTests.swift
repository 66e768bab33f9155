import Foundation
import Testing
@testable import OpenCoreData

@Suite("Relationship faults on SQLite")
struct RelationshipFaultTests {
    /// A to-many fault reads its destinations' rows in one query; the destinations keep those
    /// rows, so reading them needs the store no more. Checked by removing the store after the
    /// fault fired: a destination that went back to the store would read as nil.
    @Test("A to-many fault's destinations keep the rows it read")
    func destinationsKeepTheirRows() throws {
        let model = TestModels.deleteRuleModel(rule: .cascadeDeleteRule)
        let url = TestStoreFiles.newStoreURL()
        let writer = try TestModels.sqliteContext(model, url: url)
        try writer.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: writer)
            for index in 0..<5 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer)
                item.setValue("item\(index)", forKey: "name")
                item.setValue(owner, forKey: "owner")
            }
            try writer.save()
        }

        let context = try TestModels.sqliteContext(model, url: url)
        try context.performAndWait {
            let owner = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner")).first)
            let items = try #require(owner.value(forKey: "items") as? Set<NSManagedObject>)
            #expect(items.count == 5)
            let coordinator = try #require(context.persistentStoreCoordinator)
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            let names = Set(items.compactMap { $0.value(forKey: "name") as? String })
            #expect(names == Set((0..<5).map { "item\($0)" }))
        }
    }
}
