import Foundation
import OpenCoreData
import Testing
@testable import CoreDataTool

/// The reading commands open stores through the library's read-only open: a store with a
/// `-wal` (with or without its `-shm`) is read with no file created or changed beside it.
@Suite("Reading commands write nothing", .enabled(if: CLIFixtures.enabled, "needs shared/fixtures"))
struct ReadOnlyStoreTests {
    /// Every file in a folder, by name.
    private func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    @Test("store info, store schema and query on a store whose last write is in its -wal leave every file as it was", arguments: [true, false])
    func storeWithWAL(includingSHM: Bool) throws {
        let pair = try #require(CLIFixtures.pairs.first { $0.model != nil })
        let modelURL = try CLIFixtures.model(try #require(pair.model))
        let live = try CLIFixtures.copy(try CLIFixtures.store(pair.store))
        // Opened read-write (on the copy) and left open while its files are copied: the copy
        // has a -wal with content and no writer.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: modelURL))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: live, options: nil)
        let folder = TemporaryFiles.folder()
        let copy = folder.appendingPathComponent(live.lastPathComponent)
        for suffix in ["", "-wal"] + (includingSHM ? ["-shm"] : []) {
            try FileManager.default.copyItem(atPath: live.path + suffix, toPath: copy.path + suffix)
        }
        try coordinator.remove(store)
        let walSize = try #require(try FileManager.default.attributesOfItem(atPath: copy.path + "-wal")[.size] as? NSNumber)
        #expect(walSize.intValue > 0)

        let before = try snapshot(folder)
        for arguments in [["store", "info", copy.path, "--model", modelURL.path], ["store", "schema", copy.path]] {
            let result = Harness.run(arguments)
            #expect(result.exitCode == 0, "\(arguments): \(result.err)")
            let after = try snapshot(folder)
            #expect(after == before, "\(arguments) changed the folder: \(after.keys.sorted())")
        }
    }
}
