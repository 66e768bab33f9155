import Foundation
import Testing

/// Issue 38, point 1: `NSPersistentContainer(name:)` loads the executable's own model, or stops.
/// The `lookup-*` executables (Tests/ModelLookupFixtures) are built into one folder with every
/// other target's resource bundle, two of them holding different `Trips` models and two holding
/// `Todo` models; each must find only what its own targets hold. They run from the build folder,
/// once from a temporary folder and once from the package root (what `swift run` does).
@Suite("Model lookup in a multi-target package")
struct ModelLookupTests {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The package root (Tests/ModelLookupTests/ModelLookupTests.swift → the root).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The build products folder, where the test bundle and the executables are.
    static let productsFolder: URL? = {
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(packageRoot.appendingPathComponent(".build/debug"))
        return folders.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("lookup-none").path) }
    }()

    /// Runs a `lookup-*` executable from `directory`; gives up (and fails) after 120 s.
    static func run(_ name: String, _ arguments: [String], in directory: URL) throws -> Result {
        let folder = try #require(productsFolder, "the lookup executables are not built")
        let process = Process()
        process.executableURL = folder.appendingPathComponent(name)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lookup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            process.terminate()
            Issue.record("\(name) \(arguments) did not finish within 120 s")
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus, stdout: try String(contentsOf: outURL, encoding: .utf8),
                      stderr: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// The two working directories: a temporary folder, and the package root as `swift run` has it.
    static func directories() throws -> [URL] {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("lookup-cwd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        return [temporary, packageRoot]
    }

    @Test("Two executables with different same-named models each load their own")
    func ownModels() throws {
        for directory in try Self.directories() {
            let a = try Self.run("lookup-trips-a", ["Trips"], in: directory)
            #expect(a.status == 0, "\(a.stderr)")
            #expect(a.stdout.contains("entities: Trip(name)"), "\(a.stdout)")
            let b = try Self.run("lookup-trips-b", ["Trips", "--name-init"], in: directory)
            #expect(b.status == 0, "\(b.stderr)")
            #expect(b.stdout.contains("entities: Trip(days,title)"), "\(b.stdout)")
        }
    }

    @Test("A target's own Todo model wins over the example app's Todo model in the same build folder")
    func ownModelNamedLikeAnExample() throws {
        for directory in try Self.directories() {
            let result = try Self.run("lookup-own-todo", ["Todo", "--name-init"], in: directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("entities: Note(text)"), "\(result.stdout)")
        }
    }

    @Test("Apple's idiom: Bundle.module finds the .momd the build plugin compiled, NSManagedObjectModel(contentsOf:) loads it (Bundle.main does not, as documented)")
    func bundleIdiom() throws {
        for directory in try Self.directories() {
            let result = try Self.run("lookup-own-todo", ["--bundle-idiom"], in: directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("momd: Todo.momd notes: 1 merged: Note main: nil"), "\(result.stdout)")
        }
    }

    @Test("No model of its own: the documented stop naming the places searched, never another target's model")
    func noModel() throws {
        for directory in try Self.directories() {
            for name in ["Trips", "Todo"] {
                let thrown = try Self.run("lookup-none", [name], in: directory)
                #expect(thrown.status == 2)
                #expect(thrown.stdout.isEmpty, "loaded another target's model: \(thrown.stdout)")
                #expect(thrown.stderr.contains("260 Can't find the Core Data model '\(name)'"), "\(thrown.stderr)")
                #expect(thrown.stderr.contains("Looked in:"))
                #expect(!thrown.stderr.contains("LookupModelsA.resources"), "searched a bundle it does not link: \(thrown.stderr)")
                let stopped = try Self.run("lookup-none", [name, "--name-init"], in: directory)
                #expect(stopped.status != 0)
                #expect(stopped.stdout.isEmpty)
                #expect(stopped.stderr.contains("Can't find the Core Data model '\(name)'"), "\(stopped.stderr)")
            }
        }
    }

    @Test("Two different linked models of one name: an error listing both, not a choice by name order")
    func ambiguous() throws {
        let result = try Self.run("lookup-both", ["Trips"], in: try Self.directories()[0])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Several different Core Data models are named 'Trips'"), "\(result.stderr)")
        #expect(result.stderr.contains("LookupModelsA.resources") && result.stderr.contains("LookupModelsB.resources"), "\(result.stderr)")
    }

    @Test("A store is never opened, let alone migrated, with a model from the wrong place")
    func storeUntouched() throws {
        let directory = try Self.directories()[0]
        let store = directory.appendingPathComponent("Trips.sqlite")
        let created = try Self.run("lookup-trips-a", ["Trips", store.path], in: directory)
        #expect(created.status == 0 && created.stdout.contains("store: opened"), "\(created.stderr)")
        func snapshot() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix("Trips.sqlite") {
                files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
            }
            return files
        }
        let before = try snapshot()
        #expect(!before.isEmpty)
        for arguments in [["Trips", store.path], ["Trips", store.path, "--name-init"]] {
            let result = try Self.run("lookup-none", arguments, in: directory)
            #expect(result.status != 0)
            #expect(!result.stdout.contains("store: opened"))
        }
        #expect(try snapshot() == before, "the store's files changed")
    }
}
