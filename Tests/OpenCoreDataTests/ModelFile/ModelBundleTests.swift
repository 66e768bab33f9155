import Foundation
import Testing
@testable import OpenCoreData

/// Versioned bundles, finding models in bundles, merging, templates and the container's lookup.
@Suite("Model bundles and lookup")
struct ModelBundleTests {
    @Test("A versioned bundle with spaces in version names loads the .xccurrentversion version")
    func versionedBundle() throws {
        let folder = try TemporaryFolder()
        let older = ModelXML.model(#"<entity name="Author"><attribute name="name" optional="YES" attributeType="String"/></entity>"#)
        let bundle = try ModelXML.writeBundle(in: folder, name: "Library", versions: ["Library": older, "Library 2": ModelXML.authorBook],
                                              current: "Library 2.xcdatamodel")
        let model = try NSManagedObjectModel.load(contentsOf: bundle)
        #expect(model.entities.compactMap(\.name) == ["Author", "Book"])
        let versions = try ModelBundle(url: bundle)
        #expect(versions.versions.map(\.name) == ["Library", "Library 2"] && versions.currentVersionName == "Library 2")
        #expect(ModelLocator.versionURLs(of: bundle).map(\.lastPathComponent) == ["Library 2.xcdatamodel", "Library.xcdatamodel"])
        let checksums = try NSManagedObjectModel.checksumsForVersionedModel(at: bundle)
        #expect(checksums["Library 2"] == model.versionChecksum && checksums.count == 2)

        let single = try ModelXML.writeBundle(in: folder, name: "Single", versions: ["Only One": older], current: nil)
        #expect(try NSManagedObjectModel.load(contentsOf: single).entities.count == 1)
        #expect(NSManagedObjectModel(contentsOf: single)?.entitiesByName["Author"] != nil)
    }

    @Test("XML details: validation rules, class names, optional fetch request flags")
    func xmlDetails() throws {
        let folder = try TemporaryFolder()
        let url = try folder.write(ModelXML.authorBook, to: "Library.xcdatamodel/contents")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let title = try #require(model.entitiesByName["Book"]?.attributesByName["title"])
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 1", "length <= 80", #"SELF MATCHES "[A-Z].*'s""#])
        #expect(!title.isOptional)
        #expect(model.entitiesByName["Author"]?.relationshipsByName["books"]?.deleteRule == .cascadeDeleteRule)
    }

    @Test("fetchRequestFromTemplate copies the template and keeps the substitution variables")
    func fetchRequestFromTemplate() throws {
        let folder = try TemporaryFolder()
        let model = try NSManagedObjectModel.load(contentsOf: try folder.write(ModelXML.authorBook, to: "L.xcdatamodel/contents"))
        let template = try #require(model.fetchRequestTemplate(forName: "booksByTitle"))
        let request = try #require(model.fetchRequestFromTemplate(withName: "booksByTitle", substitutionVariables: ["TITLE": "Dune"]))
        #expect(request !== template && request.entity === model.entitiesByName["Book"] && request.entityName == "Book")
        #expect(template.predicate?.predicateFormat == "title == $TITLE", "the template itself is unchanged")
        #expect(request.predicate?.predicateFormat == #"title == "Dune""#)
        #expect(request.predicate?.evaluate(with: ["title": "Dune"]) == true)
        #expect(request.predicate?.evaluate(with: ["title": "Emma"]) == false)
        #expect(model.fetchRequestFromTemplate(withName: "missing", substitutionVariables: [:]) == nil)
    }

    @Test("mergedModel(from:) merges every model in a bundle and refuses duplicate entities")
    func mergedModel() throws {
        let folder = try TemporaryFolder()
        try folder.write(ModelXML.authorBook, to: "Library.xcdatamodel/contents")
        try folder.write(ModelXML.model(#"<entity name="Shelf"><attribute name="label" attributeType="String"/></entity>"#), to: "Shelves.xcdatamodeld/Shelves.xcdatamodel/contents")
        let bundle = try #require(Bundle(url: folder.url))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(merged.entities.compactMap(\.name).sorted() == ["Author", "Book", "Shelf"])

        try folder.write(ModelXML.model(#"<entity name="Book"/>"#), to: "Duplicate.xcdatamodel/contents")
        #expect(NSManagedObjectModel.mergedModel(from: [bundle]) == nil)

        let empty = try TemporaryFolder()
        #expect(NSManagedObjectModel.mergedModel(from: [try #require(Bundle(url: empty.url))]) == nil)
    }

    @Test("mergedModel(from:forStoreMetadata:) finds the version a store was made with", .enabled(if: ModelFixtures.enabled))
    func mergedModelForStoreMetadata() throws {
        let folder = try TemporaryFolder()
        try folder.copy(try ModelFixtures.model("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"), to: "SampleModel.xcdatamodeld")
        let bundle = try #require(Bundle(url: folder.url))
        let (metadata, _) = try ModelFixtures.storeContents(try ModelFixtures.store("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite"))
        let model = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata))
        #expect(model.entitiesByName["LuxuryCar"] != nil, "SampleModel2 renamed ExpensiveSportCar to LuxuryCar")
        #expect(model.entityVersionHashesByName == NSManagedObjectModel.storeHashes(in: metadata))
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: ["NSStoreModelVersionHashes": ["Car": Data([1])]]) == nil)

        let version2 = try NSManagedObjectModel.load(contentsOf: folder.url.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"))
        #expect(NSManagedObjectModel(byMerging: [version2], forStoreMetadata: metadata) != nil)
        let version1 = try NSManagedObjectModel.load(contentsOf: folder.url.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
        #expect(NSManagedObjectModel(byMerging: [version1], forStoreMetadata: metadata) == nil)
    }

    @Test("NSPersistentContainer finds <name>.xcdatamodeld or <name>.momd, and lists where it looked when it can't")
    func containerLookup() throws {
        let folder = try TemporaryFolder()
        try ModelXML.writeBundle(in: folder, name: "Library", versions: ["Library": ModelXML.authorBook], current: "Library.xcdatamodel")
        let bundle = try #require(Bundle(url: folder.url))
        let container = try NSPersistentContainer(loadingModelNamed: "Library", in: [bundle])
        #expect(container.name == "Library")
        #expect(container.managedObjectModel.entities.compactMap(\.name) == ["Author", "Book"])

        let error = expectModelError(code: NSFileReadNoSuchFileError, mentions: ["'Missing'", "Missing.momd", "Missing.xcdatamodeld", folder.url.standardizedFileURL.path]) {
            _ = try NSPersistentContainer(loadingModelNamed: "Missing", in: [bundle])
        }
        #expect((error?.userInfo["OCDSearchedPaths"] as? [String])?.contains(folder.url.standardizedFileURL.appendingPathComponent("Missing.momd").path) == true)

        let defaultFolders = ModelLocator.searchFolders(bundles: nil)
        #expect(defaultFolders.contains(Bundle.main.bundleURL.standardizedFileURL))
    }

    @Test("A compiled model is preferred over its source of the same name", .enabled(if: ModelFixtures.enabled))
    func compiledPreferred() throws {
        let folder = try TemporaryFolder()
        try folder.copy(try ModelFixtures.model("CoreDataPlus-2018/Tests/SampleModel.momd"), to: "SampleModel.momd")
        try folder.write(ModelXML.model(#"<entity name="Other"/>"#), to: "SampleModel.xcdatamodeld/SampleModel.xcdatamodel/contents")
        let bundle = try #require(Bundle(url: folder.url))
        #expect(ModelLocator.modelURLs(in: [bundle]).map(\.lastPathComponent) == ["SampleModel.momd"])
        let container = try NSPersistentContainer(loadingModelNamed: "SampleModel", in: [bundle])
        #expect(container.managedObjectModel.entitiesByName["Car"] != nil)
    }
}
