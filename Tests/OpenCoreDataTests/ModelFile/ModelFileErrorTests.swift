import Foundation
import Testing
@testable import OpenCoreData

/// Bad model files throw `NSError`s that name the file, entity and property; nothing traps.
@Suite("Model file errors")
struct ModelFileErrorTests {
    func load(_ xml: String, in folder: TemporaryFolder, name: String = "Broken") throws -> NSManagedObjectModel {
        let url = try folder.write(xml, to: "\(name).xcdatamodel/contents")
        return try NSManagedObjectModel.load(contentsOf: url.deletingLastPathComponent())
    }

    @Test("Malformed XML names the file and line")
    func malformedXML() throws {
        let folder = try TemporaryFolder()
        let error = expectModelError(code: NSFileReadCorruptFileError, mentions: ["Broken.xcdatamodel/contents", "malformed XML", "line"]) {
            _ = try load("<?xml version=\"1.0\"?>\n<model>\n  <entity name=\"A\">\n</model>", in: folder)
        }
        #expect(error?.userInfo[NSFilePathErrorKey] as? String == folder.url.appendingPathComponent("Broken.xcdatamodel/contents").path)
        #expect(NSManagedObjectModel(contentsOf: folder.url.appendingPathComponent("Broken.xcdatamodel")) == nil)
    }

