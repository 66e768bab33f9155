import Foundation
import Testing
@testable import OpenCoreData

/// The name and bytes of every file in a store's folder: what "nothing was written" is checked against.
struct StoreFolderSnapshot: Equatable {
    let files: [String: Data]

    /// Reads every file in the folder of `store`.
    init(of store: URL) throws {
        let folder = store.deletingLastPathComponent()
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            var isDirectory: ObjCBool = false
            let path = folder.appendingPathComponent(name).path
            // A folder (a fixture's .momd) is listed by name; its contents are not the store's.
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                files[name + "/"] = Data()
            } else {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        self.files = files
    }

    /// The names of files that appeared, disappeared or changed, for failure messages.
    func differences(from other: StoreFolderSnapshot) -> [String] {
        Set(files.keys).union(other.files.keys).sorted().compactMap { name in
            switch (files[name], other.files[name]) {
            case (nil, _?): return "\(name) appeared"
            case (_?, nil): return "\(name) disappeared"
            case let (a?, b?) where a != b: return "\(name) changed"
            default: return nil
            }
        }
    }
}
