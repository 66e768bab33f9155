import Foundation
import Testing
@testable import OpenCoreData

/// Issue 30 point 4 (inheritance): the SQLite store's per-entity plans cost work linear in the
/// frozen model's size, Σ over entities of their properties (inherited ones included, as each
/// entity's layout and Apple's model cache list them). Over a chain of depth d that size is
/// about d²/2, so doubling the depth may quadruple the work, never multiply it by eight.
@Suite("Inheritance chains cost work linear in the frozen model")
struct InheritanceWorkTests {
    /// The frozen model's size: every entity's properties, inherited ones included.
    static func size(_ model: NSManagedObjectModel) -> Int {
        model.entities.reduce(0) { $0 + $1.properties.count }
    }

    /// Work counted while building every entity's row decoders and write plan, as a store does.
    static func planWork(depth: Int) throws -> (work: Int, size: Int) {
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(Data(ModelScalingTests.chainXML(depth: depth).utf8), url: nil, into: model)
        model.freeze()
        let schema = SQLStoreSchema(model: model)
        let work = WorkCounter.measure {
            for entity in model.entities {
                _ = SQLiteRowDecoder(schema: schema, dialect: SQLiteDialect(), entity: entity, includesSubentities: true)
                _ = SQLiteRowDecoder(schema: schema, dialect: SQLiteDialect(), entity: entity, includesSubentities: false)
                _ = SQLiteWritePlan(entity: entity, schema: schema, dialect: SQLiteDialect())
            }
        }
        return (work, size(model))
    }

    @Test("Doubling an inheritance chain's depth doubles the plans' work per property")
    func doublingDepth() throws {
        let small = try Self.planWork(depth: 40)
        let large = try Self.planWork(depth: 80)
        #expect(small.work > 0)
        // Work per property of the frozen model stays flat (the old per-column `isKindOf` walk
        // made it grow with the depth: about ×2 per doubling, ×8 in all).
        let smallRate = Double(small.work) / Double(small.size)
        let largeRate = Double(large.work) / Double(large.size)
        #expect(largeRate < 1.5 * smallRate, "work \(small.work) → \(large.work) for size \(small.size) → \(large.size)")
    }

    @Test("Columns of an entity are its own and its ancestors', in table order")
    func columnsOfChain() throws {
        let model = NSManagedObjectModel()
        try ModelFileLoader.load(Data(ModelScalingTests.chainXML(depth: 5).utf8), url: nil, into: model)
        model.freeze()
        let schema = SQLStoreSchema(model: model)
        let e2 = try #require(model.entitiesByName["E2"])
        let table = try #require(schema.table(for: e2))
        let names = table.columnIndices(for: e2).map { table.columns[$0].property.name }
        #expect(names == ["a0", "a1", "a2"])
        let withSubentities = table.columnIndices(forAnyOf: [e2], includingDescendants: true).map { table.columns[$0].property.name }
        #expect(withSubentities == ["a0", "a1", "a2", "a3", "a4"])
        #expect(e2.selfAndDescendants.map(\.name) == ["E2", "E3", "E4"])
    }
}
