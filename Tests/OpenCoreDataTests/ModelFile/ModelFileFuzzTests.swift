import Foundation
import Testing
@testable import OpenCoreData

/// Deterministic fuzzing of every model file parser: mutated XML, truncated and corrupted keyed
/// archives, mutated archive object graphs and damaged DEFLATE streams. Each input must load or
/// throw an `NSError`; a crash fails the whole test run.
@Suite("Model file fuzzing")
struct ModelFileFuzzTests {
    /// SplitMix64: a small, seedable generator, so a failure reproduces exactly.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One random edit: flip, replace, insert, delete, duplicate or truncate.
    static func mutate(_ input: [UInt8], using random: inout SplitMix64, alphabet: [UInt8]) -> [UInt8] {
        var bytes = input
        let edits = Int.random(in: 1...4, using: &random)
        for _ in 0..<edits {
            guard !bytes.isEmpty else { return alphabet.shuffled(using: &random) }
            let position = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 1: bytes[position] = alphabet.randomElement(using: &random)!
            case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: position)
            case 3: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...64, using: &random)))
            case 4:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &random))
            default: bytes.removeSubrange(position...)
            }
        }
        return bytes
    }

    /// Loads model data; only an `NSError` may come out. A loaded model's hashes are computed too.
    static func survive(_ data: Data, hashing: Bool = true) {
        let model = NSManagedObjectModel()
        do {
            try ModelFileLoader.load(data, url: nil, into: model)
            if hashing { _ = model.entityVersionHashesByName }
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
        }
    }

    static let xmlAlphabet = Array("<>/=\"' &;!?-YESNO0123456789abcdefghijklmnopqrstuvwxyzABCDEF\n\t".utf8)

    static let sampleXML = [
        ModelXML.authorBook,
        ModelXML.model("""
            <entity name="Vehicle" isAbstract="YES"><attribute name="wheels" attributeType="Integer 16" minValueString="0" maxValueString="18" defaultValueString="4"/></entity>
            <entity name="Car" parentEntity="Vehicle" elementID="Auto" versionHashModifier="2">
                <attribute name="made" optional="YES" attributeType="Date" defaultDateTimeInterval="388411200" minDateTimeInterval="0"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="1.5"/>
                <attribute name="id" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F" preserveAfterDeletion="YES"/>
                <attribute name="home" optional="YES" attributeType="URI"/>
                <attribute name="count" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="parts.@count"/>
                <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
                <relationship name="parts" optional="YES" toMany="YES" ordered="YES" minCount="1" maxCount="9" deletionRule="Deny" destinationEntity="Car"/>
                <fetchedProperty name="similar" optional="YES"><fetchRequest name="f" entity="Car" predicateString="wheels == $FETCH_SOURCE.wheels"/></fetchedProperty>
                <uniquenessConstraints><uniquenessConstraint><constraint value="id"/></uniquenessConstraint></uniquenessConstraints>
                <fetchIndex name="byMade"><fetchIndexElement property="made" type="Binary" order="descending"/></fetchIndex>
                <compoundIndexes><compoundIndex><index value="made"/><index value="price"/></compoundIndex></compoundIndexes>
                <userInfo><entry key="k" value="v"/></userInfo>
            </entity>
            <composite name="Address"><attribute name="street" optional="YES" attributeType="String"/></composite>
            <configuration name="Main"><memberEntity name="Car"/></configuration>
            """),
    ]

    // MARK: - Fuzz targets (docs/Fuzzing.md, "Models")

    /// Inputs per fuzz target: `OCD_FUZZ_COUNT` when set, else `fallback`.
    static func fuzzCount(_ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment["OCD_FUZZ_COUNT"].flatMap(Int.init).map { max(1, $0) } ?? fallback
    }

    /// Runs one input and reports it when it takes more than two seconds (a hang, not a
    /// benchmark: inputs are a few kilobytes and load in about a millisecond).
    static func survive(_ data: Data, hashing: Bool = true, hangs: inout [Int], index: Int) {
        let clock = ContinuousClock()
        let start = clock.now
        survive(data, hashing: hashing)
        if clock.now - start > .seconds(2) { hangs.append(index) }
    }

    @Test("XML model fuzz target: mutated XML models load or throw an NSError, none hangs")
    func mutatedXML() throws {
        // The built-in samples alone, with or without the fixtures, so CI replays the sequence a
        // fresh clone runs: it reaches `<?target?>`, which crashed XMLParser (issue 30, point 7).
        var hangs = Self.fuzzXML(Self.sampleXML.map { Array($0.utf8) }, seed: 0x5EED_0001, count: Self.fuzzCount(20_000))
        if let root = ModelFixtures.root {
            var sources: [[UInt8]] = []
            for path in ["momcom/momcomTests/momcomTests.xcdatamodeld/momcTests 2.xcdatamodel/contents",
                         "CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel/contents",
                         "MomXML/Tests/Model.xcdatamodeld/Model.xcdatamodel/contents",
                         "mogenerator/test/test.xcdatamodel/contents"] {
                if let data = try? Data(contentsOf: root.appendingPathComponent("models").appendingPathComponent(path)) { sources.append([UInt8](data)) }
            }
            if !sources.isEmpty { hangs += Self.fuzzXML(sources, seed: 0x5EED_0006, count: Self.fuzzCount(20_000) / 2) }
        }
        #expect(hangs.isEmpty, "inputs over 2 s: \(hangs.prefix(10))")
    }

    /// Runs `count` mutations of the sources in turn; returns the indexes of inputs that hung.
    static func fuzzXML(_ sources: [[UInt8]], seed: UInt64, count: Int) -> [Int] {
        var random = SplitMix64(state: seed)
        var hangs: [Int] = []
        // 20,000 inputs (the CI count) take about 8 s in a debug `swift test`; OCD_FUZZ_COUNT runs more.
        for index in 0..<count {
            let source = sources[index % sources.count]
            survive(Data(mutate(source, using: &random, alphabet: xmlAlphabet)), hangs: &hangs, index: index)
        }
        return hangs
    }

    @Test("Compiled model fuzz target: mutated archives and object graphs load or throw an NSError, none hangs",
          .enabled(if: ModelFixtures.enabled))
    func mutatedCompiledModels() throws {
        let root = try ModelFixtures.require()
        let archives = try ["models/CoreDataPlus-2018/Tests/SampleModel.momd/SampleModel3.mom",
                            "models/CoreDataPlus-2018/Tests/SampleModel.momd/SampleModel2.mom",
                            "stores/CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd/SampleModel.mom"]
            .map { try Data(contentsOf: root.appendingPathComponent($0)) }
        let plists = try archives.map { try #require(try PropertyListSerialization.propertyList(from: $0, options: [], format: nil) as? [String: Any]) }
        var random = SplitMix64(state: 0x5EED_0005)
        let alphabet = (0...255).map(UInt8.init)
        let strings: [Any] = ["", "x", String(repeating: "é", count: 3000), "NSManagedObject", "Integer 64", "\u{0}"]
        var hangs: [Int] = []
        // 20,000 inputs (the CI count) take about 10 s in a debug `swift test`; OCD_FUZZ_COUNT runs more.
        for index in 0..<Self.fuzzCount(20_000) {
            let which = index % archives.count
            // Three in four: a byte-level mutation, which the binary property-list reader meets
            // first. One in four: a mutated object graph, re-encoded, which reaches the model reader.
            guard index % 4 == 3 else {
                Self.survive(Data(Self.mutate([UInt8](archives[which]), using: &random, alphabet: alphabet)), hangs: &hangs, index: index)
                continue
            }
            var plist = plists[which]
            var objects = plist["$objects"] as? [Any] ?? []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let slot = Int.random(in: 0..<objects.count, using: &random)
                if var object = objects[slot] as? [String: Any], let key = object.keys.sorted().randomElement(using: &random) {
                    let replacements: [Any?] = [
                        nil, ["CF$UID": Int.random(in: -2...(objects.count + 2), using: &random)], strings.randomElement(using: &random)!,
                        NSNumber(value: Int.random(in: -3...3000, using: &random)), true, [Any](), ["CF$UID": slot],
                        [["CF$UID": Int.random(in: 0..<objects.count, using: &random)]],
                    ]
                    object[key] = replacements.randomElement(using: &random)!
                    objects[slot] = object
                } else if objects[slot] is String {
                    objects[slot] = strings.randomElement(using: &random)!
                }
            }
            plist["$objects"] = objects
            guard let data = try? PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0) else { continue }
            Self.survive(data, hangs: &hangs, index: index)
        }
        #expect(hangs.isEmpty, "inputs over 2 s: \(hangs.prefix(10))")
    }

    @Test("Truncated and byte-mutated keyed archives never crash the unarchiver", .enabled(if: ModelFixtures.enabled))
    func mutatedArchives() throws {
        let root = try ModelFixtures.require()
        let archives = try ["models/CoreDataPlus-2018/Tests/SampleModel.momd/SampleModel3.mom",
                            "stores/CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd/SampleModel.mom"]
            .map { [UInt8](try Data(contentsOf: root.appendingPathComponent($0))) }
        var random = SplitMix64(state: 0x5EED_0002)
        let alphabet = (0...255).map(UInt8.init)
        for archive in archives {
            for length in stride(from: 0, to: archive.count, by: 7) { Self.survive(Data(archive.prefix(length))) }
        }
        for index in 0..<1_000 {
            Self.survive(Data(Self.mutate(archives[index % archives.count], using: &random, alphabet: alphabet)))
        }
    }

    @Test("800 archives with a corrupted object graph (bad references, wrong types, missing keys) never crash", .enabled(if: ModelFixtures.enabled))
    func corruptedObjectGraphs() throws {
        let root = try ModelFixtures.require()
        let (_, cache) = try ModelFixtures.storeContents(root.appendingPathComponent("stores/CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite"))
        let archives = [try Inflate.decompress(try #require(cache)),
                        try Data(contentsOf: root.appendingPathComponent("models/CoreDataPlus-2018/Tests/SampleModel.momd/SampleModel2.mom"))]
        let plists = try archives.map { try #require(try PropertyListSerialization.propertyList(from: $0, options: [], format: nil) as? [String: Any]) }
        var random = SplitMix64(state: 0x5EED_0003)
        for index in 0..<800 {
            var plist = plists[index % plists.count]
            var objects = plist["$objects"] as? [Any] ?? []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let slot = Int.random(in: 0..<objects.count, using: &random)
                guard var object = objects[slot] as? [String: Any], let key = object.keys.sorted().randomElement(using: &random) else { continue }
                let replacements: [Any?] = [
                    nil,
                    ["CF$UID": Int.random(in: -2...(objects.count + 2), using: &random)],
                    "text", NSNumber(value: Int.random(in: -3...3000, using: &random)), true, [Any](),
                    ["CF$UID": slot],
                ]
                object[key] = replacements.randomElement(using: &random)!
                objects[slot] = object
            }
            plist["$objects"] = objects
            guard let data = try? PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0) else { continue }
            Self.survive(data, hashing: false)
        }
    }

    @Test("Truncated and mutated DEFLATE model caches never crash", .enabled(if: ModelFixtures.enabled))
    func mutatedModelCaches() throws {
        let root = try ModelFixtures.require()
        var caches: [[UInt8]] = []
        for store in ModelFixtures.allStores.prefix(4) {
            if let cache = try ModelFixtures.storeContents(root.appendingPathComponent("stores").appendingPathComponent(store)).modelCache {
                caches.append([UInt8](cache))
            }
        }
        var random = SplitMix64(state: 0x5EED_0004)
        let alphabet = (0...255).map(UInt8.init)
        for cache in caches {
            for length in stride(from: 0, to: cache.count, by: 11) {
                #expect(throws: (any Error).self) { try NSManagedObjectModel.fromModelCache(Data(cache.prefix(length))) }
            }
        }
        for index in 0..<1_000 {
            let mutated = Self.mutate(caches[index % caches.count], using: &random, alphabet: alphabet)
            do {
                _ = try NSManagedObjectModel.fromModelCache(Data(mutated))
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain)
            }
            _ = try? Inflate.decompress(Data(mutated), maximumOutputSize: 1 << 20)
        }
    }
}
