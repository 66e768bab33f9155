import Foundation
import OpenCoreData
import Testing
@testable import TodoApp

/// `todo list --follow`: a live list driven by an `NSFetchedResultsController` over the view
/// context, showing changes saved by background contexts and committed by other processes
/// (issue 19's done-when).
@Suite("todo list --follow", .serialized)
struct TodoFollowTests {
    /// Collects a live list's events as they come, so a test can wait for them with a bound.
    actor Recorder {
        private(set) var events: [TodoFeedEvent] = []
        private(set) var failure: (any Error)?
        private var task: Task<Void, Never>?

        func start(_ stream: AsyncThrowingStream<TodoFeedEvent, any Error>) {
            task = Task {
                do {
                    for try await event in stream { self.append(event) }
                } catch {
                    self.fail(error)
                }
            }
        }

        private func append(_ event: TodoFeedEvent) { events.append(event) }
        private func fail(_ error: any Error) { failure = error }

        /// The events once there are `count` of them, or what came within 60 s (a bound
        /// against hanging, not a timing assertion).
        func events(atLeast count: Int) async -> [TodoFeedEvent] {
            let deadline = Date().addingTimeInterval(60)
            while events.count < count && failure == nil && Date() < deadline {
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            return events
        }

        func stop() { task?.cancel() }
    }

    /// The changes of a `.changes` event, as (kind, title, old row, new row).
    static func summary(_ event: TodoFeedEvent?) -> [String] {
        guard case .changes(let changes)? = event else { return ["not a change batch: \(String(describing: event))"] }
        return changes.map { "\($0.kind.rawValue) \($0.item.title) \($0.oldRow.map(String.init) ?? "-") \($0.newRow.map(String.init) ?? "-")" }
    }

    @Test("Apple: with automaticallyMergesChangesFromParent, a background context's saves reach the view context and the controller reports inserts, moves, updates and deletes")
    func backgroundSavesAppear() async throws {
        let container = try TodoPersistence.makeContainer(storeURL: nil)
        let todos = TodoRepository(container: container)
        let first = try await todos.add(title: "First")
        let recorder = Recorder()
        await recorder.start(try await todos.follow())
        defer { Task { await recorder.stop() } }
        #expect(await recorder.events(atLeast: 1).first == .list([first]))

        let second = try await todos.add(title: "Second")   // saved by a background context
        _ = try await todos.setDone(first.id, true)          // updatedAt changes: First moves to the top
        _ = try await todos.edit(first.id, title: "First!")  // already on top: an update in place
        _ = try await todos.delete(second.id)
        let events = await recorder.events(atLeast: 5)
        try #require(events.count == 5)
        #expect(Self.summary(events[1]) == ["inserted Second - 1"])
        #expect(Self.summary(events[2]) == ["moved First 2 1"])
        #expect(Self.summary(events[3]) == ["updated First! 1 1"])
        #expect(Self.summary(events[4]) == ["deleted Second 2 -"])
        if case .changes(let changes) = events[2] { #expect(changes.first?.item.isDone == true) }
    }

    @Test("Apple: a filtered live list reports a listed to-do that another coordinator's commit takes out of the predicate as a delete, a new match as an insert")
    func filterLeavesAndEnters() async throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        let follower = try TodoPersistence.makeContainer(storeURL: todo.store, watchingRemoteChanges: true)
        let writer = TodoRepository(container: try TodoPersistence.makeContainer(storeURL: todo.store))
        let item = try await writer.add(title: "Call")
        let recorder = Recorder()
        await recorder.start(try await TodoRepository(container: follower).follow(isDone: false))
        defer { Task { await recorder.stop() } }
        #expect(await recorder.events(atLeast: 1).first == .list([item]))
        _ = try await writer.setDone(item.id, true)
        _ = try await writer.add(title: "Write")
        let events = await recorder.events(atLeast: 3)
        try #require(events.count == 3)
        #expect(Self.summary(events[1]) == ["deleted Call 1 -"])
        #expect(Self.summary(events[2]) == ["inserted Write - 1"])
    }

    @Test("A store that posts remote-change notifications: another coordinator's commit reaches the list through the persistent history")
    func anotherCoordinatorsCommitAppears() async throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        let follower = try TodoPersistence.makeContainer(storeURL: todo.store, watchingRemoteChanges: true)
        let writer = TodoRepository(container: try TodoPersistence.makeContainer(storeURL: todo.store))
        let recorder = Recorder()
        await recorder.start(try await TodoRepository(container: follower).follow())
        defer { Task { await recorder.stop() } }
        #expect(await recorder.events(atLeast: 1).first == .list([]))
        let added = try await writer.add(title: "Buy milk", tags: ["home"])
        _ = try await writer.setDone(added.id, true)
        let events = await recorder.events(atLeast: 3)
        try #require(events.count == 3)
        #expect(Self.summary(events[1]) == ["inserted Buy milk - 1"])
        #expect(Self.summary(events[2]) == ["updated Buy milk 1 1"])
        if case .changes(let changes) = events[1] { #expect(changes.first?.item.tags.map(\.title) == ["home"]) }
    }

    @Test("todo list --follow --changes 1 prints the list, then the to-do another todo process adds, and exits 0")
    func followsAnotherProcess() throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        let executable = try #require(TodoBinary.executable)
        try todo.ok(["add", "Already there"])  // creates the store
        let out = todo.directory.appendingPathComponent("follow.out")
        let err = todo.directory.appendingPathComponent("follow.err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let follower = Process()
        follower.executableURL = executable
        follower.arguments = ["list", "--follow", "--changes", "1", "--store", todo.store.path]
        follower.standardOutput = try FileHandle(forWritingTo: out)
        follower.standardError = try FileHandle(forWritingTo: err)
        follower.standardInput = FileHandle.nullDevice
        try follower.run()
        defer { if follower.isRunning { follower.terminate() } }
        // Ready once it says so on standard error (after its first fetch).
        #expect(TodoWatchTests.lines(in: err, atLeast: 1, while: follower).first?.hasPrefix("Following") == true)

        try todo.ok(["add", "Buy milk"])
        let deadline = Date().addingTimeInterval(60)
        while follower.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(!follower.isRunning, "the follower did not exit after one change")
        if follower.isRunning { follower.terminate() }
        follower.waitUntilExit()
        #expect(follower.terminationStatus == 0)
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ID") == true)
        #expect(lines.contains { $0.contains("Already there") })
        #expect(lines.contains("1 to-do(s)"))
        #expect(lines.last?.hasPrefix("inserted ") == true && lines.last?.hasSuffix("[ ] \"Buy milk\" at row 1") == true)
    }

    @Test("list --changes without --follow, and --follow with --json or paging, are usage errors")
    func followOptionsAreChecked() throws {
        let todo = try TodoBinary()
        defer { todo.remove() }
        #expect(try todo.run(["list", "--changes", "1"]).status != 0)
        #expect(try todo.run(["list", "--follow", "--json"]).status != 0)
        #expect(try todo.run(["list", "--follow", "--page", "2"]).status != 0)
        #expect(try todo.run(["list", "--follow", "--changes", "0"]).status != 0)
    }
}
