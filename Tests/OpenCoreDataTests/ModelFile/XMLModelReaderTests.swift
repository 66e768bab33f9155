import Foundation
import Testing
@testable import OpenCoreData

/// The XML loader's mapping of every attribute type, default value and option, on small documents.
@Suite("XML model reader")
struct XMLModelReaderTests {
    static func load(_ body: String) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try XMLModelReader(url: nil).read(Data(ModelXML.model(body).utf8), into: model)
        return model
    }

    @Test("Every attribute type, with Xcode's default value text")
    func attributeTypes() throws {
        let model = try Self.load("""
            <entity name="All" representedClassName="MyApp.AllTypes" codeGenerationType="category">
                <attribute name="i16" attributeType="Integer 16" defaultValueString="-7"/>
                <attribute name="i32" attributeType="Integer 32" defaultValueString="2147483647"/>
                <attribute name="i64" attributeType="Integer 64" defaultValueString="9000000000"/>
                <attribute name="decimal" attributeType="Decimal" defaultValueString="10.11"/>
                <attribute name="double" attributeType="Double" defaultValueString="2.5"/>
                <attribute name="float" attributeType="Float" defaultValueString="0.5"/>
                <attribute name="string" attributeType="String" defaultValueString="hello"/>
                <attribute name="bool" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="date" attributeType="Date" defaultDateTimeInterval="388411200" defaultValueString="2013-04-23 12:00:00 +0000"/>
                <attribute name="dateText" attributeType="Date" defaultValueString="2013-04-23 12:00:00 +0000"/>
                <attribute name="binary" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="uuid" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F"/>
                <attribute name="uri" attributeType="URI" defaultValueString="https://example.com/a"/>
                <attribute name="transformable" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformerName" customClassName="[String]"/>
                <attribute name="objectID" optional="YES" transient="YES" attributeType="ObjectID"/>
                <attribute name="undefined" optional="YES" transient="YES" attributeType="Undefined"/>
                <attribute name="encrypted" optional="YES" attributeType="String" allowsCloudEncryption="YES" spotlightIndexingEnabled="YES" elementID="secret" versionHashModifier="v2"/>
            </entity>
            """)
        let entity = try #require(model.entitiesByName["All"])
        #expect(entity.managedObjectClassName == "MyApp.AllTypes" && entity.codeGenerationType == "category")
        let attributes = entity.attributesByName
        let types = entity.ownProperties.compactMap { ($0 as? NSAttributeDescription)?.attributeType }
        #expect(types == [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
                          .doubleAttributeType, .floatAttributeType, .stringAttributeType, .booleanAttributeType,
                          .dateAttributeType, .dateAttributeType, .binaryDataAttributeType, .UUIDAttributeType, .URIAttributeType,
                          .transformableAttributeType, .objectIDAttributeType, .undefinedAttributeType, .stringAttributeType])
        #expect((attributes["i16"]?.defaultValue as? NSNumber)?.int16Value == -7)
        #expect((attributes["i32"]?.defaultValue as? NSNumber)?.int32Value == Int32.max)
        #expect((attributes["i64"]?.defaultValue as? NSNumber)?.int64Value == 9_000_000_000)
        #expect((attributes["decimal"]?.defaultValue as? NSDecimalNumber)?.decimalValue == Decimal(string: "10.11"))
        #expect((attributes["double"]?.defaultValue as? NSNumber)?.doubleValue == 2.5)
        #expect((attributes["float"]?.defaultValue as? NSNumber)?.floatValue == 0.5)
        #expect(attributes["string"]?.defaultValue as? String == "hello")
        #expect((attributes["bool"]?.defaultValue as? NSNumber)?.boolValue == true)
        #expect((attributes["date"]?.defaultValue as? Date)?.timeIntervalSinceReferenceDate == 388411200)
        #expect((attributes["dateText"]?.defaultValue as? Date)?.timeIntervalSinceReferenceDate == 388411200)
        #expect(attributes["binary"]?.allowsExternalBinaryDataStorage == true && attributes["binary"]?.defaultValue == nil)
        #expect(attributes["uuid"]?.defaultValue as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(attributes["uri"]?.defaultValue as? URL == URL(string: "https://example.com/a"))
        let transformable = try #require(attributes["transformable"])
        #expect(transformable.valueTransformerName == "NSSecureUnarchiveFromDataTransformerName" && transformable.attributeValueClassName == "[String]")
        #expect(attributes["objectID"]?.isTransient == true)
        let encrypted = try #require(attributes["encrypted"])
        #expect(encrypted.allowsCloudEncryption && encrypted.isIndexedBySpotlight)
        #expect(encrypted.renamingIdentifier == "secret" && encrypted.versionHashModifier == "v2")
        #expect(attributes["i16"]?.isOptional == false && attributes["objectID"]?.isOptional == true)
    }

    @Test("Validation: numbers, string lengths, dates as text, patterns")
    func validation() throws {
        let model = try Self.load("""
            <entity name="V">
                <attribute name="rating" optional="YES" attributeType="Double" minValueString="-0.5" maxValueString="5"/>
                <attribute name="code" optional="YES" attributeType="String" minValueString="2" regularExpressionString="[a-z]+\\d"/>
                <attribute name="due" optional="YES" attributeType="Date" minValueString="2001-01-01 00:00:00 +0000"/>
            </entity>
            """)
        let attributes = try #require(model.entitiesByName["V"]).attributesByName
        #expect(attributes["rating"]?.validationPredicates.map(\.predicateFormat) == ["SELF >= -0.5", "SELF <= 5"])
        #expect(attributes["code"]?.validationPredicates.map(\.predicateFormat) == ["length >= 2", #"SELF MATCHES "[a-z]+\\d""#])
        #expect(attributes["due"]?.validationPredicates.map(\.predicateFormat) == [#"SELF >= CAST(0.0, "NSDate")"#])
        #expect(attributes["rating"]?.validationWarnings.compactMap { $0 as? String } == ["minimum value -0.5", "maximum value 5"])
        let copy = try #require(attributes["rating"]?.copy() as? NSAttributeDescription)
        #expect(copy.validationPredicates.map(\.predicateFormat) == attributes["rating"]?.validationPredicates.map(\.predicateFormat))
    }

    @Test("Relationships: counts, rules, ordered, transient; derived attributes are read-only")
    func relationships() throws {
        let model = try Self.load("""
            <entity name="List">
                <attribute name="itemCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="items.@count"/>
                <relationship name="items" optional="YES" toMany="YES" minCount="2" maxCount="5" deletionRule="Deny" ordered="YES" destinationEntity="Item" inverseName="list" inverseEntity="Item"/>
                <relationship name="cache" optional="YES" transient="YES" maxCount="1" deletionRule="No Action" destinationEntity="Item"/>
            </entity>
            <entity name="Item">
                <relationship name="list" maxCount="1" deletionRule="Nullify" destinationEntity="List" inverseName="items" inverseEntity="List"/>
            </entity>
            """)
        let list = try #require(model.entitiesByName["List"])
        let items = try #require(list.relationshipsByName["items"])
        #expect(items.isToMany && items.isOrdered && items.minCount == 2 && items.maxCount == 5 && items.deleteRule == .denyDeleteRule)
        #expect(items.inverseRelationship === model.entitiesByName["Item"]?.relationshipsByName["list"])
        let cache = try #require(list.relationshipsByName["cache"])
        #expect(cache.isTransient && !cache.isToMany && cache.deleteRule == .noActionDeleteRule && cache.inverseRelationship == nil)
        let derived = try #require(list.attributesByName["itemCount"] as? NSDerivedAttributeDescription)
        #expect(derived.isReadOnly && derived.derivationExpression?.description == "items.@count")
        #expect(model.entitiesByName["Item"]?.relationshipsByName["list"]?.isOptional == false)
    }

    @Test("Layout elements and unknown elements are ignored; a model may be empty")
    func ignoredElements() throws {
        let model = try Self.load("""
            <entity name="A"><futureElement x="1"/></entity>
            <elements><element name="A" positionX="1" positionY="2" width="3" height="4"/></elements>
            """)
        #expect(model.entities.count == 1 && model.entitiesByName["A"]?.properties.isEmpty == true)
        #expect(try Self.load("").entities.isEmpty)
    }
}

