import Foundation
import Testing
@testable import OpenCoreData

/// Compiled models (.momd/.mom) and store model caches decode to the same model as their Xcode source.
@Suite("Compiled model fixtures", .enabled(if: ModelFixtures.enabled, "shared/fixtures is missing"))
struct CompiledModelFixtureTests {
    @Test("Every .mom version equals its .xcdatamodel source: entities, properties, settings, hashes",
          arguments: ModelFixtures.compiledModels.map(\.momd))
    func momEqualsSource(momd: String) throws {
        let root = try ModelFixtures.require()
        let pair = try #require(ModelFixtures.compiledModels.first { $0.momd == momd })
        let bundle = try ModelBundle(url: root.appendingPathComponent(pair.momd))
        #expect(bundle.versions.count >= 3)
        for version in bundle.versions {
            let compiled = try NSManagedObjectModel.load(contentsOf: version.url)
            let source = try NSManagedObjectModel.load(contentsOf: root.appendingPathComponent(pair.source).appendingPathComponent("\(version.name).xcdatamodel"))
            #expect(summaryDifference(compiled.persistentSummary, source.persistentSummary) == [], "\(version.name)")
            #expect(compiled.versionIdentifiers == source.versionIdentifiers, "\(version.name)")
        }
    }

    @Test("A .momd loads its current version (VersionInfo.plist), as Apple's init(contentsOf:)",
          arguments: ModelFixtures.compiledModels.map(\.momd))
    func momdCurrentVersion(momd: String) throws {
        let root = try ModelFixtures.require()
        let url = root.appendingPathComponent(momd)
        let info = try VersionInfo(url: url.appendingPathComponent("VersionInfo.plist"))
        let current = try #require(info.currentVersionName)
        let model = try #require(NSManagedObjectModel(contentsOf: url))
        #expect(model.entityVersionHashesByName == info.versionHashes[current])
    }

    @Test("A store's model cache equals the .xcdatamodel it was created with",
          arguments: ModelFixtures.storePairs.map(\.store))
    func modelCacheEqualsSource(store: String) throws {
        let pair = try #require(ModelFixtures.storePairs.first { $0.store == store })
        let (_, cache) = try ModelFixtures.storeContents(try ModelFixtures.store(store))
        let cached = try NSManagedObjectModel.fromModelCache(try #require(cache))
        let source = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model(pair.model))
        // Some stores' caches record every class as NSManagedObject (CoreDataPlus-2018, wibosco).
        #expect(summaryDifference(cached.summary(includeClassNames: false), source.summary(includeClassNames: false)) == [])
    }

    @Test("A programmatic model's cache keeps derived attributes, fetched properties, validation and configurations")
    func programmaticModelCache() throws {
        let (_, cache) = try ModelFixtures.storeContents(try ModelFixtures.store("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite"))
        let model = try NSManagedObjectModel.fromModelCache(try #require(cache))
        #expect(model.entities.compactMap(\.name) == ["Author", "Book", "Feedback", "GraphicNovel", "Page", "Writer"])
        let book = try #require(model.entitiesByName["Book"])
        let graphicNovel = try #require(model.entitiesByName["GraphicNovel"])
        #expect(graphicNovel.superentity === book && graphicNovel.ownProperties.map(\.name) == ["isBlackAndWhite"])
        let pagesCount = try #require(book.attributesByName["pagesCount"] as? NSDerivedAttributeDescription)
        #expect(pagesCount.derivationExpression?.description == "count:(pages)" && pagesCount.isReadOnly)
        let title = try #require(book.attributesByName["title"])
        #expect(!title.isOptional)
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 3 AND length <= 50", "SELF CONTAINS \"title\""])
        #expect(title.validationWarnings.compactMap { $0 as? String } == ["Title must have a length between 3 and 50 chars.", "Title must contain 'title'."])
        let pages = try #require(book.relationshipsByName["pages"])
        #expect(pages.minCount == 1 && pages.maxCount == 10000 && pages.deleteRule == .cascadeDeleteRule)
        let author = try #require(model.entitiesByName["Author"])
        #expect(author.superentity?.name == "Writer" && author.superentity?.isAbstract == true)
        #expect(author.relationshipsByName["books"]?.maxCount == Int.max)
        let feedbacks = try #require(author.propertiesByName["feedbacks"] as? NSFetchedPropertyDescription)
        #expect(feedbacks.fetchRequest?.entityName == "Feedback")
        #expect(feedbacks.fetchRequest?.predicate?.predicateFormat == "authorAlias == $FETCH_SOURCE.alias")
        let favourites = try #require(author.propertiesByName["favFeedbacks"] as? NSFetchedPropertyDescription)
        #expect(favourites.fetchRequest?.predicate?.predicateFormat == "authorAlias == $FETCH_SOURCE.alias AND comment CONTAINS[c] $FETCHED_PROPERTY.userInfo.search")
        #expect(favourites.userInfo?["search"] as? String == "great")
        #expect(author.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["alias"]])
        #expect(model.configurations == ["SampleConfigurationV1"])
        #expect(model.entities(forConfigurationName: "SampleConfigurationV1")?.count == 6)
        #expect(graphicNovel.attributesByName["isBlackAndWhite"]?.defaultValue as? NSNumber == NSNumber(value: false))
    }
}
