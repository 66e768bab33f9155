import Foundation
import Synchronization
import Testing
@testable import OpenCoreData

/// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`: a coordinator posts
/// `NSPersistentStoreRemoteChange` after every commit to its store's file, "this includes
/// writes that are done by other processes" (Apple's header), with the store's UUID and URL.
@Suite("Remote change notifications")
struct RemoteChangeTests {
    typealias M = TestModels
    static let writerVariable = "OPENCOREDATA_REMOTE_WRITER_STORE"
    static var posting: [AnyHashable: Any] { [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true] }

    /// The user infos of notifications received, as strings.
    final class Received: Sendable {
        let infos = Mutex<[[String: String]]>([])
    }

    /// Collects the remote-change notifications one coordinator posts.
    ///
    /// `@unchecked Sendable`: `observer` is set once in `init`; `received` is Sendable.
    final class Recorder: @unchecked Sendable {
        let received = Received()
        private let observer: any NSObjectProtocol

        init(_ coordinator: NSPersistentStoreCoordinator) {
            let received = self.received
            observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { note in
                var info: [String: String] = [:]
                for (key, value) in note.userInfo ?? [:] { info["\(key)"] = "\(value)" }
                received.infos.withLock { $0.append(info) }
            }
        }

        var count: Int { received.infos.withLock { $0.count } }
        var first: [String: String]? { received.infos.withLock { $0.first } }

        /// Waits until at least `count` notifications arrived or 20 seconds passed (a bound
        /// against hanging, not a timing assertion).
        func wait(forAtLeast count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while self.count < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            return self.count >= count
        }

        deinit {
            NotificationCenter.default.removeObserver(observer)
        }
    }

    static func insertAndSave(_ context: NSManagedObjectContext, name: String) throws {
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue(name, forKey: "name")
            try context.save()
        }
    }

    @Test("A save through another coordinator on the same file is posted, with the store's UUID and URL, object the coordinator")
    func otherCoordinator() throws {
        let url = TestStoreFiles.newStoreURL()
        let watching = try M.sqliteContext(M.personModel(), url: url, options: Self.posting)
        let coordinator = try #require(watching.persistentStoreCoordinator)
        let recorder = Recorder(coordinator)
        let writer = try M.sqliteContext(M.personModel(), url: url)
        try Self.insertAndSave(writer, name: "Ada")
        #expect(recorder.wait(forAtLeast: 1))
        let info = try #require(recorder.first)
        #expect(info[NSStoreUUIDKey] == coordinator.persistentStores[0].identifier)
        #expect(info[NSPersistentStoreURLKey] == url.description)
    }

    @Test("With persistent history the notification carries the token of the latest transaction, and the history after an earlier token holds the other coordinator's save")
    func historyToken() throws {
        let url = TestStoreFiles.newStoreURL()
        let tracked: [AnyHashable: Any] = Self.posting.merging([NSPersistentHistoryTrackingKey: true]) { $1 }
        let watching = try M.sqliteContext(M.personModel(), url: url, options: tracked)
        let coordinator = try #require(watching.persistentStoreCoordinator)
        try Self.insertAndSave(watching, name: "Ada")
        let before = try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
        let recorder = Recorder(coordinator)
        let writer = try M.sqliteContext(M.personModel(), url: url, options: [NSPersistentHistoryTrackingKey: true])
        writer.transactionAuthor = "importer"
        try Self.insertAndSave(writer, name: "Grace")
        #expect(recorder.wait(forAtLeast: 1))
        let posted = recorder.received.infos.withLock { $0.last?[NSPersistentHistoryTokenKey] }
        #expect(posted != nil && posted == coordinator.currentPersistentHistoryToken(fromStores: nil).map { "\($0)" })
        try watching.performAndWait {
            let result = try watching.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: before)) as? NSPersistentHistoryResult
            let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
            #expect(transactions.map(\.author) == ["importer"])
        }
    }

    @Test("The coordinator's own saves are posted too (every write to the store)")
    func ownSave() throws {
        let context = try M.sqliteContext(M.personModel(), options: Self.posting)
        let recorder = Recorder(try #require(context.persistentStoreCoordinator))
        try Self.insertAndSave(context, name: "Grace")
        #expect(recorder.wait(forAtLeast: 1))
    }

    @Test("Without the option nothing is posted; after removing the store nothing more is")
    func withoutOption() throws {
        let url = TestStoreFiles.newStoreURL()
        let silent = try M.sqliteContext(M.personModel(), url: url)
        let silentRecorder = Recorder(try #require(silent.persistentStoreCoordinator))
        let watching = try M.sqliteContext(M.personModel(), url: url, options: Self.posting)
        let watchingCoordinator = try #require(watching.persistentStoreCoordinator)
        let recorder = Recorder(watchingCoordinator)
        let writer = try M.sqliteContext(M.personModel(), url: url)
        try Self.insertAndSave(writer, name: "Ada")
        #expect(recorder.wait(forAtLeast: 1))
        #expect(silentRecorder.count == 0)

        try watchingCoordinator.remove(watchingCoordinator.persistentStores[0])
        let before = recorder.count
        try Self.insertAndSave(writer, name: "Alan")
        // The store that still watches nothing and the removed one post nothing; a third
        // watcher shows the commit was visible.
        let third = try M.sqliteContext(M.personModel(), url: url, options: Self.posting)
        let thirdRecorder = Recorder(try #require(third.persistentStoreCoordinator))
        try Self.insertAndSave(writer, name: "Barbara")
        #expect(thirdRecorder.wait(forAtLeast: 1))
        #expect(recorder.count == before)
        #expect(silentRecorder.count == 0)
    }

    // MARK: - Another process

    /// The writer process: opens the store, saves one person, exits. Does nothing in a normal run.
    @Test("Remote writer child process (idle unless re-invoked by the other-process test)")
    func remoteWriterChild() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.writerVariable] else { return }
        let context = try M.sqliteContext(M.personModel(), url: URL(fileURLWithPath: path))
        try Self.insertAndSave(context, name: "from another process")
        FileHandle.standardOutput.write(Data("SAVED\n".utf8))
    }

    @Test("A commit by another process is posted")
    func otherProcess() throws {
        let url = TestStoreFiles.newStoreURL()
        let watching = try M.sqliteContext(M.personModel(), url: url, options: Self.posting)
        let recorder = Recorder(try #require(watching.persistentStoreCoordinator))
        let (child, output) = try MigrationCrashTests.startChild(url, variable: Self.writerVariable, test: "remoteWriterChild")
        let text = MigrationCrashTests.wait(for: "SAVED", in: output)
        child.waitUntilExit()
        #expect(text.contains("SAVED"))
        #expect(recorder.wait(forAtLeast: 1))
        try watching.performAndWait {
            let names = try watching.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String }
            #expect(names == ["from another process"])
        }
    }
}
