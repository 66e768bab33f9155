import Foundation
import Testing
@testable import OpenCoreData

/// Every Xcode model in shared/fixtures/models loads, with the counts and key facts its XML states.
@Suite("Xcode model XML fixtures", .enabled(if: ModelFixtures.enabled, "shared/fixtures is missing"))
struct ModelXMLFixtureTests {
    /// Counts read from each file's XML: entities, attributes, relationships, fetched properties
    /// (each entity's own), model-level fetch request templates and configurations.
    struct Counts: CustomTestStringConvertible, Sendable {
        var path: String
        var entities: Int
        var attributes: Int
        var relationships: Int
        var fetchedProperties: Int
        var templates: Int
        var configurations: Int

        init(_ path: String, _ entities: Int, _ attributes: Int, _ relationships: Int, _ fetchedProperties: Int,
             _ templates: Int, _ configurations: Int) {
            (self.path, self.entities, self.attributes, self.relationships) = (path, entities, attributes, relationships)
            (self.fetchedProperties, self.templates, self.configurations) = (fetchedProperties, templates, configurations)
        }

        var testDescription: String { path }
    }

    static let expectedCounts: [Counts] = [
        Counts("CarolaneLFBV-Tutorials/CoreDataExample.xcdatamodeld/CoreDataExample.xcdatamodel", 1, 3, 0, 0, 0, 0),
        Counts("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 2.xcdatamodel", 1, 4, 0, 0, 0, 0),
        Counts("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 3.xcdatamodel", 2, 6, 2, 0, 0, 0),
        Counts("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 4.xcdatamodel", 2, 7, 2, 0, 0, 0),
        Counts("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example.xcdatamodel", 1, 4, 0, 0, 0, 0),
        Counts("CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/Model.xcdatamodeld/Model 1.xcdatamodel", 2, 4, 2, 0, 0, 0),
        Counts("CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/Model.xcdatamodeld/Model 2.xcdatamodel", 2, 5, 2, 0, 0, 0),
        Counts("CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/Model.xcdatamodeld/Model.xcdatamodel", 2, 4, 2, 0, 0, 0),
        Counts("CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/ModelS.xcdatamodeld/ModelS 1.xcdatamodel", 2, 4, 2, 0, 0, 0),
        Counts("CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/ModelS.xcdatamodeld/ModelS 2.xcdatamodel", 2, 5, 2, 0, 0, 0),
        Counts("CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/ModelS.xcdatamodeld/ModelS.xcdatamodel", 2, 4, 2, 0, 0, 0),
        Counts("CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel.xcdatamodel", 4, 8, 2, 0, 0, 0),
        Counts("CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel", 4, 8, 2, 0, 0, 0),
        Counts("CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel", 5, 8, 6, 0, 0, 0),
        Counts("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel", 4, 12, 2, 0, 0, 0),
        Counts("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel", 4, 8, 2, 0, 0, 0),
        Counts("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel", 5, 8, 6, 0, 0, 0),
        Counts("CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel", 1, 2, 0, 0, 0, 0),
        Counts("CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3_v2.xcdatamodel", 2, 3, 2, 0, 0, 0),
        Counts("CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3_v3.xcdatamodel", 2, 2, 2, 0, 0, 0),
        Counts("CoreStore/CoreStoreTests/Model.xcdatamodeld/Model.xcdatamodel", 2, 16, 4, 0, 0, 2),
        Counts("CoreStore/Demo/Sources/Demos/Advanced/EvolutionDemo/Advanced.EvolutionDemo.V1.xcdatamodeld/Advanced.EvolutionDemo.V1.xcdatamodel", 1, 2, 0, 0, 0, 0),
        Counts("CoreStore/Demo/Sources/Demos/Advanced/EvolutionDemo/Advanced.EvolutionDemo.V1.xcdatamodeld/Advanced.EvolutionDemo.V2.xcdatamodel", 1, 5, 0, 0, 0, 0),
        Counts("CoreStore/Demo/Sources/Demos/Classic/ColorsDemo/Classic.ColorsDemo.xcdatamodeld/ColorsDemo.xcdatamodel", 1, 4, 0, 1, 0, 0),
        Counts("MIOCoreData/Tests/TestModel/TestModel.xcdatamodeld/TestModel.xcdatamodel", 1, 3, 0, 0, 0, 0),
        Counts("MagicalRecord/Tests/Fixtures/TestModel.xcdatamodeld/TestModel.xcdatamodel", 12, 29, 9, 0, 0, 0),
        Counts("MomXML/Tests/Model.xcdatamodeld/Model.xcdatamodel", 3, 11, 4, 0, 0, 0),
        Counts("MomXML/Tests/model.xml", 3, 10, 4, 2, 0, 0),
        Counts("MomXML/Tests/model2.xml", 19, 34, 6, 0, 0, 0),
        Counts("apple-sample-cloudkit-coredatasync/CoreDataSync/Core Data/CoreDataSync.xcdatamodeld/CoreDataSync.xcdatamodel", 1, 2, 0, 0, 0, 0),
        Counts("arnosolo-blog/demo5_todo_list.xcdatamodeld/demo5_todo_list.xcdatamodel", 3, 15, 4, 0, 0, 0),
        Counts("mogenerator/test/MogenSwiftTest/MogenSwiftTest.xcdatamodeld/MogenSwiftTest.xcdatamodel", 3, 4, 2, 0, 1, 0),
        Counts("mogenerator/test/test.xcdatamodel", 9, 24, 4, 0, 5, 0),
        Counts("momcom/momcomTests/momcomTests.xcdatamodeld/momcTests 2.xcdatamodel", 4, 13, 2, 1, 3, 1),
        Counts("momcom/momcomTests/momcomTests.xcdatamodeld/momcTests.xcdatamodel", 4, 12, 2, 1, 1, 1),
        Counts("momdec/momdecTests/momdecTests.xcdatamodeld/momdecTests.xcdatamodel", 4, 12, 2, 1, 1, 1),
    ]

