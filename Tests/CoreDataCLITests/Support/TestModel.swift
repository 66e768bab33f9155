import Testing
import Foundation

/// A small model written as Xcode's XML, with every attribute type, validation rules, a
/// uniqueness constraint, a required to-one, a bounded to-many and a many-to-many.
enum TestModel {
    static let xml = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="1">
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="age" optional="YES" attributeType="Integer 16" minValueString="0" maxValueString="150" usesScalarValueType="YES"/>
            <attribute name="email" optional="YES" attributeType="String" regularExpressionString="[^@ ]+@[^@ ]+"/>
            <attribute name="id" attributeType="UUID" usesScalarValueType="NO"/>
            <attribute name="name" attributeType="String" minValueString="2" maxValueString="20"/>
            <relationship name="books" optional="YES" toMany="YES" maxCount="3" deletionRule="Cascade" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="id"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="cover" optional="YES" attributeType="Binary"/>
            <attribute name="inPrint" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
            <attribute name="isbn" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="link" optional="YES" attributeType="URI"/>
            <attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            <attribute name="price" optional="YES" attributeType="Decimal"/>
            <attribute name="published" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="rating" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <attribute name="title" attributeType="String"/>
            <attribute name="weight" optional="YES" attributeType="Float" usesScalarValueType="YES"/>
            <relationship name="author" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
        </entity>
    </model>
    """

    /// Writes the model as `Library.xcdatamodel/contents` in a new folder and returns the bundle's path.
    /// The model written to a file and a store `coredata import` made from `export` with it.
    static func importedLibrary() throws -> (model: String, store: String) {
        let model = try write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let file = TemporaryFiles.folder().appendingPathComponent("import.json")
        try Data(export.utf8).write(to: file)
        let imported = Harness.run(["import", store, file.path, "--model", model])
        #expect(imported.exitCode == 0, "\(imported.err)")
        return (model, store)
    }

    static func write() throws -> String {
        let bundle = TemporaryFiles.folder().appendingPathComponent("Library.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: bundle.appendingPathComponent("contents"))
        return bundle.path
    }

    /// An export file with every attribute type, written by hand as another tool would.
    static let export = """
    {
      "format": "coredata-export",
      "version": 1,
      "objects": {
        "x-coredata://SOURCE/Author/p1": {"entity": "Author", "attributes": {"name": "Ursula", "age": 88, "email": "ursula@example.org", "id": "6F9619FF-8B86-D011-B42D-00C04FC964FF"}, "relationships": {"books": ["x-coredata://SOURCE/Book/p1", "x-coredata://SOURCE/Book/p2"]}},
        "x-coredata://SOURCE/Author/p2": {"entity": "Author", "attributes": {"name": "Stanisław", "id": "0E984725-C51C-4BF4-9960-E1C80E27ABA0"}},
        "x-coredata://SOURCE/Book/p1": {"entity": "Book", "attributes": {"title": "The Dispossessed", "pages": 387, "isbn": 9223372036854775807, "price": "12.345678901234567890", "published": "1974-05-01T10:20:30.123456Z", "rating": 4.7, "weight": 0.1, "inPrint": true, "cover": "AAEC/w==", "link": "https://example.org/dispossessed?x=1"}, "relationships": {"author": "x-coredata://SOURCE/Author/p1", "tags": ["x-coredata://SOURCE/Tag/p1", "x-coredata://SOURCE/Tag/p2"]}},
        "x-coredata://SOURCE/Book/p2": {"entity": "Book", "attributes": {"title": "Lathe of Heaven — \\"1971\\"", "published": "1971-01-01T00:00:00Z", "inPrint": false, "rating": -1e-7}, "relationships": {"author": "x-coredata://SOURCE/Author/p1", "tags": ["x-coredata://SOURCE/Tag/p2"]}},
        "x-coredata://SOURCE/Book/p3": {"entity": "Book", "attributes": {"title": "Solaris"}, "relationships": {"author": "x-coredata://SOURCE/Author/p2"}},
        "x-coredata://SOURCE/Tag/p1": {"entity": "Tag", "attributes": {"name": "anarchism"}},
        "x-coredata://SOURCE/Tag/p2": {"entity": "Tag", "attributes": {"name": "classic"}}
      }
    }
    """
}
