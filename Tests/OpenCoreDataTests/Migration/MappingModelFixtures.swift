import Foundation
import Testing
@testable import OpenCoreData

/// The mapping model fixtures: CoreDataPlus's V2→V3 (Apple-compiled `.cdm` and its Xcode source)
/// and CoreDataMigrationRevised-Example's Migration2to3, with the models they were made for.
enum MappingFixtures {
    static let compiledV2toV3 = "stores/CoreDataPlus/Tests/Resources/SampleModel/Fixtures/V2toV3.cdm"
    static let compiledSampleModel = "stores/CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd"
    static let sourceV2toV3 = "models/CoreDataPlus/Tests/Resources/SampleModel/MappingModels/V2toV3.xcmappingmodel"
    static let sampleModelBundle = "models/CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"
    static let migration2to3 = "models/CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Migration/Mappings/Migration2to3ModelMapping.xcmappingmodel"
    static let exampleModelBundle = "models/CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"

    /// A path under the fixtures root.
    static func url(_ path: String) throws -> URL {
        try ModelFixtures.require().appendingPathComponent(path)
    }

    /// A model loaded from a fixture path (a `.mom` or a `.xcdatamodel`).
    static func model(_ path: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: url(path))
    }

    /// CoreDataPlus's SampleModel2 and SampleModel3, compiled by Apple.
    static func compiledV2V3() throws -> (NSManagedObjectModel, NSManagedObjectModel) {
        (try model(compiledSampleModel + "/SampleModel2.mom"), try model(compiledSampleModel + "/SampleModel3.mom"))
    }
}

extension NSEntityMapping {
    /// Everything a migration reads from an entity mapping, as text, for comparing two loads.
    var summary: [String] {
        var lines = [
            "\(name ?? "-") type=\(mappingType.rawValue) \(sourceEntityName ?? "-")(\(sourceEntityVersionHash?.hex ?? "-")) -> \(destinationEntityName ?? "-")(\(destinationEntityVersionHash?.hex ?? "-")) policy=\(entityMigrationPolicyClassName ?? "-")",
            "  source: \(sourceExpression?.description ?? "nil")",
        ]
        for mapping in attributeMappings ?? [] { lines.append("  attribute \(mapping)") }
        for mapping in relationshipMappings ?? [] { lines.append("  relationship \(mapping)") }
        return lines
    }
}
