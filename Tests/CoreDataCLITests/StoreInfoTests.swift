import Foundation
import Testing
@testable import CoreDataTool

/// `store info` on every Apple fixture store: row counts per Z_ENT as the sqlite3 shell counts
/// them, model compatibility with the model file and with the store's own Z_MODELCACHE.
@Suite("store info on the fixture stores", .enabled(if: CLIFixtures.enabled && Harness.sqlite3Required, "needs shared/fixtures and sqlite3"))
struct StoreInfoTests {
    /// Rows per `Z_ENT`, counted by the sqlite3 shell over every table with a Z_ENT column (but Z_PRIMARYKEY).
    static func shellCounts(_ store: URL) throws -> [Int: Int] {
        let tables = try Harness.sqlite(store, "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0] }
        var counts: [Int: Int] = [:]
        for table in tables {
            let columns = try Harness.sqlite(store, "SELECT name FROM pragma_table_info('\(table)')").map { $0[0] }
            guard columns.contains("Z_ENT"), table != "Z_PRIMARYKEY" else { continue }
            for row in try Harness.sqlite(store, "SELECT Z_ENT, COUNT(*) FROM \"\(table)\" GROUP BY Z_ENT") {
                counts[Int(row[0])!, default: 0] += Int(row[1])!
            }
        }
        return counts
    }

    @Test("Every fixture store: the entity counts are the sqlite3 shell's", arguments: CLIFixtures.storeList)
    func countsMatchTheShell(relative: String) throws {
        let store = try CLIFixtures.store(relative)
        let copy = try CLIFixtures.copy(store)
        let before = try Data(contentsOf: copy)
        let expected = try Self.shellCounts(copy)
        let entities = try Harness.sqlite(copy, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
        let info = try StoreInfo.read(path: copy.path, modelPath: nil)
        #expect(info.entities.filter { $0.number != nil }.count == entities.count)
        for row in entities {
            let number = Int(row[0])!
            let entity = try #require(info.entities.first { $0.number == number }, "\(store.lastPathComponent): Z_ENT \(number)")
            #expect(entity.name == row[1])
            #expect((entity.rows ?? 0) == (expected[number] ?? 0), "\(store.lastPathComponent) \(row[1])")
        }
        #expect(expected.values.reduce(0, +) == info.entities.compactMap(\.rows).reduce(0, +))
        // The text and JSON forms carry the same counts.
        let result = Harness.run(["store", "info", copy.path, "--json"])
        #expect(result.exitCode == 0, "\(result.err)")
        let json = try JSONParser.parse(Data(result.out.utf8))
        let listed = json.objectValue?["entities"]?.arrayValue ?? []
        for row in entities {
            let item = listed.first { $0.objectValue?["entityNumber"] == .number(row[0]) }?.objectValue
            #expect(item?["rows"] == .number(String(expected[Int(row[0])!] ?? 0)), "\(row[1])")
        }
        // Read-only: the file is unchanged and nothing appeared beside it.
        #expect(try Data(contentsOf: copy) == before)
        #expect(!FileManager.default.fileExists(atPath: copy.path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: copy.path + "-shm"))
    }

    @Test("With its model file, every paired store is compatible entity by entity", arguments: CLIFixtures.pairs.indices.filter { CLIFixtures.pairs[$0].model != nil })
    func compatibleWithModelFile(index: Int) throws {
        let pair = CLIFixtures.pairs[index]
        let copy = try CLIFixtures.copy(try CLIFixtures.store(pair.store))
        let info = try StoreInfo.read(path: copy.path, modelPath: try CLIFixtures.model(try #require(pair.model)).path)
        #expect(info.isCompatible == true, "\(pair.store): \(info.entities.map { "\($0.name) \(String(describing: $0.compatibility))" })")
        let result = Harness.run(["store", "info", copy.path, "--model", try CLIFixtures.model(pair.model!).path])
        #expect(result.out.contains("Compatible: yes"))
    }

    @Test("SampleModel2's Book and GraphicNovel hash differently from their Z_MODELCACHE, and store info says so",
          arguments: ["CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite", "CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite"])
    func reportsKnownMismatch(store: String) throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(store))
        let info = try StoreInfo.read(path: copy.path, modelPath: nil)
        let differing = info.entities.filter { !$0.isInternal && $0.compatibility != .matches }.map(\.name).sorted()
        #expect(differing == ["Book", "GraphicNovel"])
        #expect(info.isCompatible == false)
        let own = info.entities.filter(\.isInternal).map(\.name).sorted()
        #expect(own == ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"])
        let result = Harness.run(["store", "info", copy.path])
        #expect(result.exitCode == 0)
        #expect(result.out.contains("Compatible: no (Book, GraphicNovel)"))
        #expect(result.out.contains("differs"))
    }

    @Test("A renamed entity's rows are shown under its Z_PRIMARYKEY name and compared under the model's")
    func renamedEntity() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store("CoreDataPlus-2018/Tests/SampleModelV1.sqlite"))
        let info = try StoreInfo.read(path: copy.path, modelPath: nil)
        let renamed = try #require(info.entities.first { $0.name == "ExpensiveSportCar" })
        #expect(renamed.modelName == "LuxuryCar")
        #expect(renamed.compatibility == .matches)
        #expect(renamed.rows == 5)
        #expect(!info.entities.contains { $0.name == "LuxuryCar" })
    }

    @Test("Metadata, app keys and file sizes are reported")
    func metadataAndFiles() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store("CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite"))
        let result = Harness.run(["store", "info", copy.path])
        #expect(result.exitCode == 0)
        let uuid = try Harness.sqliteValue(copy, "SELECT Z_UUID FROM Z_METADATA")
        #expect(result.out.contains("UUID:") && result.out.contains(uuid))
        #expect(result.out.contains("Framework version:"))
        let size = try FileManager.default.attributesOfItem(atPath: copy.path)[.size] as? NSNumber
        #expect(result.out.contains("SampleModel3_V1.sqlite      \(size?.intValue ?? -1) bytes"))
        #expect(result.out.contains("SampleModel3_V1.sqlite-wal  absent"))
    }

    @Test("store schema lists sqlite_master's tables, indexes and triggers")
    func schema() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite"))
        let result = Harness.run(["store", "schema", copy.path])
        #expect(result.exitCode == 0)
        for row in try Harness.sqlite(copy, "SELECT name FROM sqlite_master WHERE sql IS NOT NULL AND type = 'trigger'") {
            #expect(result.out.contains(row[0]))
        }
        let tables = try Harness.sqliteValue(copy, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'")
        #expect(result.out.contains("-- Tables (\(tables))"))
        #expect(result.out.contains("CREATE TABLE ZBOOK"))
        let json = try JSONParser.parse(Data(Harness.run(["store", "schema", copy.path, "--json"]).out.utf8))
        #expect(json.objectValue?["tables"]?.arrayValue?.count == Int(tables))
    }
}
