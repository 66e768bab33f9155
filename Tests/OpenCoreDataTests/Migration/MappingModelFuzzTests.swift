import Foundation
import Testing
@testable import OpenCoreData

/// Deterministic fuzzing of the mapping model readers: mutated bytes of Apple's compiled
/// V2toV3.cdm and mutated lines and bytes of the xcmapping.xml sources. Each input must load or
/// throw an `NSError` in `NSCocoaErrorDomain`; a crash fails the whole test run. Inputs per
/// target: `OCD_FUZZ_COUNT`, else 3,000 (docs/Fuzzing.md).
@Suite("Mapping model fuzzing")
struct MappingModelFuzzTests {
    typealias Random = ModelFileFuzzTests.SplitMix64

    /// Loads mapping model data; only an `NSError` may come out, and a loaded model is walked.
    static func survive(_ data: Data, file: URL, models: (NSManagedObjectModel, NSManagedObjectModel)?) {
        do {
            let mapping = try NSMappingModel.load(data, file: file, sourceModel: models?.0, destinationModel: models?.1)
            for entityMapping in mapping.entityMappings! {
                _ = entityMapping.summary
            }
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect([NSFileReadCorruptFileError, NSFileReadNoSuchFileError, NSFileReadUnknownError].contains(error.code), "\(error)")
        }
    }

    @Test("Compiled mapping model fuzz target: mutated .cdm bytes load or throw an NSError", .enabled(if: ModelFixtures.enabled))
    func mutatedCompiledMappingModel() throws {
        let url = try MappingFixtures.url(MappingFixtures.compiledV2toV3)
        let archive = [UInt8](try Data(contentsOf: url))
        var random = Random(state: 0x5EED_00C1)
        let alphabet = (0...255).map(UInt8.init)
        for _ in 0..<ModelFileFuzzTests.fuzzCount(3_000) {
            Self.survive(Data(ModelFileFuzzTests.mutate(archive, using: &random, alphabet: alphabet)), file: url, models: nil)
        }
    }

    @Test("Source mapping model fuzz target: xcmapping.xml with mutated lines and bytes loads or throws an NSError",
          .enabled(if: ModelFixtures.enabled))
    func mutatedSourceMappingModels() throws {
        let sources = [
            (MappingFixtures.sourceV2toV3, try MappingFixtures.compiledV2V3()),
            (MappingFixtures.migration2to3, (
                try MappingFixtures.model(MappingFixtures.exampleModelBundle + "/CoreDataMigration_Example 2.xcdatamodel"),
                try MappingFixtures.model(MappingFixtures.exampleModelBundle + "/CoreDataMigration_Example 3.xcdatamodel"))),
        ]
        let inputs = try sources.map { path, models in
            let file = try MappingFixtures.url(path + "/xcmapping.xml")
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            return (file, text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init), models)
        }
        var random = Random(state: 0x5EED_00C2)
        for index in 0..<ModelFileFuzzTests.fuzzCount(3_000) {
            let (file, lines, models) = inputs[index % inputs.count]
            let data: Data
            if index % 2 == 0 {
                data = Data(Self.mutateLines(lines, using: &random).joined(separator: "\n").utf8)
            } else {
                data = Data(ModelFileFuzzTests.mutate(Array(lines.joined(separator: "\n").utf8), using: &random, alphabet: ModelFileFuzzTests.xmlAlphabet))
            }
            // One input in 64 finds its models from the recorded paths, the others are given them
            // (loading the models for every input would dominate the run).
            Self.survive(data, file: file, models: index % 64 == 0 ? nil : models)
        }
    }

    /// One to three line edits: delete, duplicate, swap, or replace a value with another line's.
    static func mutateLines(_ input: [String], using random: inout Random) -> [String] {
        var lines = input
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            guard lines.count > 1 else { break }
            let position = Int.random(in: 0..<lines.count, using: &random)
            let other = Int.random(in: 0..<lines.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: lines.remove(at: position)
            case 1: lines.insert(lines[position], at: other)
            case 2: lines.swapAt(position, other)
            case 3:
                // Keep the tag, take another line's text: wrong types, names and ids.
                let replacement = lines[other].split(separator: ">").dropFirst().first.map(String.init) ?? ""
                if let close = lines[position].firstIndex(of: ">") {
                    lines[position] = String(lines[position][...close]) + replacement + "</attribute>"
                }
            default:
                let words = ["Undefined", "Custom", "z999", "", "YnBsaXN0MDA=", "-1", "Car", "binary", "int16"]
                lines[position] = lines[position].replacingOccurrences(of: "\"string\"", with: "\"\(words.randomElement(using: &random)!)\"")
                    .replacingOccurrences(of: "z1", with: words.randomElement(using: &random)!)
            }
        }
        return lines
    }
}
