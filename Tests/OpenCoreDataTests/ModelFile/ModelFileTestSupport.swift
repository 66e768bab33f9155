import Foundation
import Testing
@testable import OpenCoreData

/// A temporary folder for one test, removed when the value is released.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ModelFileTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes text to a path inside the folder, creating intermediate folders.
    @discardableResult
    func write(_ text: String, to path: String) throws -> URL {
        try write(Data(text.utf8), to: path)
    }

    /// Writes data to a path inside the folder, creating intermediate folders.
    @discardableResult
    func write(_ data: Data, to path: String) throws -> URL {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }

    /// Copies a file or folder into the folder.
    @discardableResult
    func copy(_ source: URL, to path: String) throws -> URL {
        let destination = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: destination)
        return destination
    }
}

/// Small model XML documents for tests.
enum ModelXML {
    /// A `<model>` document around some entity XML.
    static func model(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
        \(body)
        </model>
        """
    }

    /// Two entities with a to-many/to-one pair, as Xcode writes them.
    static let authorBook = model("""
        <entity name="Author" representedClassName="Author">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book">
            <attribute name="title" attributeType="String" minValueString="1" maxValueString="80" regularExpressionString="[A-Z].*'s"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        <fetchRequest name="booksByTitle" entity="Book" predicateString="title == $TITLE"/>
        """)

    /// Writes an `.xcdatamodeld` bundle with the given versions (name → XML) and current version.
    @discardableResult
    static func writeBundle(in folder: TemporaryFolder, name: String, versions: [String: String], current: String?) throws -> URL {
        let bundle = "\(name).xcdatamodeld"
        for (version, xml) in versions {
            try folder.write(xml, to: "\(bundle)/\(version).xcdatamodel/contents")
        }
        if let current {
            try folder.write(currentVersionPlist(current), to: "\(bundle)/.xccurrentversion")
        }
        return folder.url.appendingPathComponent(bundle)
    }

    static func currentVersionPlist(_ name: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>_XCCurrentVersionName</key>
            <string>\(name)</string>
        </dict>
        </plist>
        """
    }
}

/// Expects model loading to throw an `NSCocoaErrorDomain` error with a code whose description
/// contains every fragment.
@discardableResult
func expectModelError(code: Int, mentions fragments: [String], sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: () throws -> Void) -> NSError? {
    do {
        try body()
        Issue.record("expected an error with code \(code)", sourceLocation: sourceLocation)
        return nil
    } catch let error as NSError {
        #expect(error.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error.code == code, "\(error.localizedDescription)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(error.localizedDescription.contains(fragment), "'\(fragment)' in: \(error.localizedDescription)", sourceLocation: sourceLocation)
        }
        return error
    }
}
