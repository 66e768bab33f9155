import Foundation
import Testing
@testable import OpenCoreData

/// Loading mapping models: Apple-compiled `.cdm` files, Xcode `.xcmappingmodel` sources, and
/// finding the one made for two models in bundles
/// (<https://developer.apple.com/documentation/coredata/nsmappingmodel>).
@Suite("Mapping models")
struct MappingModelTests {
    static let managerToPerson = #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson", $source.owner)"#
    static let managerToCars = #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "cars", $source.cars)"#

    static func fetchAll(_ entity: String) -> String {
        #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "\#(entity)", "TRUEPREDICATE"), $manager.sourceContext, NO)"#
    }

    // MARK: - Public classes

    @Test("NSEntityMappingType has Apple's raw values")
    func mappingTypeRawValues() {
        #expect(NSEntityMappingType.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(NSEntityMappingType(rawValue: 4) == .copyEntityMappingType)
        #expect(NSEntityMappingType(rawValue: 6) == nil)
    }

    @Test("The migration expression variables are the names Xcode's mapping editor writes ($manager, $source, …)")
    func variableKeys() {
        #expect([NSMigrationManagerKey, NSMigrationSourceObjectKey, NSMigrationDestinationObjectKey,
                 NSMigrationEntityMappingKey, NSMigrationPropertyMappingKey, NSMigrationEntityPolicyKey]
                == ["manager", "source", "destination", "entityMapping", "propertyMapping", "entityPolicy"])
    }

    @Test("entityMappingsByName keys the settable entityMappings by name")
    func mappingsByName() {
        let model = NSMappingModel()
        #expect(model.entityMappings.isEmpty && model.entityMappingsByName.isEmpty)
        let first = NSEntityMapping()
        first.name = "AToA"
        let second = NSEntityMapping()
        second.name = "B"
        model.entityMappings = [first, second]
        #expect(model.entityMappingsByName["AToA"] === first && model.entityMappingsByName["B"] === second)
        #expect(model.entityMappingsByName.count == 2)
    }

    @Test("NSFetchRequestExpression keeps its request, context and count flag and prints as FETCH(…)")
    func fetchRequestExpression() throws {
        let request = NSExpression(forConstantValue: "request")
        let expression = NSFetchRequestExpression.expression(forFetch: request, context: NSExpression(forVariable: "context"), countOnly: true)
        let fetch = try #require(expression as? NSFetchRequestExpression)
        #expect(fetch.expressionType == .fetchRequest && NSFetchRequestExpressionType.rawValue == 50)
        #expect(fetch.requestExpression == request && fetch.contextExpression.variable == "context" && fetch.isCountOnlyRequest)
        #expect(fetch.description == #"FETCH("request", $context, YES)"#)
        // Evaluated without a fetch request and a context, it has no value.
        #expect(fetch.expressionValue(with: nil, context: nil) == nil)
    }

    @Test("Evaluating a FETCH expression runs the request in the context: the objects, or their count when countOnly")
    func fetchRequestExpressionFetches() throws {
        let context = try TestModels.inMemoryContext(TestModels.todoModel())
        try context.performAndWait {
            for title in ["a", "b", "c"] {
                NSEntityDescription.insertNewObject(forEntityName: "TodoEntity", into: context).setValue(title, forKey: "title")
            }
            try context.save()
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "TodoEntity")
            request.predicate = NSPredicate(format: "title != 'b'")
            let bindings = NSMutableDictionary(dictionary: ["request": request, "moc": context])
            let objects = NSFetchRequestExpression.expression(forFetch: NSExpression(forVariable: "request"), context: NSExpression(forVariable: "moc"), countOnly: false)
            let titles = (objects.expressionValue(with: nil, context: bindings) as? [NSManagedObject])?.compactMap { $0.value(forKey: "title") as? String }
            #expect(titles?.sorted() == ["a", "c"])
            let count = NSFetchRequestExpression.expression(forFetch: NSExpression(forVariable: "request"), context: NSExpression(forVariable: "moc"), countOnly: true)
            #expect((count.expressionValue(with: nil, context: bindings) as? NSNumber)?.intValue == 2)
        }
    }

    // MARK: - Compiled mapping models

    @Test("Apple's compiled V2toV3.cdm loads with its entity mappings, types, policy and version hashes",
          .enabled(if: ModelFixtures.enabled))
    func compiledMappingModel() throws {
        let mapping = try #require(NSMappingModel(contentsOf: try MappingFixtures.url(MappingFixtures.compiledV2toV3)))
        let mappings = try #require(mapping.entityMappings)
        #expect(mappings.map(\.name) == ["CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "Maker"])
        #expect(Set(mapping.entityMappingsByName.keys) == Set(mappings.compactMap(\.name)))
        let byName = mapping.entityMappingsByName
        for name in ["CarToCar", "SportCarToSportCar", "LuxuryCarToLuxuryCar"] {
            let entityMapping = try #require(byName[name])
            #expect(entityMapping.mappingType == .customEntityMappingType)
            #expect(entityMapping.entityMigrationPolicyClassName?.hasSuffix("V2to3MakerPolicy") == true)
            #expect(entityMapping.sourceEntityName == entityMapping.destinationEntityName)
        }
        let maker = try #require(byName["Maker"])
        #expect(maker.mappingType == .addEntityMappingType && maker.sourceEntityName == nil && maker.sourceEntityVersionHash == nil)
        #expect(maker.destinationEntityName == "Maker" && maker.sourceExpression == nil && maker.entityMigrationPolicyClassName == nil)
        let person = try #require(byName["PersonToPerson"])
        #expect(person.mappingType == .copyEntityMappingType && person.entityMigrationPolicyClassName == nil)

        // The version hashes are those of the models the mapping was made for.
        let (v2, v3) = try MappingFixtures.compiledV2V3()
        for entityMapping in mappings {
            if let source = entityMapping.sourceEntityName {
                #expect(entityMapping.sourceEntityVersionHash == v2.entityVersionHashesByName[source], "\(source)")
            }
            let destination = try #require(entityMapping.destinationEntityName)
            #expect(entityMapping.destinationEntityVersionHash == v3.entityVersionHashesByName[destination], "\(destination)")
        }
    }

    @Test("The .cdm's property mappings keep Apple's order and value expressions; source expressions are FETCH expressions",
          .enabled(if: ModelFixtures.enabled))
    func compiledExpressions() throws {
        let mapping = try #require(NSMappingModel(contentsOf: try MappingFixtures.url(MappingFixtures.compiledV2toV3)))
        let car = try #require(mapping.entityMappingsByName["CarToCar"])
        #expect(car.attributeMappings?.map(\.description) == [
            "markedForDeletionAsOf = $source.markedForDeletionAsOf", "model = $source.model", "numberPlate = $source.numberPlate",
        ])
        #expect(car.relationshipMappings?.map(\.description) == [
            "createdBy = nil", "owner = \(Self.managerToPerson)", "previousOwners = \(Self.managerToPerson)",
        ])
        let source = try #require(car.sourceExpression as? NSFetchRequestExpression)
        #expect(source.description == Self.fetchAll("Car") && !source.isCountOnlyRequest)
        #expect(source.requestExpression.function == "fetchRequestForSourceEntityNamed:predicateString:")
        #expect(source.requestExpression.operand.variable == NSMigrationManagerKey)
        #expect(source.requestExpression.arguments?.compactMap { $0.constantValue as? String } == ["Car", "TRUEPREDICATE"])
        #expect(source.contextExpression.keyPath == "sourceContext" && source.contextExpression.operand.variable == "manager")

        let owner = try #require(car.relationshipMappings?[1].valueExpression)
        #expect(owner.expressionType == .function && owner.function == "destinationInstancesForEntityMappingNamed:sourceInstances:")
        #expect(owner.arguments?.last?.operand.variable == NSMigrationSourceObjectKey && owner.arguments?.last?.keyPath == "owner")

        let person = try #require(mapping.entityMappingsByName["PersonToPerson"])
        #expect(person.attributeMappings?.map(\.description) == ["firstName = $source.firstName", "lastName = $source.lastName", "updatedAt = $source.updatedAt"])
        #expect(person.relationshipMappings?.map(\.description) == ["cars = \(Self.managerToCars)", "previousCars = \(Self.managerToCars)"])
        let maker = try #require(mapping.entityMappingsByName["Maker"])
        #expect(maker.attributeMappings?.map(\.description) == ["name = nil"] && maker.relationshipMappings?.map(\.description) == ["cars = nil"])
        // A value expression's text parses back to an equal expression.
        for entityMapping in mapping.entityMappings! {
            for property in (entityMapping.attributeMappings ?? []) + (entityMapping.relationshipMappings ?? []) {
                guard let expression = property.valueExpression else { continue }
                #expect(try NSExpression.parse(format: expression.description) == expression)
            }
        }
    }

    // MARK: - Xcode source mapping models

    @Test("The V2toV3.xcmappingmodel source gives the same entity mappings and expressions as Apple's compiled .cdm",
          .enabled(if: ModelFixtures.enabled))
    func sourceMatchesCompiled() throws {
        let compiled = try NSMappingModel.load(from: try MappingFixtures.url(MappingFixtures.compiledV2toV3))
        let source = try NSMappingModel.load(from: try MappingFixtures.url(MappingFixtures.sourceV2toV3))
        #expect(source.entityMappings!.map(\.name) == compiled.entityMappings!.map(\.name))
        for (fromSource, fromCompiled) in zip(source.entityMappings!, compiled.entityMappings!) {
            #expect(fromSource.summary == fromCompiled.summary)
            #expect(fromSource.sourceExpression == fromCompiled.sourceExpression)
            let sourceProperties = (fromSource.attributeMappings ?? []) + (fromSource.relationshipMappings ?? [])
            let compiledProperties = (fromCompiled.attributeMappings ?? []) + (fromCompiled.relationshipMappings ?? [])
            #expect(sourceProperties.map(\.valueExpression) == compiledProperties.map(\.valueExpression))
        }
        // Its xcmapping.xml loads the same way as the folder.
        let file = try NSMappingModel.load(from: try MappingFixtures.url(MappingFixtures.sourceV2toV3 + "/xcmapping.xml"))
        #expect(file.entityMappings!.flatMap(\.summary) == source.entityMappings!.flatMap(\.summary))
    }

    @Test("Migration2to3ModelMapping loads: a custom Post mapping with its module-qualified policy, and an added Section",
          .enabled(if: ModelFixtures.enabled))
    func migrationExampleMapping() throws {
        let mapping = try #require(NSMappingModel(contentsOf: try MappingFixtures.url(MappingFixtures.migration2to3)))
        #expect(mapping.entityMappings!.map(\.name) == ["Section", "PostToPost"])
        let post = try #require(mapping.entityMappingsByName["PostToPost"])
        #expect(post.mappingType == .customEntityMappingType)
        #expect(post.entityMigrationPolicyClassName == "CoreDataMigration_Example.Post2ToPost3MigrationPolicy")
        #expect(post.attributeMappings?.map(\.description) == ["date = $source.date", "hexColor = $source.hexColor", "postID = $source.postID"])
        #expect(post.relationshipMappings?.map(\.description) == ["sections = nil"])
        #expect(post.sourceExpression?.description == Self.fetchAll("Post"))
        let section = try #require(mapping.entityMappingsByName["Section"])
        #expect(section.mappingType == .addEntityMappingType && section.sourceEntityName == nil && section.sourceExpression == nil)
        #expect(section.attributeMappings?.map(\.description) == ["body = nil", "index = nil", "title = nil"])

        let bundle = MappingFixtures.exampleModelBundle
        let v2 = try MappingFixtures.model(bundle + "/CoreDataMigration_Example 2.xcdatamodel")
        let v3 = try MappingFixtures.model(bundle + "/CoreDataMigration_Example 3.xcdatamodel")
        #expect(post.sourceEntityVersionHash == v2.entityVersionHashesByName["Post"])
        #expect(post.destinationEntityVersionHash == v3.entityVersionHashesByName["Post"])
        #expect(section.destinationEntityVersionHash == v3.entityVersionHashesByName["Section"])
    }

    // MARK: - Finding a mapping model in bundles

    @Test("NSMappingModel(from:forSourceModel:destinationModel:) finds the mapping model whose version hashes match, .cdm or .xcmappingmodel",
          .enabled(if: ModelFixtures.enabled))
    func findsMappingModelInBundles() throws {
        let folder = try TemporaryFolder()
        let fileManager = FileManager.default
        for (path, name) in [(MappingFixtures.compiledV2toV3, "V2toV3.cdm"), (MappingFixtures.sampleModelBundle, "SampleModel.xcdatamodeld"),
                             (MappingFixtures.migration2to3, "Migration2to3ModelMapping.xcmappingmodel"),
                             (MappingFixtures.exampleModelBundle, "CoreDataMigration_Example.xcdatamodeld")] {
            try fileManager.copyItem(at: try MappingFixtures.url(path), to: folder.url.appendingPathComponent(name))
        }
        let bundle = try #require(Bundle(url: folder.url))
        let (v2, v3) = try MappingFixtures.compiledV2V3()
        let found = try #require(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v3))
        #expect(found.entityMappings!.map(\.name) == ["CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "Maker"])

        let example = MappingFixtures.exampleModelBundle
        let post2 = try MappingFixtures.model(example + "/CoreDataMigration_Example 2.xcdatamodel")
        let post3 = try MappingFixtures.model(example + "/CoreDataMigration_Example 3.xcdatamodel")
        let post4 = try MappingFixtures.model(example + "/CoreDataMigration_Example 4.xcdatamodel")
        let migration = try #require(NSMappingModel(from: [bundle], forSourceModel: post2, destinationModel: post3))
        #expect(migration.entityMappings!.map(\.name) == ["Section", "PostToPost"])

        // No mapping model was made for these pairs.
        #expect(NSMappingModel(from: [bundle], forSourceModel: v3, destinationModel: v2) == nil)
        #expect(NSMappingModel(from: [bundle], forSourceModel: post3, destinationModel: post4) == nil)
        #expect(NSMappingModel(from: [bundle], forSourceModel: nil, destinationModel: nil) == nil)

        // Only the Xcode source in the bundle: it is found too.
        let sourceOnly = try TemporaryFolder()
        try fileManager.copyItem(at: try MappingFixtures.url(MappingFixtures.sourceV2toV3), to: sourceOnly.url.appendingPathComponent("V2toV3.xcmappingmodel"))
        try fileManager.copyItem(at: try MappingFixtures.url(MappingFixtures.sampleModelBundle), to: sourceOnly.url.appendingPathComponent("SampleModel.xcdatamodeld"))
        let sourceBundle = try #require(Bundle(url: sourceOnly.url))
        let fromSource = try #require(NSMappingModel(from: [sourceBundle], forSourceModel: v2, destinationModel: v3))
        #expect(fromSource.entityMappings!.flatMap(\.summary) == found.entityMappings!.flatMap(\.summary))
    }

    // MARK: - Bad input

    @Test("A missing file, a truncated or foreign archive and a source mapping model without its models give nil and an NSError")
    func badFiles() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("Nothing.cdm")
        #expect(NSMappingModel(contentsOf: missing) == nil)
        #expect(NSMappingModel(contentsOf: nil) == nil)
        #expect(throws: NSError.self) { try NSMappingModel.load(from: missing) }
        #expect(Self.code { try NSMappingModel.load(from: missing) } == NSFileReadNoSuchFileError)

        let garbage = try folder.write(Data("not a mapping model".utf8), to: "Garbage.cdm")
        #expect(NSMappingModel(contentsOf: garbage) == nil)
        #expect(Self.code { try NSMappingModel.load(from: garbage) } == NSFileReadCorruptFileError)

        // A keyed archive of something else.
        let other = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: ["x"]), requiringSecureCoding: false)
        let otherURL = try folder.write(other, to: "Other.cdm")
        let error = try #require(Self.error { try NSMappingModel.load(from: otherURL) })
        #expect(error.code == NSFileReadCorruptFileError && error.localizedDescription.contains("not an NSMappingModel"))
        #expect(error.localizedDescription.contains("Other.cdm"))

        // An xcmapping.xml whose models are nowhere near it.
        let lonely = try folder.write(Self.minimalXML(entityMappings: ""), to: "Lonely.xcmappingmodel/xcmapping.xml")
        let lonelyError = try #require(Self.error { try NSMappingModel.load(from: lonely.deletingLastPathComponent()) })
        #expect(lonelyError.code == NSFileReadNoSuchFileError && lonelyError.localizedDescription.contains("Nowhere.xcdatamodel"))
        let emptyFolder = folder.url.appendingPathComponent("Empty.xcmappingmodel")
        try FileManager.default.createDirectory(at: emptyFolder, withIntermediateDirectories: true)
        #expect(Self.code { try NSMappingModel.load(from: emptyFolder) } == NSFileReadNoSuchFileError)
    }

    @Test("An unknown mapping type, a missing mapping name or a value of the wrong type in a .cdm is a 259 error naming it",
          .enabled(if: ModelFixtures.enabled))
    func malformedArchive() throws {
        let data = try Data(contentsOf: try MappingFixtures.url(MappingFixtures.compiledV2toV3))
        let file = URL(fileURLWithPath: "/tmp/V2toV3.cdm")
        func edited(_ edit: (inout [String: Any]) -> Void) throws -> NSError? {
            var plist = try #require(try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any])
            var objects = try #require(plist["$objects"] as? [Any])
            for index in objects.indices {
                guard var object = objects[index] as? [String: Any], object["NSMappingType"] != nil else { continue }
                edit(&object)
                objects[index] = object
                break
            }
            plist["$objects"] = objects
            let encoded = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            return Self.error { try NSMappingModel.load(encoded, file: file) }
        }
        let unknownType = try #require(try edited { $0["NSMappingType"] = 9 })
        #expect(unknownType.code == NSFileReadCorruptFileError && unknownType.localizedDescription.contains("unknown mapping type 9"))
        let noName = try #require(try edited { $0["NSMappingName"] = nil })
        #expect(noName.code == NSFileReadCorruptFileError && noName.localizedDescription.contains("no NSMappingName"))
        let wrongType = try #require(try edited { $0["NSMappingName"] = 42 })
        #expect(wrongType.code == NSFileReadCorruptFileError && wrongType.localizedDescription.contains("NSMappingName is not a string"))
        let wrongHash = try #require(try edited { $0["NSSourceEntityVersionHash"] = true })
        #expect(wrongHash.code == NSFileReadCorruptFileError)
        // Truncations never load.
        for length in stride(from: 0, to: data.count - 1, by: 97) {
            #expect(Self.error { try NSMappingModel.load(data.prefix(length), file: file) }?.code == NSFileReadCorruptFileError)
        }
    }

    @Test("Malformed xcmapping.xml: bad XML, unknown mapping type names, dangling references and undecodable expressions are 259 errors")
    func malformedXML() throws {
        let model = NSManagedObjectModel()
        let entity = NSEntityDescription()
        entity.name = "Thing"
        let attribute = NSAttributeDescription()
        attribute.name = "title"
        attribute.attributeType = .stringAttributeType
        attribute.isOptional = true
        entity.properties = [attribute]
        model.entities = [entity]
        let file = URL(fileURLWithPath: "/tmp/Test.xcmappingmodel/xcmapping.xml")
        func load(_ xml: String) -> (NSMappingModel?, NSError?) {
            do {
                return (try NSMappingModel.load(Data(xml.utf8), file: file, sourceModel: model, destinationModel: model), nil)
            } catch {
                return (nil, error as NSError)
            }
        }
        let good = Self.minimalXML(entityMappings: Self.thingMapping(type: "Undefined", attribute: ""))
        let (loaded, loadError) = load(good)
        #expect(loadError == nil)
        let thing = try #require(loaded?.entityMappingsByName["ThingToThing"])
        #expect(thing.mappingType == .copyEntityMappingType && thing.attributeMappings?.map(\.description) == ["title = $source.title"])
        #expect(thing.sourceEntityVersionHash == entity.versionHash && thing.destinationEntityVersionHash == entity.versionHash)

        // A stored format-string expression is parsed.
        let custom = load(Self.minimalXML(entityMappings: Self.thingMapping(type: "Transform", attribute: #"<attribute name="valueexpression" type="string">$source.title.uppercaseString</attribute>"#)))
        #expect(custom.0?.entityMappings!.first?.mappingType == .transformEntityMappingType)
        #expect(custom.0?.entityMappings!.first?.attributeMappings?.first?.valueExpression?.description == "$source.title.uppercaseString")

        let failures: [(String, String)] = [
            (String(good.dropLast(20)), "malformed XML"),
            (Self.minimalXML(entityMappings: Self.thingMapping(type: "Sideways", attribute: "")), "unknown mapping type 'Sideways'"),
            (good.replacingOccurrences(of: #"idrefs="z2""#, with: #"idrefs="z9""#), "missing object 'z9'"),
            (Self.minimalXML(entityMappings: Self.thingMapping(type: "Undefined", attribute: #"<attribute name="valueexpression" type="string">$source.(</attribute>"#)), "is not a valid expression"),
            (Self.minimalXML(entityMappings: Self.thingMapping(type: "Undefined", attribute: #"<attribute name="valueexpressiondata" type="binary">AAAA</attribute>"#)), "not a property list"),
            (good.replacingOccurrences(of: ">Thing</attribute>", with: ">Nope</attribute>"), "which the source model does not have"),
            (good.replacingOccurrences(of: "<database>", with: "<base>").replacingOccurrences(of: "</database>", with: "</base>"), "not the <database>"),
        ]
        for (xml, expected) in failures {
            let (model, error) = load(xml)
            #expect(model == nil)
            #expect(error?.code == NSFileReadCorruptFileError, "\(expected)")
            #expect(error?.localizedDescription.contains(expected) == true, "\(error?.localizedDescription ?? "no error"), expected \(expected)")
        }
    }

    // MARK: - Helpers

    /// An xcmapping.xml whose recorded models don't exist, with the given entity mapping objects.
    static func minimalXML(entityMappings: String) -> String {
        """
        <?xml version="1.0" standalone="yes"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
        <database>
            <object type="XDDEVMAPPINGMODEL" id="z1">
                <attribute name="sourcemodelpath" type="string">Nowhere.xcdatamodeld/Nowhere.xcdatamodel</attribute>
                <attribute name="destinationmodelpath" type="string">Nowhere.xcdatamodeld/Nowhere 2.xcdatamodel</attribute>
                <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="\(entityMappings.isEmpty ? "" : "z2")"></relationship>
            </object>
        \(entityMappings)
        </database>
        """
    }

    /// A Thing→Thing entity mapping object with one attribute mapping `title`.
    static func thingMapping(type: String, attribute: String) -> String {
        """
            <object type="XDDEVENTITYMAPPING" id="z2">
                <attribute name="sourcename" type="string">Thing</attribute>
                <attribute name="destinationname" type="string">Thing</attribute>
                <attribute name="mappingtypename" type="string">\(type)</attribute>
                <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z3"></relationship>
            </object>
            <object type="XDDEVATTRIBUTEMAPPING" id="z3">
                <attribute name="name" type="string">title</attribute>
                \(attribute)
            </object>
        """
    }

    static func error<T>(_ body: () throws -> T) -> NSError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as NSError
        }
    }

    static func code<T>(_ body: () throws -> T) -> Int? {
        error(body)?.code
    }
}
