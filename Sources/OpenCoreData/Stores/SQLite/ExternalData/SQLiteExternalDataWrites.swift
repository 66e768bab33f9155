import Foundation
import GRDB

/// The external-data files of one save: the files it writes (before its transaction commits)
/// and the files its updates and deletes make obsolete (removed once it has committed).
///
/// If the transaction fails, `discardWritten()` removes the new files and the old ones stay, so
/// neither a failed save nor a rolled-back context leaves a file no row refers to. A crash
/// between the commit and `removeObsolete()` can leave obsolete files behind (docs/StoreFormat.md).
///
/// Not Sendable: one save's transaction uses it on the writer's thread, then the saving thread.
final class SQLiteExternalDataWrites {
    let externalData: SQLiteExternalData
    private var written: [URL] = []
    private var obsolete: [URL] = []
    private var createdFolder = false

    init(_ externalData: SQLiteExternalData) {
        self.externalData = externalData
    }

    /// The values to bind for a row: each external slot's value larger than the threshold is
    /// written to a new file and replaced by its marker.
    ///
    /// In a store another implementation created, a value shaped like that implementation's
    /// reference (`SQLiteExternalData.foreignReference`) goes to a file too, whatever its size:
    /// a BLOB of that shape is then always the other implementation's, and a value of ours is
    /// never mistaken for a reference.
    func externalized(_ values: StoreValues, slots: [Int]) throws -> StoreValues {
        var values = values
        for slot in slots where slot < values.count {
            guard case .data(let data) = values[slot], needsFile(data) else { continue }
            values[slot] = .string(try write(data))
        }
        return values
    }

    /// Whether a value of a flagged attribute is written to a file (`externalized`).
    func needsFile(_ data: Data) -> Bool {
        data.count > externalData.threshold || (externalData.readsForeignReferences && SQLiteExternalData.foreignReference(data) != nil)
    }

    /// Records the files a row's previous column values own (the columns whose index `includes`
    /// accepts), to remove after the commit. Runs in the save's transaction, before the row
    /// changes: `db` is where the ownership of another implementation's reference is checked.
    func noteReplaced(_ row: Row, db: Database, includes: (Int) -> Bool) {
        for index in 0..<row.count where includes(index) {
            if let url = externalData.referencedFile(row[index] as DatabaseValue, db: db) { obsolete.append(url) }
        }
    }

    /// Writes a value to a new file (synced to disk before the row that refers to it commits).
    private func write(_ data: Data) throws -> String {
        let manager = FileManager.default
        if !createdFolder {
            do {
                try manager.createDirectory(at: externalData.folder, withIntermediateDirectories: true)
            } catch {
                throw fileError(error, "create the external data folder", path: externalData.folder.path)
            }
            createdFolder = true
        }
        let name = UUID()
        let url = externalData.fileURL(name)
        do {
            guard manager.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
            written.append(url)
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            throw fileError(error, "write the external data file", path: url.path)
        }
        return SQLiteExternalData.marker(name: name, byteCount: data.count)
    }

    /// Removes the files this save wrote (its transaction failed).
    func discardWritten() {
        for url in written { remove(url) }
        written.removeAll()
        obsolete.removeAll()
    }

    /// Removes the files the committed save made obsolete.
    func removeObsolete() {
        for url in obsolete { remove(url) }
        obsolete.removeAll()
        written.removeAll()
    }

    /// Removes files a committed change (a migration) left without a row.
    func removeAfterCommit(_ files: some Sequence<URL>) {
        for url in files { remove(url) }
    }

    private func remove(_ url: URL) {
        do {
            try FileManager.default.removeItem(at: url)
        } catch let error as CocoaError where error.code == .fileNoSuchFile {
            return
        } catch {
            Log.store.error("Removing the external data file \(url.path) failed: \(error)")
        }
    }

    private func fileError(_ error: Error, _ action: String, path: String) -> NSError {
        CoreDataError.make(NSPersistentStoreSaveError, "Cannot \(action) of the store \(externalData.storeURL.path): \(error). Nothing was saved.",
                           userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: error as NSError])
    }
}
