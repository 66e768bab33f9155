import Foundation
import Testing

/// `todo watch` prints the changes other `todo` processes make, from persistent history, woken
/// by remote-change notifications (issue 17's done-when).
@Suite("todo watch", .serialized)
struct TodoWatchTests {
    /// Reads a growing file until it holds `count` lines or the watcher exits (a bound against
    /// hanging, not a timing assertion).
    static func lines(in url: URL, atLeast count: Int, while process: Process) -> [String] {
        let deadline = Date().addingTimeInterval(60)
        var lines: [String] = []
        while Date() < deadline {
            lines = ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if lines.count >= count || !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return lines
    }

    /// Starts `todo watch --count <count>` on the store; ready once it says so on standard error.
    static func startWatcher(_ todo: TodoBinary, count: Int) throws -> (Process, output: URL) {
        let executable = try #require(TodoBinary.executable)
        try todo.ok(["stats"])  // creates the store
        let out = todo.directory.appendingPathComponent("watch.out")
        let err = todo.directory.appendingPathComponent("watch.err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let watcher = Process()
        watcher.executableURL = executable
        watcher.arguments = ["watch", "--count", "\(count)", "--store", todo.store.path]
        watcher.standardOutput = try FileHandle(forWritingTo: out)
        watcher.standardError = try FileHandle(forWritingTo: err)
        watcher.standardInput = FileHandle.nullDevice
        try watcher.run()
        #expect(!Self.lines(in: err, atLeast: 1, while: watcher).isEmpty)
        return (watcher, out)
    }

    @Test("todo watch prints each insert and update another todo process commits")
    func watchesOtherProcesses() throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        let (watcher, out) = try Self.startWatcher(todo, count: 2)
        defer { if watcher.isRunning { watcher.terminate() } }

        let added = try #require(try todo.json(["add", "Buy milk"]) as? [String: Any])
        let id = try #require(added["id"] as? String)
        try todo.ok(["done", String(id.prefix(8))])
        let lines = Self.lines(in: out, atLeast: 2, while: watcher)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("inserted TodoEntity \"Buy milk\"") == true)
        #expect(lines.last?.hasPrefix("updated TodoEntity \"Buy milk\"") == true && lines.last?.contains("completedAt") == true)
    }

    @Test("todo watch prints the rows another process's import batch-inserts (tags first, then to-dos)")
    func watchesImports() throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        let (watcher, out) = try Self.startWatcher(todo, count: 2)
        defer { if watcher.isRunning { watcher.terminate() } }

        let tagId = UUID().uuidString
        let file = todo.directory.appendingPathComponent("import.json")
        try Data(#"{"format":"opencoredata-todo","version":1,"tags":[{"tagId":"\#(tagId)","title":"home"}],"locations":[],"todos":[{"todoId":"\#(UUID().uuidString)","title":"Imported","tags":["\#(tagId)"]}]}"#.utf8).write(to: file)
        try todo.ok(["import", file.path])
        let lines = Self.lines(in: out, atLeast: 2, while: watcher)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("inserted TagEntity \"home\"") == true)
        #expect(lines.last?.hasPrefix("inserted TodoEntity \"Imported\"") == true)
    }
}
