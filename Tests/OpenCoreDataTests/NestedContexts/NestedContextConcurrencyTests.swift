import Foundation
import Testing
@testable import OpenCoreData

@Suite("Nested contexts: queues and concurrency")
struct NestedContextConcurrencyTests {
    /// Errors collected from several threads.
    final class Failures: @unchecked Sendable {
        // @unchecked: `list` is only touched under `lock`.
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ failure: String) { lock.withLock { list.append(failure) } }
        var all: [String] { lock.withLock { list } }
    }

    /// Runs `body(index)` on `count` new threads at once; returns when all have finished,
    /// without blocking a Swift-concurrency thread or the main queue (which a main-queue parent needs).
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
    }

    @Test("newBackgroundContext() and performBackgroundTask(_:) stay coordinator-backed, as Apple's")
    func backgroundContextsHaveNoParent() async throws {
        let container = NSPersistentContainer(name: "Nest", managedObjectModel: TestModels.todoModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let background = container.newBackgroundContext()
        #expect(background.parent == nil)
        #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)
        let hasParent = await withCheckedContinuation { continuation in
            container.performBackgroundTask { context in
                continuation.resume(returning: context.parent != nil || context.persistentStoreCoordinator !== container.persistentStoreCoordinator)
            }
        }
        #expect(!hasParent)
    }

    @Test("A child's performAndWait { save } waits for its busy parent's queue instead of deadlocking", arguments: StoreKind.allCases)
    func saveWhileParentBusy(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.todoModel())
        let child = Nesting.child(of: root)
        let started = DispatchSemaphore(value: 0)
        root.perform {
            started.signal()
            Thread.sleep(forTimeInterval: 0.05)
        }
        started.wait()
        try child.performAndWait {
            Nesting.todo("while busy", in: child)
            try child.save()
        }
        root.performAndWait { #expect(root.insertedObjects.count == 1) }
    }

    @Test("performAndWait nests on one queue, and a child's block may wait on its parent's queue", arguments: StoreKind.allCases)
    func nestedPerformAndWait(_ kind: StoreKind) throws {
        let root = try kind.context(TestModels.todoModel())
        let child = Nesting.child(of: root)
        let titles = try child.performAndWait {
            try child.performAndWait {
                Nesting.todo("inner", in: child)
                try child.save()
            }
            return try root.performAndWait { try root.performAndWait { try Nesting.titles(root) } }
        }
        #expect(titles == ["inner"])
    }

    @Test("8 private children of a main-queue parent save 1,000 times each from their own threads: every object arrives exactly once", arguments: StoreKind.allCases)
    func stress(_ kind: StoreKind) async throws {
        let coordinator = try #require(try kind.context(TestModels.todoModel()).persistentStoreCoordinator)
        let parent = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        parent.persistentStoreCoordinator = coordinator
        let children = (0..<8).map { _ in Nesting.child(of: parent) }
        let failures = Failures()
        await Self.onThreads(children.count) { index in
            let child = children[index]
            for n in 0..<1_000 {
                do {
                    try child.performAndWait {
                        Nesting.todo("\(index)-\(n)", in: child)
                        try child.save()
                    }
                } catch {
                    failures.add("\(index)-\(n): \(error)")
                }
            }
        }
        #expect(failures.all.isEmpty)
        let (inserted, distinct) = await MainActor.run {
            parent.performAndWait {
                let titles = parent.insertedObjects.compactMap { $0.value(forKey: "title") as? String }
                return (titles.count, Set(titles).count)
            }
        }
        #expect(inserted == 8_000)
        #expect(distinct == 8_000)
        try await MainActor.run { try parent.performAndWait { try parent.save() } }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let stored = try reader.performAndWait { try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "TodoEntity")) }
        #expect(stored == 8_000)
    }
}
