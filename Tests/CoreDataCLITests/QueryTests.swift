import Foundation
import Testing
@testable import CoreDataTool

/// `query` against the sqlite3 shell reading the same Z tables.
@Suite("query returns what the sqlite3 shell sees", .enabled(if: CLIFixtures.enabled && Harness.sqlite3Required, "needs shared/fixtures and sqlite3"))
struct QueryTests {
    static let carStore = "CoreDataPlus-2018/Tests/SampleModelV2.sqlite"
    static let carModel = "CoreDataPlus-2018/Tests/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel"

    private func rows(_ result: RunResult) throws -> [JSONObject] {
        #expect(result.exitCode == 0, "\(result.err)")
        return try #require(try JSONParser.parse(Data(result.out.utf8)).arrayValue).compactMap(\.objectValue)
    }

    /// Equal to the 15 significant digits the sqlite3 shell prints REAL values with.
    private func close(_ a: Double?, _ b: Double?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return abs(a - b) <= max(abs(a), abs(b)) * 1e-14
    }

    private func primaryKey(_ value: JSONValue?) -> Int? {
        guard let uri = value?.stringValue, let parts = URIParts(uri) else { return nil }
        return Int(parts.primaryKey)
    }

    @Test("Every Car row, subentities included, with attributes, to-ones and the many-to-many", arguments: [false, true])
    func everyCar(withModelFile: Bool) throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(Self.carStore))
        var arguments = ["query", copy.path, "Car", "--format", "json", "--expand"]
        if withModelFile { arguments += ["--model", try CLIFixtures.model(Self.carModel).path] }
        let objects = try rows(Harness.run(arguments))
        let names = Dictionary(uniqueKeysWithValues: try Harness.sqlite(copy, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY").map { (Int($0[0])!, $0[1]) })
        let expected = try Harness.sqlite(copy, "SELECT Z_PK, Z_ENT, IFNULL(ZMODEL, '∅'), ZNUMBERPLATE, IFNULL(ZCREATEDBY, 0), IFNULL(ZOWNER, 0), IFNULL(ZISLIMITEDEDITION, -1), IFNULL(ZMARKEDFORDELETIONASOF, '∅') FROM ZCAR ORDER BY Z_PK")
        #expect(objects.count == expected.count)
        let owners = Dictionary(grouping: try Harness.sqlite(copy, "SELECT Z_1PREVIOUSCARS, Z_5PREVIOUSOWNERS FROM Z_1PREVIOUSOWNERS"), by: { Int($0[0])! })
            .mapValues { Set($0.map { Int($0[1])! }) }
        let byKey = Dictionary(uniqueKeysWithValues: objects.map { (primaryKey($0["_uri"]) ?? -1, $0) })
        for row in expected {
            let key = Int(row[0])!
            let object = try #require(byKey[key], "Car p\(key)")
            #expect(object["_entity"] == .string(names[Int(row[1])!]!))
            #expect(object["model"] == (row[2] == "∅" ? .null : .string(row[2])))
            #expect(object["numberPlate"] == .string(row[3]))
            #expect(primaryKey(object["createdBy"]) ?? 0 == Int(row[4])!)
            #expect(primaryKey(object["owner"]) ?? 0 == Int(row[5])!)
            if row[6] == "-1" {
                #expect(object["isLimitedEdition"] == nil || object["isLimitedEdition"] == .null)
            } else {
                #expect(object["isLimitedEdition"] == .bool(row[6] == "1"))
            }
            #expect(row[7] == "∅" ? object["markedForDeletionAsOf"] == .null : object["markedForDeletionAsOf"] != .null)
            let previous = Set((object["previousOwners"]?.arrayValue ?? []).compactMap(primaryKey))
            #expect(previous == owners[key] ?? [], "Car p\(key).previousOwners")
        }
    }

    @Test("A predicate, a descending sort, an offset and a limit give the rows of the same SQL")
    func filteredSortedPaged() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(Self.carStore))
        let result = Harness.run(["query", copy.path, "Car", "--where", "numberPlate BEGINSWITH '1' AND model != nil", "--sort", "numberPlate:desc",
                                  "--offset", "2", "--limit", "7", "--no-subentities", "--format", "csv"])
        #expect(result.exitCode == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let pk = try #require(header.firstIndex(of: "pk"))
        let plate = try #require(header.firstIndex(of: "numberPlate"))
        let got = lines.dropFirst().map { line -> [String] in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return [fields[pk], fields[plate]]
        }
        let expected = try Harness.sqlite(copy, "SELECT Z_PK, ZNUMBERPLATE FROM ZCAR WHERE Z_ENT = 1 AND ZNUMBERPLATE GLOB '1*' AND ZMODEL IS NOT NULL ORDER BY ZNUMBERPLATE DESC, Z_PK LIMIT 7 OFFSET 2")
        #expect(got == expected)
        #expect(got.count == 7)
    }

    @Test("Dates, strings and to-many counts of Person rows")
    func people() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(Self.carStore))
        let objects = try rows(Harness.run(["query", copy.path, "Person", "--format", "json", "--sort", "lastName", "--sort", "firstName:desc"]))
        let expected = try Harness.sqlite(copy, """
            SELECT Z_PK, ZFIRSTNAME, ZLASTNAME, ZUPDATEDAT, (SELECT COUNT(*) FROM ZCAR WHERE ZOWNER = p.Z_PK) FROM ZPERSON p ORDER BY ZLASTNAME, ZFIRSTNAME DESC, Z_PK
            """)
        #expect(objects.count == expected.count)
        for (object, row) in zip(objects, expected) {
            #expect(primaryKey(object["_uri"]) == Int(row[0]))
            #expect(object["firstName"] == .string(row[1]))
            #expect(object["lastName"] == .string(row[2]))
            let date = try #require(object["updatedAt"]?.stringValue.flatMap(ISO8601.parse))
            #expect(close(date.timeIntervalSinceReferenceDate, Double(row[3])))
            #expect(object["cars"] == .number(row[4]))
        }
    }

    @Test("Decimals, UUIDs, derived attributes and data of SampleModel2's Book, read with its Z_MODELCACHE")
    func books() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store("CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite"))
        let result = Harness.run(["query", copy.path, "Book", "--no-subentities", "--format", "json"])
        #expect(result.err.contains("warning") && result.err.contains("Book, GraphicNovel"))
        let objects = try rows(result)
        let expected = try Harness.sqlite(copy, "SELECT Z_PK, ZPRICE, hex(ZUNIQUEID), ZPAGESCOUNT, ZTITLE, length(ZCOVER), ZPUBLISHEDAT FROM ZBOOK WHERE Z_ENT = 1 ORDER BY Z_PK")
        #expect(objects.count == expected.count)
        for (object, row) in zip(objects.sorted { primaryKey($0["_uri"])! < primaryKey($1["_uri"])! }, expected) {
            #expect(primaryKey(object["_uri"]) == Int(row[0]))
            #expect(close(object["price"].flatMap(\.stringValue).flatMap(Double.init), Double(row[1])))
            #expect(object["uniqueID"]?.stringValue?.replacingOccurrences(of: "-", with: "") == row[2])
            #expect(object["pagesCount"] == .number(row[3]))
            #expect(object["title"] == .string(row[4]))
            #expect(object["cover"]?.stringValue.flatMap { Data(base64Encoded: $0) }?.count == Int(row[5]))
            #expect(close(object["publishedAt"]?.stringValue.flatMap(ISO8601.parse)?.timeIntervalSinceReferenceDate, Double(row[6])))
        }
    }

    @Test("Tables print one line per row and a count")
    func table() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(Self.carStore))
        let result = Harness.run(["query", copy.path, "Maker", "--sort", "name"])
        #expect(result.exitCode == 0)
        let names = try Harness.sqlite(copy, "SELECT ZNAME FROM ZMAKER ORDER BY ZNAME").map { $0[0] }
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.count == names.count + 3)
        #expect(lines.last == "(\(names.count) rows)")
        for (line, name) in zip(lines.dropFirst(2), names) { #expect(line.contains(name)) }
    }

    @Test("A model that does not match is refused unless --ignore-model-mismatch")
    func mismatch() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store("CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite"))
        let other = try CLIFixtures.model("CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel").path
        let refused = Harness.run(["query", copy.path, "Person", "--model", other])
        #expect(refused.exitCode == 2)
        #expect(refused.err.contains("does not match the store"))
        #expect(refused.err.contains("--ignore-model-mismatch"))
        let forced = Harness.run(["query", copy.path, "Person", "--model", other, "--ignore-model-mismatch", "--format", "json"])
        #expect(forced.exitCode == 0, "\(forced.err)")
        let count = try Harness.sqliteValue(copy, "SELECT COUNT(*) FROM ZPERSON")
        #expect(try rows(forced).count == Int(count))
    }

    @Test("Bad predicates, keys and entities are one-line errors", arguments: [
        (["--where", "numberPlate BEGINSWITH"], "invalid predicate"),
        (["--where", "numberPlate == 'x' AND (model"], "invalid predicate"),
        (["--where", "colour == 'red'"], "colour"),
        (["--sort", "colour"], "colour"),
        (["--sort", "model:sideways"], "asc or desc"),
        (["--limit=-1"], "--limit"),
    ])
    func badInput(extra: [String], mention: String) throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(Self.carStore))
        let result = Harness.run(["query", copy.path, "Car"] + extra)
        #expect(result.exitCode == 2, "\(extra): \(result.err)")
        #expect(result.err.hasPrefix("coredata: error: "), "\(result.err)")
        #expect(result.err.contains(mention), "\(result.err)")
        #expect(result.out.isEmpty)
    }

    @Test("A predicate error shows the format with a caret under the position")
    func caretUnderError() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(Self.carStore))
        let result = Harness.run(["query", copy.path, "Car", "--where", "model == 'Panda' AND"])
        let lines = result.err.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[1] == "  model == 'Panda' AND")
        #expect(lines[2] == "  " + String(repeating: " ", count: "model == 'Panda' AND".count) + "^")
    }

    @Test("An unknown entity lists the model's entities")
    func unknownEntity() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(Self.carStore))
        let result = Harness.run(["query", copy.path, "Truck"])
        #expect(result.exitCode == 2)
        #expect(result.err.contains("no entity named Truck") && result.err.contains("Car, LuxuryCar, Maker, Person, SportCar"))
    }
}