    @Test("Each model loads with the entity, attribute and relationship counts of its XML", arguments: expectedCounts)
    func loadsWithCounts(_ expected: Counts) throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model(expected.path))
        let own = model.entities.flatMap(\.ownProperties)
        #expect(model.entities.count == expected.entities)
        #expect(own.filter { $0 is NSAttributeDescription }.count == expected.attributes)
        #expect(own.filter { $0 is NSRelationshipDescription }.count == expected.relationships)
        #expect(own.filter { $0 is NSFetchedPropertyDescription }.count == expected.fetchedProperties)
        #expect(model.fetchRequestTemplatesByName.count == expected.templates)
        #expect(model.configurations.count == expected.configurations)
        for entity in model.entities {
            for relationship in entity.ownProperties.compactMap({ $0 as? NSRelationshipDescription }) {
                #expect(relationship.destinationEntity != nil, "\(entity.name ?? "").\(relationship.name) is linked")
                if relationship.inverseRelationshipName != nil {
                    #expect(relationship.inverseRelationship?.destinationEntity.map { entity.isKindOf(entity: $0) } == true,
                            "\(entity.name ?? "").\(relationship.name)'s inverse points back")
                }
            }
        }
    }

    @Test("The table covers every model in the fixtures")
    func everyModelIsCounted() throws {
        let root = try ModelFixtures.require().appendingPathComponent("models").path + "/"
        let found = try ModelFixtures.allSourceModels().map { String($0.path.dropFirst(root.count)) }
        let counted = Set(Self.expectedCounts.map(\.path))
        for path in found { #expect(counted.contains(path), "\(path) has no expected counts") }
    }

    // MARK: - Key facts

    @Test("arnosolo to-do: many-to-many Todo↔Tag, to-one location, class codegen")
    func todoModel() throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("arnosolo-blog/demo5_todo_list.xcdatamodeld"))
        let todo = try #require(model.entitiesByName["TodoEntity"])
        let tags = try #require(todo.relationshipsByName["tags"])
        #expect(tags.isToMany && tags.maxCount == 0 && tags.inverseRelationship?.name == "todos")
        #expect(tags.inverseRelationship?.isToMany == true)
        let location = try #require(todo.relationshipsByName["location"])
        #expect(!location.isToMany && location.destinationEntity?.name == "LocationEntity" && location.deleteRule == .nullifyDeleteRule)
        #expect(todo.managedObjectClassName == "TodoEntity" && todo.codeGenerationType == "class")
        let latitude = try #require(model.entitiesByName["LocationEntity"]?.attributesByName["latitude"])
        #expect(latitude.attributeType == .doubleAttributeType && latitude.usesScalarValueType && latitude.isOptional)
        #expect((latitude.defaultValue as? NSNumber)?.doubleValue == 0)
        #expect(todo.attributesByName["createdAt"]?.attributeType == .dateAttributeType)
        #expect(todo.properties.map(\.name) == ["completedAt", "createdAt", "title", "todoId", "updatedAt", "location", "tags"])
    }

    @Test("CoreDataPlus: three-level inheritance, constraints, fetch index, transformable, preserveAfterDeletion, elementID")
    func coreDataPlus() throws {
        let bundle = try ModelFixtures.model("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld")
        let v1 = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("SampleModel.xcdatamodel"))
        let car = try #require(v1.entitiesByName["Car"])
        let expensive = try #require(v1.entitiesByName["ExpensiveSportCar"])
        #expect(expensive.superentity?.name == "SportCar" && expensive.superentity?.superentity === car)
        #expect(expensive.isKindOf(entity: car) && expensive.rootEntity === car)
        #expect(car.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["numberPlate"]])
        #expect(expensive.propertiesByName["numberPlate"] != nil, "inherited properties are visible")
        let color = try #require(car.attributesByName["color"])
        #expect(color.attributeType == .transformableAttributeType && color.valueTransformerName == "ColorTransformer" && color.attributeValueClassName == "Color")
        let id = try #require(v1.entitiesByName["Person"]?.attributesByName["id"])
        #expect(id.attributeType == .UUIDAttributeType && id.preservesValueInHistoryOnDeletion && !id.isOptional)
        #expect(v1.versionIdentifiers == ["1"])

        let v2 = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("SampleModel2.xcdatamodel"))
        let luxury = try #require(v2.entitiesByName["LuxuryCar"])
        #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
        let index = try #require(v2.entitiesByName["Car"]?.indexes.first)
        #expect(index.name == "byMakerAndNumberPlate" && index.elements.map(\.propertyName) == ["maker", "numberPlate"])
        #expect(index.elements.allSatisfy { $0.property != nil && $0.collationType == .binary && $0.isAscending })
        #expect(v2.entitiesByName["Person"]?.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["firstName", "lastName"]])

        let current = try NSManagedObjectModel.load(contentsOf: bundle)
        #expect(current.versionIdentifiers == ["1"], ".xccurrentversion names SampleModel.xcdatamodel")
    }

    @Test("momcom: every attribute option, fetched property, templates, configuration, compound indexes")
    func momcom() throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("momcom/momcomTests/momcomTests.xcdatamodeld"))
        let entity = try #require(model.entitiesByName["Entity"])
        #expect(entity.superentity?.name == "AbstractEntity" && entity.superentity?.isAbstract == true)
        #expect(entity.managedObjectClassName == "EntityClass")
        #expect(entity.renamingIdentifier == "myRenamingIdentifier" && entity.versionHashModifier == "myVersionHashModifier")
        #expect(entity.compoundIndexes.map { $0.compactMap { $0 as? String } } == [["booleanAttribute", "dateAttribute"], ["decimalAttribute", "doubleAttribute"]])
        #expect(entity.userInfo?["someKey"] as? String == "randomValue")

        let date = try #require(entity.attributesByName["dateAttribute"])
        #expect((date.defaultValue as? Date)?.timeIntervalSinceReferenceDate == 388411200)
        #expect(date.validationPredicates.map(\.predicateFormat) == [#"SELF >= CAST(284000400.0, "NSDate")"#, #"SELF <= CAST(602395200.0, "NSDate")"#])
        let int16 = try #require(entity.attributesByName["int16Attribute"])
        #expect(int16.validationPredicates.map(\.predicateFormat) == ["SELF >= -3", "SELF <= 9"])
        #expect((int16.defaultValue as? NSNumber)?.intValue == 0)
        let decimal = try #require(entity.attributesByName["decimalAttribute"])
        #expect(decimal.defaultValue is NSDecimalNumber && decimal.validationPredicates.count == 2)
        #expect(entity.attributesByName["transformableAttribute"]?.valueTransformerName == "myValueTransformer")
        let binary = try #require(entity.attributesByName["binaryAttribute"])
        #expect(binary.isTransient && binary.isIndexedBySpotlight && binary.userInfo?["binaryFoo"] as? String == "YES")

        let others = try #require(entity.relationshipsByName["otherEntities"])
        #expect(others.isToMany && others.minCount == 1 && others.maxCount == 9 && others.inverseRelationship?.name == "mainEntity")
        let mainEntity = try #require(model.entitiesByName["OtherEntity"]?.relationshipsByName["mainEntity"])
        #expect(mainEntity.minCount == 1 && mainEntity.maxCount == 1 && mainEntity.destinationEntity === entity)

        let fetched = try #require(entity.propertiesByName["yesBooleans"] as? NSFetchedPropertyDescription)
        #expect(fetched.fetchRequest?.entity === entity)
        #expect(fetched.fetchRequest?.predicate?.predicateFormat == "booleanAttribute == 1")
        #expect(fetched.isTransient && !entity.versionHashIncludes(fetched))

        let dictionaries = try #require(model.fetchRequestTemplate(forName: "FetchRequestDictionaries"))
        #expect(dictionaries.resultType == .dictionaryResultType && dictionaries.returnsDistinctResults && dictionaries.entity === entity)
        #expect(model.fetchRequestTemplate(forName: "FetchRequestObjectIDs")?.resultType == .managedObjectIDResultType)
        let objects = try #require(model.fetchRequestTemplate(forName: "FetchRequestObjects"))
        #expect(objects.fetchLimit == 100 && objects.fetchBatchSize == 10)
        #expect(objects.predicate?.predicateFormat == "booleanAttribute == 1 AND floatAttribute > 5")

        #expect(model.configurations == ["UnrelatedConfiguration"])
        #expect(model.entities(forConfigurationName: "UnrelatedConfiguration")?.compactMap(\.name) == ["UnrelatedEntity"])
        #expect(model.entities(forConfigurationName: nil)?.count == 4)
    }

    @Test("mogenerator: ordered to-many, inverse-less relationships, templates with variables, minValueString")
    func mogenerator() throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("mogenerator/test/test.xcdatamodel"))
        let parent = try #require(model.entitiesByName["Parent"])
        let ordered = try #require(parent.relationshipsByName["orderedChildren"])
        #expect(ordered.isOrdered && ordered.isToMany && ordered.deleteRule == .cascadeDeleteRule && ordered.isIndexed)
        let children = try #require(parent.relationshipsByName["children"])
        #expect(children.inverseRelationship == nil && children.inverseRelationshipName == nil)
        #expect(parent.superentity?.name == "Human" && parent.managedObjectClassName == "ParentMO")
        #expect(parent.attributesByName["myInt16Transient"]?.isTransient == true)
        let age = try #require(model.entitiesByName["Human"]?.attributesByName["age"])
        #expect(!age.isOptional && age.validationPredicates.map(\.predicateFormat) == ["SELF >= 0"])
        #expect(model.entitiesByName["Human"]?.userInfo?["key with.dots..."] as? String == "value with \"quotes\"")
        #expect(model.entitiesByName["EntitySansCustomClass"]?.managedObjectClassName == "NSManagedObject")
        #expect(model.fetchRequestTemplate(forName: "byHumanName")?.predicate?.predicateFormat == "humanName == $humanName")
        #expect(model.fetchRequestTemplate(forName: "allHumans")?.predicate == nil)
    }

    @Test("CoreStore: leading-dot class names, ordered to-many, configurations")
    func coreStore() throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("CoreStore/CoreStoreTests/Model.xcdatamodeld"))
        #expect(model.entitiesByName["TestEntity1AAA"]?.managedObjectClassName == ".TestEntity1")
        #expect(model.entitiesByName["TestEntity2"]?.relationshipsByName["testToManyOrdered"]?.isOrdered == true)
        #expect(model.configurations == ["Config1", "Config2"])
        #expect(model.entities(forConfigurationName: "Config2")?.compactMap(\.name) == ["TestEntity2"])
        #expect(model.entities(forConfigurationName: "Missing") == nil)
    }

    @Test("MomXML: composite attributes, derived attributes, expression fetch index")
    func momXML() throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("MomXML/Tests/Model.xcdatamodeld"))
        let composite = try #require(model.entitiesByName["Produit"]?.attributesByName["attribute1"] as? NSCompositeAttributeDescription)
        #expect(composite.attributeType == .compositeAttributeType)
        #expect(composite.elements.map(\.name) == ["one", "two", "three"])
        #expect((composite.elements.last as? NSCompositeAttributeDescription)?.elements.isEmpty == true)
        #expect(model.entitiesByName["Client"]?.userInfo?["key1"] as? String == "value")

        let xml = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("MomXML/Tests/model.xml"))
        let derived = try #require(xml.entitiesByName["Client"]?.attributesByName["commandeCount"] as? NSDerivedAttributeDescription)
        #expect(derived.derivationExpression?.description == "client_commande.@count" && derived.attributeType == .integer64AttributeType)
        let index = try #require(xml.entitiesByName["Client"]?.indexes.first)
        #expect(index.name == "byPropertyIndex" && index.elements.first?.property is NSExpressionDescription)
    }

    @Test("MagicalRecord: abstract parent, inverse-less to-many, userInfo")
    func magicalRecord() throws {
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("MagicalRecord/Tests/Fixtures/TestModel.xcdatamodeld"))
        let abstract = try #require(model.entitiesByName["AbstractRelatedEntity"])
        #expect(abstract.isAbstract && abstract.subentities.map(\.name) == ["ConcreteRelatedEntity"])
        #expect(model.entities.contains { entity in entity.ownProperties.contains { ($0 as? NSRelationshipDescription)?.inverseRelationshipName == nil && ($0 as? NSRelationshipDescription)?.isToMany == true } })
    }

    @Test("Versioned bundles pick the version .xccurrentversion names, or the bundle-named one when it names none")
    func currentVersions() throws {
        let migration = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"))
        let version4 = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld/CoreDataMigration_Example 4.xcdatamodel"))
        #expect(migration.entityVersionHashesByName == version4.entityVersionHashesByName)
        let sample = try ModelBundle(url: try ModelFixtures.model("CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/Model.xcdatamodeld"))
        #expect(sample.currentVersionName == "Model 2" && sample.versions.count == 3)
        let emptyCurrent = try ModelBundle(url: try ModelFixtures.model("CoreDataMigrationSample/CoreDataMigrationSample/CoreDataMigrationSample/ModelS.xcdatamodeld"))
        #expect(emptyCurrent.currentVersionName == "ModelS")
        let single = try ModelBundle(url: try ModelFixtures.model("CarolaneLFBV-Tutorials/CoreDataExample.xcdatamodeld"))
        #expect(single.currentVersionName == "CoreDataExample")
    }
}

extension NSEntityDescription {
    /// Whether a property takes part in the entity's version hash (stored properties only).
    func versionHashIncludes(_ property: NSPropertyDescription) -> Bool { property.isStored }
}
