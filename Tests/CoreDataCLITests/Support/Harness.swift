import ArgumentParser
import Foundation
import Testing
@testable import CoreDataTool

/// What a command printed and how it ended.
struct RunResult {
    var out: String
    var err: String
    var exitCode: Int32
}

/// Runs `coredata` commands in-process (parsing included) with captured output, and the built binary.
enum Harness {
    /// Parses the arguments as the binary would and runs the command with string sinks.
    static func run(_ arguments: [String]) -> RunResult {
        let out = StringSink()
        let err = StringSink()
        let console = Console(out: out, err: err)
        do {
            let command = try CoreDataCommand.parseAsRoot(arguments)
            guard let tool = command as? any ToolCommand else {
                return RunResult(out: "", err: "not a runnable command: \(arguments)", exitCode: 64)
            }
            try tool.execute(console)
            try out.flush()
            return RunResult(out: out.text, err: err.text, exitCode: 0)
        } catch let error as ExitCode {
            return RunResult(out: out.text, err: err.text, exitCode: error.rawValue)
        } catch let error as ToolError {
            console.report(error)
            return RunResult(out: out.text, err: err.text, exitCode: error.exitCode)
        } catch {
            // Argument parsing errors.
            let message = CoreDataCommand.message(for: error)
            return RunResult(out: out.text, err: err.text + message, exitCode: CoreDataCommand.exitCode(for: error).rawValue)
        }
    }

    /// The built `coredata` binary, beside the test bundle (`.build/<config>/coredata`).
    static let binary: URL? = {
        if let path = ProcessInfo.processInfo.environment["COREDATA_BINARY"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("coredata")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }()

    /// Runs the binary with arguments and optional standard input.
    static func runBinary(_ arguments: [String], input: Data? = nil) throws -> RunResult {
        let binary = try #require(binary, "the coredata binary was not found beside the tests; build it with `swift build`")
        return try runProcess(binary, arguments, input: input)
    }

    /// Runs a program, collecting its output.
    static func runProcess(_ executable: URL, _ arguments: [String], input: Data? = nil) throws -> RunResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let folder = TemporaryFiles.folder()
        let outURL = folder.appendingPathComponent("out")
        let errURL = folder.appendingPathComponent("err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        process.standardOutput = outHandle
        process.standardError = errHandle
        if let input {
            let inURL = folder.appendingPathComponent("in")
            try input.write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        let out = String(decoding: try Data(contentsOf: outURL), as: UTF8.self)
        let err = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        try? FileManager.default.removeItem(at: folder)
        return RunResult(out: out, err: err, exitCode: process.terminationStatus)
    }

    /// Runs the sqlite3 shell read-only and returns its rows: immutable (so not even a -shm file
    /// appears) unless the store has a -wal file, whose content an immutable reader would miss.
    static func sqlite(_ store: URL, _ sql: String, separator: String = "|") throws -> [[String]] {
        let hasWAL = FileManager.default.fileExists(atPath: store.path + "-wal")
        let uri = hasWAL ? "file:\(store.path)?mode=ro" : "file:\(store.path)?mode=ro&immutable=1"
        let result = try runProcess(sqlite3, ["-readonly", "-noheader", "-separator", separator, uri, sql])
        #expect(result.exitCode == 0, "sqlite3 failed: \(result.err)")
        return result.out.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            line.split(separator: Character(separator), omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// The first column of the first row of a query.
    static func sqliteValue(_ store: URL, _ sql: String) throws -> String {
        try #require(try sqlite(store, sql).first?.first, "no rows for \(sql)")
    }

    /// The sqlite3 shell.
    static let sqlite3 = URL(fileURLWithPath: ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/sqlite3")

    /// Whether the sqlite3 shell tests run: when it is installed, and always in CI (where its absence fails them).
    static var sqlite3Required: Bool { FileManager.default.isExecutableFile(atPath: sqlite3.path) || CLIFixtures.isCI }
}
