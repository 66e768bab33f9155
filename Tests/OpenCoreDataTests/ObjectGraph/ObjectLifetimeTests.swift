import Foundation
import Testing
@testable import OpenCoreData

/// Walks over the registered objects that free some of them on the way: the context registers
/// objects without retaining them, and turning one into a fault drops the last strong reference
/// to its related objects. CI runs this suite under AddressSanitizer (`.ci/run`), where a walk
/// that reads a freed object stops with a heap-use-after-free report.
@Suite("Object lifetimes during context-wide walks")
struct ObjectLifetimeTests {
    /// 20 saved parents with 5 saved children each; only the parents are held by the caller,
    /// so each child lives only through its parent's `children` relationship.
    static func savedFamilies(_ context: NSManagedObjectContext) throws -> [NSManagedObject] {
        var parents: [NSManagedObject] = []
        for family in 0..<20 {
            let parent = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            parent.setValue("parent \(family)", forKey: "name")
            for child in 0..<5 {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                object.setValue("child \(family).\(child)", forKey: "name")
                object.setValue(parent, forKey: "mother")
            }
            parents.append(parent)
        }
        try context.save()
        return parents
    }

    static func expectFamiliesIntact(_ parents: [NSManagedObject], _ context: NSManagedObjectContext) {
        for (family, parent) in parents.enumerated() {
            #expect(parent.value(forKey: "name") as? String == "parent \(family)")
            let children = (parent.value(forKey: "children") as? NSSet)?.allObjects as? [NSManagedObject] ?? []
            #expect(children.count == 5)
            #expect(children.allSatisfy { $0.value(forKey: "mother") as? NSManagedObject === parent })
        }
        #expect(context.graphInvariantViolations().isEmpty)
    }

    @Test("refreshAllObjects() survives refreshing objects whose related objects it frees", arguments: StoreKind.allCases)
    func refreshAllObjectsFreesRelatedObjects(_ kind: StoreKind) throws {
        let context = try kind.context(TestModels.personModel())
        try context.performAndWait {
            let parents = try Self.savedFamilies(context)
            #expect(context.registeredObjects.count == 120)
            context.refreshAllObjects()
            Self.expectFamiliesIntact(parents, context)
        }
    }

    @Test("rollback() survives resetting relationships whose destinations it frees", arguments: StoreKind.allCases)
    func rollbackFreesRelatedObjects(_ kind: StoreKind) throws {
        let context = try kind.context(TestModels.personModel())
        try context.performAndWait {
            let parents = try Self.savedFamilies(context)
            // Move every family's children to the next parent, then throw the moves away: the
            // rollback walk reverts relationship slots and so drops references to children.
            for (family, parent) in parents.enumerated() {
                let children = (parent.value(forKey: "children") as? NSSet)?.allObjects as? [NSManagedObject] ?? []
                for child in children { child.setValue(parents[(family + 1) % parents.count], forKey: "mother") }
            }
            context.rollback()
            #expect(!context.hasChanges)
            Self.expectFamiliesIntact(parents, context)
        }
    }

    @Test("reset() survives faulting objects whose related objects it frees", arguments: StoreKind.allCases)
    func resetFreesRelatedObjects(_ kind: StoreKind) throws {
        let context = try kind.context(TestModels.personModel())
        try context.performAndWait {
            let parents = try Self.savedFamilies(context)
            let ids = parents.map(\.objectID)
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            let fetched = try ids.map { try context.existingObject(with: $0) }
            Self.expectFamiliesIntact(fetched, context)
        }
    }

    @Test("retainsRegisteredObjects keeps every registered object alive; turning it off lets them go")
    func retainsRegisteredObjects() throws {
        let context = try TestModels.inMemoryContext(TestModels.personModel())
        try context.performAndWait {
            _ = try Self.savedFamilies(context)
            context.reset()
            context.retainsRegisteredObjects = true
            // The fetched faults are dropped at once; only the context holds them now.
            #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).count == 120)
            #expect(context.registeredObjects.count == 120)
            context.retainsRegisteredObjects = false
            #expect(context.registeredObjects.isEmpty)
            context.retainsRegisteredObjects = true
            #expect(context.registeredObjects.isEmpty)
        }
    }
}
