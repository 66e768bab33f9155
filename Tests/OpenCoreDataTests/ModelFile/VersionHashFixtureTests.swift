import Foundation
import Testing
@testable import OpenCoreData

/// Apple's version hashes, reproduced from every store and compiled model Apple wrote in
/// shared/fixtures (formats.md §4).
@Suite("Version hashes against Apple's fixtures", .enabled(if: ModelFixtures.enabled, "shared/fixtures is missing"))
struct VersionHashFixtureTests {
    @Test("A store's source model reproduces its NSStoreModelVersionHashes, digest and checksum",
          arguments: ModelFixtures.storePairs.map(\.store))
    func storeHashesFromSourceModel(store: String) throws {
        let pair = try #require(ModelFixtures.storePairs.first { $0.store == store })
        let model = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model(pair.model))
        let (metadata, _) = try ModelFixtures.storeContents(try ModelFixtures.store(pair.store))
        let storeHashes = try #require(NSManagedObjectModel.storeHashes(in: metadata))
        #expect(model.entityVersionHashesByName.mapValues(\.hex) == storeHashes.mapValues(\.hex))
        if let digest = metadata["NSStoreModelVersionHashesDigest"] as? String {
            #expect(VersionHasher.digest(of: model.entityVersionHashesByName) == digest)
        }
        if let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String {
            #expect(model.versionChecksum == checksum)
        }
        if let identifiers = metadata["NSStoreModelVersionIdentifiers"] as? [String] {
            #expect(Set(model.versionIdentifiers.compactMap { $0 as? String }) == Set(identifiers))
        }
    }

    @Test("Every VersionInfo.plist hash and checksum is reproduced from the .xcdatamodel source and from the .mom",
          arguments: ModelFixtures.compiledModels.map(\.momd))
    func versionInfoHashes(momd: String) throws {
        let root = try ModelFixtures.require()
        let pair = try #require(ModelFixtures.compiledModels.first { $0.momd == momd })
        let momdURL = root.appendingPathComponent(pair.momd)
        let info = try VersionInfo(url: momdURL.appendingPathComponent("VersionInfo.plist"))
        #expect(!info.versionHashes.isEmpty)
        for (version, recorded) in info.versionHashes {
            let source = try NSManagedObjectModel.load(contentsOf: root.appendingPathComponent(pair.source).appendingPathComponent("\(version).xcdatamodel"))
            let compiled = try NSManagedObjectModel.load(contentsOf: momdURL.appendingPathComponent("\(version).mom"))
            #expect(source.entityVersionHashesByName.mapValues(\.hex) == recorded.mapValues(\.hex), "source \(version)")
            #expect(compiled.entityVersionHashesByName.mapValues(\.hex) == recorded.mapValues(\.hex), "compiled \(version)")
            if let checksum = info.versionChecksums[version] {
                #expect(source.versionChecksum == checksum, "checksum \(version)")
            }
        }
        let checksums = try NSManagedObjectModel.checksumsForVersionedModel(at: momdURL)
        #expect(Set(checksums.keys) == Set(info.versionHashes.keys))
    }

    @Test("Every store's Z_MODELCACHE decodes to a model whose hashes match the store metadata",
          arguments: ModelFixtures.allStores)
    func modelCacheHashes(store: String) throws {
        let (metadata, cache) = try ModelFixtures.storeContents(try ModelFixtures.store(store))
        let blob = try #require(cache, "the store has no Z_MODELCACHE")
        let model = try NSManagedObjectModel.fromModelCache(blob)
        let storeHashes = try #require(NSManagedObjectModel.storeHashes(in: metadata))
        #expect(Set(model.entitiesByName.keys) == Set(storeHashes.keys))
        let computed = model.entityVersionHashesByName
        for name in storeHashes.keys.sorted() {
            if VersionHashKnownGaps.unverifiedEntities[store]?.contains(name) == true {
                withKnownIssue("formats.md §4: derived attribute + Decimal + transformable default in CoreDataPlus SampleModel2 \(name) is not reproduced yet") {
                    #expect(computed[name]?.hex == storeHashes[name]?.hex)
                }
            } else {
                #expect(computed[name]?.hex == storeHashes[name]?.hex, "\(store) \(name)")
            }
        }
    }

    @Test("The seed apps' predicted hashes (no Apple store to confirm them)")
    func seedModelHashes() throws {
        let todo = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("arnosolo-blog/demo5_todo_list.xcdatamodeld"))
        #expect(todo.entitiesByName["LocationEntity"]?.versionHash.hex == "d589b1339c5b991ddeba0ad4edd7e5d390963a8d8cccdfcea7864bb99fb90861")
        #expect(todo.entitiesByName["TagEntity"]?.versionHash.hex == "da179a75bc3100d06a837df737ea8b9f3e4f7f4780ff43e01b8a137b011e8db2")
        #expect(todo.entitiesByName["TodoEntity"]?.versionHash.hex == "3f0d2ae43b9e3362fb6dc8e8a82e46c1a8697824f1adff52745364f31abcdc2f")
        #expect(todo.versionChecksum == "f5KxjVE3FcFH7k3d+Xessy86woB4UiVzMNnE0scM8fc=")
        let carolane = try NSManagedObjectModel.load(contentsOf: try ModelFixtures.model("CarolaneLFBV-Tutorials/CoreDataExample.xcdatamodeld"))
        #expect(carolane.entitiesByName["Todo"]?.versionHash.hex == "ce9ab53d06a3a7d1452ef8e48b17b6e0d51e5e8974f9ca999ac1ad59e45d3895")
    }
}

/// Entity hashes no fixture lets us reproduce yet; see docs/ModelFiles.md, "Version hashes".
enum VersionHashKnownGaps {
    /// By store: the entities whose recorded hash the hasher does not reproduce.
    static let unverifiedEntities: [String: Set<String>] = [
        "CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite": ["Book", "GraphicNovel"],
        "CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite": ["Book", "GraphicNovel"],
    ]
}
