import Foundation
import Testing
@testable import OpenCoreData

/// Compiling model source to `.momd`/`.mom` as Xcode's `momc` does (issue 38 point 2): the build
/// plugin and `coredata model compile` use it so `Bundle.module.url(forResource:withExtension:
/// "momd")` and `NSManagedObjectModel(contentsOf:)` work on Linux.
@Suite("Model compiling")
struct ModelCompilerTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Every `.xcdatamodeld` under the fixtures' `models/`.
    static func fixtureBundles() throws -> [URL] {
        let models = try ModelFixtures.require().appendingPathComponent("models")
        var found: [URL] = []
        guard let enumerator = FileManager.default.enumerator(at: models, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in enumerator where url.pathExtension == "xcdatamodeld" {
            found.append(url)
            enumerator.skipDescendants()
        }
        return found.sorted { $0.path < $1.path }
    }

    /// Expects a compiled `.momd` to hold every version of `source` with the same model.
    static func expectSameVersions(_ source: URL, _ compiled: URL) throws {
        let sourceBundle = try ModelBundle(url: source)
        let compiledBundle = try ModelBundle(url: compiled)
        #expect(compiledBundle.versions.map(\.name) == sourceBundle.versions.map(\.name), "\(source.path)")
        #expect(compiledBundle.currentVersionName == sourceBundle.currentVersionName, "\(source.path)")
        let info = try VersionInfo(url: compiled.appendingPathComponent("VersionInfo.plist"))
        for version in sourceBundle.versions {
            let original = try NSManagedObjectModel.load(contentsOf: version.url)
            let read = try NSManagedObjectModel.load(contentsOf: compiled.appendingPathComponent("\(version.name).mom"))
            #expect(read.entityVersionHashesByName == original.entityVersionHashesByName, "\(version.url.path)")
            let difference = summaryDifference(ModelCacheWriteTests.details(original), ModelCacheWriteTests.details(read))
            #expect(difference.isEmpty, "\(version.url.path):\n\(difference.joined(separator: "\n"))")
            #expect(info.versionHashes[version.name] == original.entityVersionHashesByName, "\(version.url.path)")
            #expect(info.versionChecksums[version.name] == original.versionChecksum, "\(version.url.path)")
        }
        let current = try #require(NSManagedObjectModel(contentsOf: compiled))
        #expect(current.entityVersionHashesByName == (try NSManagedObjectModel.load(contentsOf: source)).entityVersionHashesByName)
    }

    @Test("Every fixture .xcdatamodeld compiles to a .momd with each version, its hashes and checksums, and the current version",
          .enabled(if: ModelFixtures.enabled, "shared/fixtures is missing"))
    func fixtureBundlesCompile() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var compiled = 0
        for (index, source) in try Self.fixtureBundles().enumerated() {
            // A few fixture models are deliberately invalid or legacy: those must fail, and write nothing.
            let loads = (try? ModelBundle(url: source).versions.allSatisfy { (try? NSManagedObjectModel.load(contentsOf: $0.url)) != nil }) ?? false
            let destination = folder.appendingPathComponent("\(index)").appendingPathComponent(ModelCompiler.compiledName(of: source))
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard loads else {
                #expect(throws: NSError.self) { try ModelCompiler.compile(source, to: destination) }
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                continue
            }
            try ModelCompiler.compile(source, to: destination)
            try Self.expectSameVersions(source, destination)
            compiled += 1
        }
        #expect(compiled >= 12)
    }

    @Test("The version hashes and checksums in VersionInfo.plist are the ones Xcode's momc wrote",
          .enabled(if: ModelFixtures.enabled, "shared/fixtures is missing"))
    func sameVersionInfoAsXcode() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try ModelFixtures.require()
        for pair in ModelFixtures.compiledModels {
            let destination = folder.appendingPathComponent(UUID().uuidString + ".momd")
            try ModelCompiler.compile(root.appendingPathComponent(pair.source), to: destination)
            let ours = try VersionInfo(url: destination.appendingPathComponent("VersionInfo.plist"))
            let xcode = try VersionInfo(url: root.appendingPathComponent(pair.momd).appendingPathComponent("VersionInfo.plist"))
            #expect(ours.currentVersionName == xcode.currentVersionName, "\(pair.momd)")
            for (version, hashes) in xcode.versionHashes {
                #expect(ours.versionHashes[version] == hashes, "\(pair.momd) \(version)")
            }
            for (version, checksum) in xcode.versionChecksums {
                #expect(ours.versionChecksums[version] == checksum, "\(pair.momd) \(version)")
            }
            #expect(try NSManagedObjectModel.checksumsForVersionedModel(at: destination)
                    == NSManagedObjectModel.checksumsForVersionedModel(at: root.appendingPathComponent(pair.momd)))
        }
    }

    @Test("A lone .xcdatamodel compiles to a .mom file that NSManagedObjectModel(contentsOf:) reads")
    func loneVersion() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Item" representedClassName="Item">
                    <attribute name="name" attributeType="String" minValueString="1" defaultValueString="new"/>
                    <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
                    <relationship name="tags" toMany="YES" deletionRule="Cascade" destinationEntity="Tag" inverseName="item"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
                <entity name="Tag">
                    <attribute name="label" attributeType="String"/>
                    <relationship name="item" maxCount="1" destinationEntity="Item" inverseName="tags"/>
                </entity>
            </model>
            """.utf8).write(to: source.appendingPathComponent("contents"))
        #expect(ModelCompiler.compiledName(of: source) == "Shop.mom")
        let destination = folder.appendingPathComponent("Shop.mom")
        try ModelCompiler.compile(source, to: destination)
        let original = try NSManagedObjectModel.load(contentsOf: source)
        let read = try #require(NSManagedObjectModel(contentsOf: destination))
        #expect(read.entityVersionHashesByName == original.entityVersionHashesByName)
        #expect(summaryDifference(ModelCacheWriteTests.details(original), ModelCacheWriteTests.details(read)).isEmpty)
    }

    @Test("A bundle with a version that doesn't load fails naming it, and leaves an existing .momd as it was")
    func failedCompileWritesNothing() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Notes.xcdatamodeld")
        let good = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>
            </model>
            """
        for version in ["Notes", "Notes 2"] {
            let url = source.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data(good.utf8).write(to: url.appendingPathComponent("contents"))
        }
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>\
            <key>_XCCurrentVersionName</key><string>Notes 2.xcdatamodel</string></dict></plist>
            """.utf8).write(to: source.appendingPathComponent(".xccurrentversion"))
        let destination = folder.appendingPathComponent("Notes.momd")
        try ModelCompiler.compile(source, to: destination)
        let before = try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted()
        #expect(before == ["Notes 2.mom", "Notes.mom", "VersionInfo.plist"])
        let info = try FileManager.default.attributesOfItem(atPath: destination.appendingPathComponent("Notes.mom").path)

        // Compiling again with nothing changed leaves the files in place.
        try ModelCompiler.compile(source, to: destination)
        let again = try FileManager.default.attributesOfItem(atPath: destination.appendingPathComponent("Notes.mom").path)
        #expect(again[.systemFileNumber] as? Int == info[.systemFileNumber] as? Int)

        // A damaged version: an error naming its file, and the old output untouched.
        try Data("<model><entity name=\"Note\"><attribute name=\"text\" attributeType=\"Nonsense\"/></entity></model>".utf8)
            .write(to: source.appendingPathComponent("Notes.xcdatamodel/contents"))
        do {
            try ModelCompiler.compile(source, to: destination)
            Issue.record("a damaged version compiled")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect("\(error.userInfo)".contains("Notes.xcdatamodel"), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted() == before)
        let after = try FileManager.default.attributesOfItem(atPath: destination.appendingPathComponent("Notes.mom").path)
        #expect(after[.systemFileNumber] as? Int == info[.systemFileNumber] as? Int)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["Notes.momd", "Notes.xcdatamodeld"])
    }
}
