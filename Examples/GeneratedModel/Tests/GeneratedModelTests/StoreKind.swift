import Foundation

/// The stores the sample's tests run on.
enum StoreKind: String, CaseIterable, Sendable {
    case inMemory
    case sqlite

    /// A new store file in a new temporary folder for SQLite, nil for in memory.
    func newStoreURL() throws -> URL? {
        guard self == .sqlite else { return nil }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("GeneratedModel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("Store.sqlite")
    }
}
