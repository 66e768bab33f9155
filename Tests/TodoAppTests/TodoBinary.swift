import Foundation

/// Runs the built `todo` executable against one temporary store.
struct TodoBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let directory: URL
    let store: URL

    /// A fresh temporary folder holding the store (created by the first command).
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = directory.appendingPathComponent("Todo.sqlite")
    }

    /// The `todo` executable in the build products folder, next to the test bundle.
    static let executable: URL? = {
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(Bundle.main.bundleURL)
        // <package>/Tests/TodoAppTests/TodoBinary.swift → <package>/.build/debug
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        folders.append(package.appendingPathComponent(".build/debug"))
        return folders.map { $0.appendingPathComponent("todo") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `todo <arguments> --store <store>`; `store: false` leaves `--store` out.
    @discardableResult
    func run(_ arguments: [String], store useStore: Bool = true) throws -> Result {
        guard let executable = Self.executable else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "todo"]) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments + (useStore ? ["--store", store.path] : [])
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.appendingPathComponent("xdg").path  // never the user's own store
        process.environment = environment
        // Files, not pipes: a full pipe would block the child while we wait for it.
        let outURL = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errURL = directory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(
            status: process.terminationStatus,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8)
        )
    }

    /// Runs a command that must succeed and returns its standard output.
    @discardableResult
    func ok(_ arguments: [String]) throws -> String {
        let result = try run(arguments)
        guard result.status == 0 else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "todo \(arguments) exited \(result.status): \(result.stderr)"])
        }
        return result.stdout
    }

    /// Runs a `--json` command that must succeed and decodes its output.
    func json(_ arguments: [String]) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(ok(arguments + ["--json"]).utf8))
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
