import Foundation
import Testing
@testable import OpenCoreData

@Suite("Validation")
struct ValidationTests {
    static func model() -> NSManagedObjectModel {
        let person = TestModels.entity("Person", [
            TestModels.attribute("name", .stringAttributeType, optional: false),
            TestModels.attribute("small", .integer16AttributeType),
            TestModels.attribute("nick", .stringAttributeType),
        ])
        let pet = TestModels.entity("Pet", [TestModels.attribute("name", .stringAttributeType)])
        let pets = TestModels.relationship("pets", to: pet, toMany: true, optional: true, minCount: 2, maxCount: 3)
        let owner = TestModels.relationship("owner", to: person, toMany: false, optional: false)
        TestModels.inverse(pets, owner)
        person.properties += [pets]
        pet.properties += [owner]
        let model = NSManagedObjectModel()
        model.entities = [person, pet]
        return model
    }

    func saveError(_ context: NSManagedObjectContext) -> NSError? {
        do { try context.save(); return nil } catch { return error as NSError }
    }

    @Test("A missing mandatory property fails with 1570 and names object and key; nothing is written")
    func missingMandatory() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            let error = try #require(saveError(context))
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSValidationMissingMandatoryPropertyError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "name")
            #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === person)
            #expect(person.isInserted)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 1) // pending insert still visible
            let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            other.persistentStoreCoordinator = context.persistentStoreCoordinator
            #expect(try other.performAndWait { try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) } == 0)
            #expect(throws: (any Error).self) { try person.validateForInsert() }
        }
    }

    @Test("Too few and too many objects in a to-many relationship: 1580 and 1590")
    func relationshipCounts() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("Ann", forKey: "name")
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
            pet.setValue(person, forKey: "owner")
            #expect(saveError(context)?.code == NSValidationRelationshipLacksMinimumCountError)
            for _ in 0..<3 {
                NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context).setValue(person, forKey: "owner")
            }
            #expect(saveError(context)?.code == NSValidationRelationshipExceedsMaximumCountError)
            context.delete(pet)
            #expect(saveError(context) == nil)
        }
    }

    @Test("An Integer 16 value out of range fails with 1610")
    func numberTooLarge() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("Ann", forKey: "name")
            person.setValue(40_000, forKey: "small")
            #expect(saveError(context)?.code == NSValidationNumberTooLargeError)
            person.setValue(-40_000, forKey: "small")
            #expect(saveError(context)?.code == NSValidationNumberTooSmallError)
        }
    }

    @Test("Several failures give 1560 with NSDetailedErrors")
    func multipleErrors() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        try context.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            _ = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
            let error = try #require(saveError(context))
            #expect(error.code == NSValidationMultipleErrorsError)
            let detailed = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
            #expect(Set(detailed.map(\.code)) == [NSValidationMissingMandatoryPropertyError])
            #expect(Set(detailed.compactMap { $0.userInfo[NSValidationKeyErrorKey] as? String }) == ["name", "owner"])
        }
    }

    @Test("validateValue(_:forKey:) checks one value")
    func validateValue() throws {
        let context = try TestModels.inMemoryContext(Self.model())
        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            #expect(throws: (any Error).self) { try person.validateValue(nil, forKey: "name") }
            try person.validateValue("Ann", forKey: "name")
        }
    }
}
