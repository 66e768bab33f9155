import Foundation
import GRDB
import Testing
@testable import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process killed with SIGKILL in the middle of a save leaves the store with all of that save
/// or none of it. The child is this test binary, re-invoked to run `durabilityChild`.
@Suite("SQLite durability")
struct SQLiteDurabilityTests {
    static let childVariable = "OPENCOREDATA_DURABILITY_CHILD_STORE"
    static let batchSize = 2_000

    static func model() -> NSManagedObjectModel {
        let item = TestModels.entity("Item", [
            TestModels.attribute("batch", .integer64AttributeType), TestModels.attribute("index", .integer64AttributeType),
            TestModels.attribute("payload", .stringAttributeType),
        ])
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    /// The child's work: save batches of rows until killed. Does nothing in a normal test run.
    @Test("Durability child process (idle unless re-invoked by the SIGKILL test)")
    func durabilityChild() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let context = try TestModels.sqliteContext(Self.model(), url: URL(fileURLWithPath: path))
        try context.performAndWait {
            var batch = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) / Self.batchSize
            while true {
                for index in 0..<Self.batchSize {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    item.setValue(batch, forKey: "batch")
                    item.setValue(index, forKey: "index")
                    item.setValue(String(repeating: "payload ", count: 8), forKey: "payload")
                }
                FileHandle.standardOutput.write(Data("SAVING \(batch)\n".utf8))
                try context.save()
                FileHandle.standardOutput.write(Data("SAVED \(batch)\n".utf8))
                context.reset()
                batch += 1
            }
        }
    }

    @Test("SIGKILL during large saves: every batch is whole or absent after reopening")
    func killedMidSave() throws {
        let url = TestStoreFiles.newStoreURL()
        _ = try TestModels.sqliteContext(Self.model(), url: url)
        var executable = CommandLine.arguments[0]
        if !executable.hasPrefix("/") { executable = FileManager.default.currentDirectoryPath + "/" + executable }
        var savedBefore = 0
        for round in 0..<3 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--testing-library", "swift-testing", "--filter", "durabilityChild"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.childVariable] = url.path
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let pid = process.processIdentifier
            // A watchdog so a stuck child cannot hang the suite (no timing is asserted).
            DispatchQueue.global().asyncAfter(deadline: .now() + 300) { if process.isRunning { kill(pid, SIGKILL) } }

            // Kill the child right after it starts its second save of this round.
            var text = ""
            var savesStarted = 0
            while savesStarted < 2 {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
                savesStarted = text.components(separatedBy: "\n").filter { $0.hasPrefix("SAVING") }.count
            }
            kill(pid, SIGKILL)
            process.waitUntilExit()
            #expect(savesStarted >= 2, "the child stopped early (round \(round)): \(text.suffix(500))")
            #expect(process.terminationReason == .uncaughtSignal)
            savedBefore += text.components(separatedBy: "\n").filter { $0.hasPrefix("SAVED") }.count

            // Reopen: every batch is complete, batches are contiguous, Z_MAX covers the keys.
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            let (batches, maxKey, zmax) = try queue.read { db in
                (try Row.fetchAll(db, sql: "SELECT ZBATCH, COUNT(*) FROM ZITEM GROUP BY ZBATCH ORDER BY ZBATCH").map { ($0[0] as Int, $0[1] as Int) },
                 try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ZITEM") ?? 0,
                 try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'") ?? 0)
            }
            #expect(batches.allSatisfy { $0.1 == Self.batchSize }, "a partial save survived: \(batches)")
            #expect(batches.map(\.0) == Array(0..<batches.count))
            #expect(batches.count >= savedBefore)
            #expect(zmax >= maxKey)
            let integrity = try queue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
            #expect(integrity == "ok")
        }
    }
}