    @Test("A document that is not a model")
    func notAModel() throws {
        let folder = try TemporaryFolder()
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["<html>", "not an Xcode data model"]) {
            _ = try load("<html><body/></html>", in: folder)
        }
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["empty"]) {
            _ = try load("", in: folder, name: "Empty")
        }
    }

    @Test("An unknown attribute type names the entity and property")
    func unknownAttributeType() throws {
        let folder = try TemporaryFolder()
        let error = expectModelError(code: NSFileReadCorruptFileError, mentions: ["entity 'Car'", "property 'speed'", "unknown attributeType 'Integer 128'", "line 4"]) {
            _ = try load(ModelXML.model("""
                <entity name="Car">
                    <attribute name="speed" attributeType="Integer 128"/>
                </entity>
                """), in: folder)
        }
        #expect(error?.userInfo[OCDModelEntityErrorKey] as? String == "Car")
        #expect(error?.userInfo[OCDModelPropertyErrorKey] as? String == "speed")
    }

    @Test("A relationship whose destination entity doesn't exist")
    func missingDestination() throws {
        let folder = try TemporaryFolder()
        expectModelError(code: NSCoreDataError, mentions: ["entity 'Car'", "property 'owner'", "destination entity 'Person' does not exist"]) {
            _ = try load(ModelXML.model("""
                <entity name="Car">
                    <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person"/>
                </entity>
                """), in: folder)
        }
    }

    @Test("A relationship whose inverse doesn't exist, or is an attribute")
    func missingInverse() throws {
        let folder = try TemporaryFolder()
        expectModelError(code: NSCoreDataError, mentions: ["entity 'Car'", "property 'owner'", "inverse relationship 'cars' does not exist on entity 'Person'"]) {
            _ = try load(ModelXML.model("""
                <entity name="Car">
                    <relationship name="owner" optional="YES" maxCount="1" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
                </entity>
                <entity name="Person"/>
                """), in: folder)
        }
        expectModelError(code: NSCoreDataError, mentions: ["inverse 'name' on entity 'Person' is not a relationship"]) {
            _ = try load(ModelXML.model("""
                <entity name="Car">
                    <relationship name="owner" optional="YES" maxCount="1" destinationEntity="Person" inverseName="name" inverseEntity="Person"/>
                </entity>
                <entity name="Person"><attribute name="name" attributeType="String"/></entity>
                """), in: folder, name: "Attribute")
        }
    }

    @Test("Inheritance: a missing parent, a cycle, a shadowed property, duplicate names")
    func inheritanceAndNames() throws {
        let folder = try TemporaryFolder()
        expectModelError(code: NSCoreDataError, mentions: ["entity 'Car'", "parent entity 'Vehicle' does not exist"]) {
            _ = try load(ModelXML.model(#"<entity name="Car" parentEntity="Vehicle"/>"#), in: folder, name: "Parent")
        }
        expectModelError(code: NSCoreDataError, mentions: ["inherits from itself"]) {
            _ = try load(ModelXML.model(#"<entity name="A" parentEntity="B"/><entity name="B" parentEntity="A"/>"#), in: folder, name: "Cycle")
        }
        expectModelError(code: NSCoreDataError, mentions: ["entity 'Car'", "property 'name'", "inherited"]) {
            _ = try load(ModelXML.model("""
                <entity name="Vehicle"><attribute name="name" attributeType="String"/></entity>
                <entity name="Car" parentEntity="Vehicle"><attribute name="name" attributeType="String"/></entity>
                """), in: folder, name: "Shadow")
        }
        expectModelError(code: NSCoreDataError, mentions: ["entity 'Car'", "two entities"]) {
            _ = try load(ModelXML.model(#"<entity name="Car"/><entity name="Car"/>"#), in: folder, name: "Twice")
        }
        expectModelError(code: NSCoreDataError, mentions: ["property 'name'", "two properties"]) {
            _ = try load(ModelXML.model("""
                <entity name="Car"><attribute name="name" attributeType="String"/><attribute name="name" attributeType="Date"/></entity>
                """), in: folder, name: "TwiceProperty")
        }
    }

    @Test("Bad values: counts, delete rules, default values, composites, fetch request entities")
    func badValues() throws {
        let folder = try TemporaryFolder()
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["property 'r'", "deletionRule 'Explode'"]) {
            _ = try load(ModelXML.model(#"<entity name="A"><relationship name="r" destinationEntity="A" deletionRule="Explode"/></entity>"#), in: folder, name: "Rule")
        }
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["maxCount '-2'"]) {
            _ = try load(ModelXML.model(#"<entity name="A"><relationship name="r" toMany="YES" maxCount="-2" destinationEntity="A"/></entity>"#), in: folder, name: "Count")
        }
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["property 'n'", "defaultValueString 'many'"]) {
            _ = try load(ModelXML.model(#"<entity name="A"><attribute name="n" attributeType="Integer 16" defaultValueString="many"/></entity>"#), in: folder, name: "Default")
        }
        expectModelError(code: NSCoreDataError, mentions: ["composite 'Address' does not exist"]) {
            _ = try load(ModelXML.model(#"<entity name="A"><attribute name="c" attributeType="Composite" composite="Address"/></entity>"#), in: folder, name: "Composite")
        }
        expectModelError(code: NSCoreDataError, mentions: ["entity 'Ghost'", "does not exist"]) {
            _ = try load(ModelXML.model(#"<entity name="A"/><fetchRequest name="all" entity="Ghost"/>"#), in: folder, name: "Template")
        }
        expectModelError(code: NSCoreDataError, mentions: ["configuration 'Cloud'"]) {
            _ = try load(ModelXML.model(#"<entity name="A"/><configuration name="Cloud"><memberEntity name="B"/></configuration>"#), in: folder, name: "Configuration")
        }
    }

    @Test("Bundles: a missing file, no versions, a .xccurrentversion naming a missing version")
    func bundles() throws {
        let folder = try TemporaryFolder()
        expectModelError(code: NSFileReadNoSuchFileError, mentions: ["Nowhere.xcdatamodeld", "no such file"]) {
            _ = try NSManagedObjectModel.load(contentsOf: folder.url.appendingPathComponent("Nowhere.xcdatamodeld"))
        }
        let bundle = try ModelXML.writeBundle(in: folder, name: "Library", versions: ["Library": ModelXML.authorBook, "Library 2": ModelXML.authorBook], current: "Library 3.xcdatamodel")
        expectModelError(code: NSFileReadNoSuchFileError, mentions: [".xccurrentversion", "'Library 3.xcdatamodel'", "'Library 2'"]) {
            _ = try NSManagedObjectModel.load(contentsOf: bundle)
        }
        try folder.write("not a plist", to: "Library.xcdatamodeld/.xccurrentversion")
        expectModelError(code: NSFileReadCorruptFileError, mentions: [".xccurrentversion", "not a property list"]) {
            _ = try NSManagedObjectModel.load(contentsOf: bundle)
        }
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Empty.xcdatamodeld"), withIntermediateDirectories: true)
        expectModelError(code: NSFileReadNoSuchFileError, mentions: ["Empty.xcdatamodeld", "no .xcdatamodel version"]) {
            _ = try NSManagedObjectModel.load(contentsOf: folder.url.appendingPathComponent("Empty.xcdatamodeld"))
        }
        let twoVersions = try ModelXML.writeBundle(in: folder, name: "Two", versions: ["First": ModelXML.authorBook, "Second": ModelXML.authorBook], current: nil)
        expectModelError(code: NSFileReadNoSuchFileError, mentions: ["2 versions", "no .xccurrentversion"]) {
            _ = try NSManagedObjectModel.load(contentsOf: twoVersions)
        }
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Hollow.xcdatamodel"), withIntermediateDirectories: true)
        expectModelError(code: NSFileReadNoSuchFileError, mentions: ["Hollow.xcdatamodel", "no 'contents'"]) {
            _ = try NSManagedObjectModel.load(contentsOf: folder.url.appendingPathComponent("Hollow.xcdatamodel"))
        }
        try folder.write(Data([0x62, 0x70, 0x6C, 0x69]), to: "Current.momd/Current.mom")
        try folder.write("<plist version=\"1.0\"><dict><key>NSManagedObjectModel_CurrentVersionName</key><string>Later</string></dict></plist>", to: "Current.momd/VersionInfo.plist")
        expectModelError(code: NSFileReadNoSuchFileError, mentions: ["VersionInfo.plist", "'Later.mom' is not in the bundle"]) {
            _ = try NSManagedObjectModel.load(contentsOf: folder.url.appendingPathComponent("Current.momd"))
        }
    }

    @Test("The pre-Xcode 4 'elements' format and .omo files are reported as unsupported")
    func unsupportedFormats() throws {
        let folder = try TemporaryFolder()
        try folder.write(Data("bplist00".utf8), to: "Recipes.xcdatamodeld/Recipes.xcdatamodel/elements")
        try folder.write(Data("bplist00".utf8), to: "Recipes.xcdatamodeld/Recipes.xcdatamodel/layout")
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["Recipes.xcdatamodel", "legacy pre-Xcode 4 format", "not supported"]) {
            _ = try NSManagedObjectModel.load(contentsOf: folder.url.appendingPathComponent("Recipes.xcdatamodeld"))
        }
        let legacyArchive = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>$archiver</key><string>NSKeyedArchiver</string>
            <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
            <key>$objects</key><array>
                <string>$null</string>
                <dict><key>$class</key><dict><key>CF$UID</key><integer>2</integer></dict></dict>
                <dict><key>$classname</key><string>XDPMModel</string><key>$classes</key><array><string>XDPMModel</string><string>NSObject</string></array></dict>
            </array></dict></plist>
            """
        let elements = try folder.write(legacyArchive, to: "Old/elements")
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["legacy pre-Xcode 4 format (XDPMModel)"]) {
            _ = try NSManagedObjectModel.load(contentsOf: elements)
        }
        let omo = try folder.write(Data("momv2$".utf8), to: "Model.momd/Model.omo")
        expectModelError(code: NSFileReadCorruptFileError, mentions: [".omo", "not supported"]) {
            _ = try NSManagedObjectModel.load(contentsOf: omo)
        }
    }

    @Test("Archives: not a keyed archive, a root that is not a model, truncated .mom files", .enabled(if: ModelFixtures.enabled))
    func archives() throws {
        let folder = try TemporaryFolder()
        let notArchive = try folder.write("<plist version=\"1.0\"><array><string>x</string></array></plist>", to: "A.mom")
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["A.mom", "not a keyed archive"]) {
            _ = try NSManagedObjectModel.load(contentsOf: notArchive)
        }
        let arrayRoot = """
            <plist version="1.0"><dict>
            <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
            <key>$objects</key><array><string>$null</string>
                <dict><key>$class</key><dict><key>CF$UID</key><integer>2</integer></dict><key>NS.objects</key><array/></dict>
                <dict><key>$classname</key><string>NSArray</string></dict></array></dict></plist>
            """
        let wrongRoot = try folder.write(arrayRoot, to: "B.mom")
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["B.mom", "holds a NSArray, not an NSManagedObjectModel"]) {
            _ = try NSManagedObjectModel.load(contentsOf: wrongRoot)
        }
        let mom = try Data(contentsOf: try ModelFixtures.model("CoreDataPlus-2018/Tests/SampleModel.momd/SampleModel2.mom"))
        for length in stride(from: 0, to: mom.count, by: max(1, mom.count / 97)) {
            let truncated = try folder.write(mom.prefix(length), to: "Truncated\(length).mom")
            expectModelError(code: NSFileReadCorruptFileError, mentions: ["Truncated\(length).mom"]) {
                _ = try NSManagedObjectModel.load(contentsOf: truncated)
            }
        }
    }

    @Test("A model cache that is not a DEFLATE stream or not an archive")
    func modelCaches() throws {
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["Z_MODELCACHE", "DEFLATE"]) {
            _ = try NSManagedObjectModel.fromModelCache(Data([0xFF, 0xFF, 0xFF, 0x00, 0x12]))
        }
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["Z_MODELCACHE", "DEFLATE"]) {
            _ = try NSManagedObjectModel.fromModelCache(Data())
        }
        // "stored block test" as a valid stream of something that is not a property list.
        expectModelError(code: NSFileReadCorruptFileError, mentions: ["Z_MODELCACHE", "not a property list"]) {
            _ = try NSManagedObjectModel.fromModelCache(Data(base64Encoded: "AREA7v9zdG9yZWQgYmxvY2sgdGVzdA==")!)
        }
    }
}
