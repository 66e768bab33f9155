import Foundation
import GRDB
import Testing
@testable import CoreDataTool

/// The built `coredata` binary, run as a user would.
@Suite("coredata binary end to end", .enabled(if: Harness.binary != nil || CLIFixtures.isCI, "build the coredata product first (swift build)"))
struct EndToEndTests {
    static let commands: [[String]] = [
        [], ["model"], ["model", "show"], ["model", "graph"], ["model", "hashes"], ["model", "diff"], ["store"], ["store", "info"], ["store", "schema"],
        ["store", "migrate"],
        ["query"], ["export"], ["import"], ["validate"],
    ]

    @Test("--help works on every command, with examples on every runnable one", arguments: commands)
    func help(command: [String]) throws {
        let result = try Harness.runBinary(command + ["--help"])
        #expect(result.exitCode == 0)
        #expect(result.out.contains("USAGE: coredata"))
        let isGroup = command == ["model"] || command == ["store"]
        if !isGroup { #expect(result.out.contains("EXAMPLES:"), "\(command)") }
    }

    @Test("Usage errors exit 64 with the usage")
    func usage() throws {
        let result = try Harness.runBinary(["query"])
        #expect(result.exitCode == 64)
        #expect(result.err.contains("Missing expected argument"))
        let unknown = try Harness.runBinary(["frobnicate"])
        #expect(unknown.exitCode == 64)
        let format = try Harness.runBinary(["query", "x.sqlite", "Car", "--format", "xml"])
        #expect(format.exitCode == 64)
    }

    /// Inputs that are not stores, each given to every store command.
    static let badStores = ["missing", "folder", "empty", "text", "plain SQLite", "truncated"]

    /// The test model's export as a file for `import`.
    static func writeExport() throws -> String {
        let url = TemporaryFiles.folder().appendingPathComponent("import.json")
        try Data(TestModel.export.utf8).write(to: url)
        return url.path
    }

    @Test("Bad store paths give one error line, exit code 2 and no trap", arguments: badStores)
    func badStore(kind: String) throws {
        let folder = TemporaryFiles.folder()
        var path = folder.appendingPathComponent("store.sqlite").path
        switch kind {
        case "folder": path = folder.path
        case "empty": try Data().write(to: URL(fileURLWithPath: path))
        case "text": try Data("just some text, not a database at all, long enough for a header check…".utf8).write(to: URL(fileURLWithPath: path))
        case "plain SQLite":
            // Made with GRDB, not the sqlite3 shell, so that the case runs on a fresh machine.
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in try db.execute(sql: "CREATE TABLE t (x); INSERT INTO t VALUES (1);") }
            try queue.close()
        case "truncated":
            // A Core Data store made here (the fixtures need not be beside the clone), cut short.
            let made = folder.appendingPathComponent("whole.sqlite").path
            let imported = Harness.run(["import", made, try Self.writeExport(), "--model", try TestModel.write()])
            #expect(imported.exitCode == 0, "\(imported.err)")
            let data = try Data(contentsOf: URL(fileURLWithPath: made))
            #expect(data.count > 5000)
            try data.prefix(5000).write(to: URL(fileURLWithPath: path))
        default: break
        }
        let before = FileManager.default.contents(atPath: path)
        for command in [["store", "info", path], ["store", "schema", path], ["query", path, "Car"], ["export", path], ["validate", path], ["model", "show", path]] {
            let result = try Harness.runBinary(command)
            #expect(result.exitCode == 2, "\(kind) \(command): \(result.out) \(result.err)")
            #expect(result.err.hasPrefix("coredata: error: "), "\(kind) \(command): \(result.err)")
            for trace in ["Fatal error", "Stack dump", "Backtrace", "Illegal instruction", "Crash"] {
                #expect(!result.err.contains(trace), "\(kind) \(command): \(result.err)")
            }
        }
        #expect(FileManager.default.contents(atPath: path) == before, "\(kind): the file changed")
    }

    @Test("query on a fixture store through the binary, and a predicate error with its caret", .enabled(if: CLIFixtures.enabled))
    func query() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(QueryTests.carStore))
        let result = try Harness.runBinary(["query", copy.path, "Maker", "--where", "name BEGINSWITH[c] 'f'", "--format", "csv"])
        #expect(result.exitCode == 0, "\(result.err)")
        let expected = try Harness.sqlite(copy, "SELECT ZNAME FROM ZMAKER WHERE ZNAME LIKE 'f%' ORDER BY Z_PK").map { $0[0] }
        #expect(result.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[1] }.map(String.init) == expected)

        let bad = try Harness.runBinary(["query", copy.path, "Maker", "--where", "name ==[c 'f'"])
        #expect(bad.exitCode == 2)
        #expect(bad.err.contains("invalid predicate"))
        #expect(bad.err.split(separator: "\n").last?.hasSuffix("^") == true)
    }

    @Test("export piped into import through standard input", .enabled(if: CLIFixtures.enabled && Harness.sqlite3Required))
    func pipe() throws {
        let copy = try CLIFixtures.copy(try CLIFixtures.store(QueryTests.carStore))
        let exported = try Harness.runBinary(["export", copy.path])
        #expect(exported.exitCode == 0)
        #expect(exported.err.isEmpty, "no progress line when stderr is not a terminal: \(exported.err)")
        let target = TemporaryFiles.folder().appendingPathComponent("piped.sqlite").path
        let model = try CLIFixtures.model(QueryTests.carModel).path
        let imported = try Harness.runBinary(["import", target, "-", "--model", model], input: Data(exported.out.utf8))
        #expect(imported.exitCode == 0, "\(imported.err)")
        #expect(imported.out.contains("156 inserted"))
        let info = try Harness.runBinary(["store", "info", target, "--model", model])
        #expect(info.out.contains("Compatible: yes"))
    }

    @Test("validate exits 1 on violations through the binary")
    func validateExitCode() throws {
        let model = try TestModel.write()
        let store = TemporaryFiles.folder().appendingPathComponent("Library.sqlite").path
        let file = TemporaryFiles.folder().appendingPathComponent("seed.json")
        try Data(TestModel.export.utf8).write(to: file)
        #expect(try Harness.runBinary(["import", store, file.path, "--model", model]).exitCode == 0)
        #expect(try Harness.runBinary(["validate", store, "--model", model]).exitCode == 0)
        _ = try Harness.runProcess(Harness.sqlite3, [store, "UPDATE ZTAG SET ZNAME = NULL"])
        let result = try Harness.runBinary(["validate", store, "--model", model])
        #expect(result.exitCode == 1)
        #expect(result.out.contains("Tag.name is a required value"))
    }
}