/// A model loaded from XML validates objects on save with the error codes Apple reports.
@Suite("Validation rules from model XML")
struct XMLValidationOnSaveTests {
    static let xml = ModelXML.model("""
        <entity name="Person">
            <attribute name="age" optional="YES" attributeType="Integer 16" minValueString="0" maxValueString="150"/>
            <attribute name="code" optional="YES" attributeType="String" minValueString="2" maxValueString="4" regularExpressionString="[a-z]+"/>
            <attribute name="born" optional="YES" attributeType="Date" minDateTimeInterval="0" maxDateTimeInterval="1000000000"/>
        </entity>
        """)

    enum RuleValue: Sendable, CustomTestStringConvertible {
        case int(Int), string(String), date(TimeInterval)
        var value: Any {
            switch self {
            case .int(let int): return int
            case .string(let string): return string
            case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
            }
        }
        var testDescription: String { "\(value)" }
    }

    @Test("Each model-editor rule fails with its own code", arguments: [
        ("age", RuleValue.int(-1), NSValidationNumberTooSmallError),
        ("age", .int(151), NSValidationNumberTooLargeError),
        ("code", .string("a"), NSValidationStringTooShortError),
        ("code", .string("abcde"), NSValidationStringTooLongError),
        ("code", .string("AB"), NSValidationStringPatternMatchingError),
        ("born", .date(-1), NSValidationDateTooSoonError),
        ("born", .date(2_000_000_000), NSValidationDateTooLateError),
    ])
    func failsWithCode(key: String, value: RuleValue, code: Int) throws {
        let model = NSManagedObjectModel()
        try XMLModelReader(url: nil).read(Data(Self.xml.utf8), into: model)
        let context = try TestModels.inMemoryContext(model)
        context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(value.value, forKey: key)
            do {
                try context.save()
                Issue.record("saving \(key) = \(value) should fail")
            } catch let error as NSError {
                #expect(error.code == code, "\(error)")
                #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key)
            }
        }
    }

    @Test("Values inside the bounds save")
    func validValuesSave() throws {
        let model = NSManagedObjectModel()
        try XMLModelReader(url: nil).read(Data(Self.xml.utf8), into: model)
        let context = try TestModels.inMemoryContext(model)
        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(30, forKey: "age")
            person.setValue("abc", forKey: "code")
            person.setValue(Date(timeIntervalSinceReferenceDate: 500), forKey: "born")
            try context.save()
        }
    }
}
