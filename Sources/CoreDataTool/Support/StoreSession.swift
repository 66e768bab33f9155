import Foundation
import OpenCoreData

/// A store opened through Core Data: coordinator, store and a private-queue context.
///
/// Read-only sessions open with `NSReadOnlyPersistentStoreOption`, so neither the file nor its
/// `-wal`/`-shm` companions change; writable sessions (import) create the store when it is missing.
final class StoreSession {
    let url: URL
    let resolved: ResolvedModel
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    let context: NSManagedObjectContext
    /// The raw file, for row counts and primary-key paging (read-only sessions only).
    let file: StoreFile?

    var model: NSManagedObjectModel { resolved.model }

    private init(url: URL, resolved: ResolvedModel, coordinator: NSPersistentStoreCoordinator,
                 store: NSPersistentStore, file: StoreFile?) {
        self.url = url
        self.resolved = resolved
        self.coordinator = coordinator
        self.store = store
        self.file = file
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    /// Opens a store read-only with its model.
    ///
    /// When the model's version hashes differ from the store's, this fails unless
    /// `ignoreModelMismatch` is set, or the model is the store's own `Z_MODELCACHE` (then the
    /// difference is in OpenCoreData's hashing, see docs/ModelFiles.md, and a warning is printed).
    static func openReadOnly(path: String, modelPath: String?, ignoreModelMismatch: Bool, console: Console) throws -> StoreSession {
        let file = try StoreFile(path: path)
        do {
            let resolved = try ModelResolver.resolve(modelPath: modelPath, store: file)
            let differing = resolved.model.entitiesDiffering(fromStoreMetadata: file.metadata, configuration: nil)
            var ignore = false
            if !differing.isEmpty {
                if ignoreModelMismatch {
                    console.warn("the model's version hashes differ from the store's for \(differing.joined(separator: ", ")); reading anyway (--ignore-model-mismatch)")
                    ignore = true
                } else if resolved.isStoreCache {
                    console.warn("the store's own model (Z_MODELCACHE) hashes differently from its metadata for \(differing.joined(separator: ", ")) (a known OpenCoreData limitation, docs/ModelFiles.md); reading with it anyway")
                    ignore = true
                } else {
                    throw ToolError(
                        "the model \(resolved.originDescription) does not match the store \(path): version hashes differ for \(differing.joined(separator: ", "))",
                        details: [
                            "hint: `coredata store info \(path) --model \(modelPath ?? "…")` compares them entity by entity;",
                            "      pass the model the store was made with, or --ignore-model-mismatch to read it with this one anyway.",
                        ])
                }
            }
            // The library's read-only open never creates or changes a file beside the store.
            var options: [AnyHashable: Any] = [NSReadOnlyPersistentStoreOption: true]
            if ignore { options[OCDReadOnlyIgnoringVersionHashesOption] = true }
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: resolved.model)
            // After the coordinator froze the model, which numbers its entities.
            try checkEntityNumbers(resolved.model, file: file, path: path)
            let store: NSPersistentStore
            do {
                store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: file.url, options: options)
            } catch {
                throw ToolError("cannot open \(path): \(ToolError.describe(error))")
            }
            return StoreSession(url: file.url, resolved: resolved, coordinator: coordinator, store: store, file: file)
        } catch {
            file.close()
            throw error
        }
    }

    /// Refuses a model whose entities the library would map onto another entity's rows.
    ///
    /// The SQLite store numbers the model's entities by their `Z_PRIMARYKEY` names; an entity the
    /// store does not know gets a number by position, which can be another entity's `Z_ENT`, and
    /// that entity's rows would then read as objects of the wrong entity. A renamed entity whose
    /// position number is its old name's (`renamingIdentifier`) is fine: that is how migrated
    /// stores such as CoreDataPlus-2018's SampleModelV1 read.
    private static func checkEntityNumbers(_ model: NSManagedObjectModel, file: StoreFile, path: String) throws {
        let rows = try file.entityRows()
        let names = Dictionary(rows.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        let known = Set(rows.map(\.name))
        let schema = StoreFile.schema(for: model, rows: rows)
        for entity in schema.entities {
            guard let name = entity.name, !known.contains(name) else { continue }
            let number = schema.entityNumber(of: entity)
            if let other = names[number], other != entity.renamingIdentifier {
                throw ToolError("the model's entity \(name) is not in the store \(path), and would be read from the rows of the store's entity \(other) (Z_ENT \(number)); pass the model the store was made with")
            }
        }
    }

    /// Opens a store for writing, creating it when no file exists; the model must match the store.
    static func openForWriting(path: String, modelPath: String?) throws -> StoreSession {
        let url = URL(fileURLWithPath: path)
        let exists = FileManager.default.fileExists(atPath: path)
        let resolved: ResolvedModel
        if exists {
            let file = try StoreFile(path: path)
            defer { file.close() }
            resolved = try ModelResolver.resolve(modelPath: modelPath, store: file)
            let differing = resolved.model.entitiesDiffering(fromStoreMetadata: file.metadata, configuration: nil)
            if !differing.isEmpty {
                throw ToolError("the model \(resolved.originDescription) does not match the store \(path): version hashes differ for \(differing.joined(separator: ", ")); a store is only written with the model it was made with")
            }
        } else if let modelPath {
            let directory = url.deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ToolError("cannot create the store \(path): the folder \(directory) does not exist")
            }
            resolved = try ModelResolver.load(path: modelPath)
        } else {
            throw ToolError("no store at \(path); to create it, pass its model with --model <path to .xcdatamodeld, .momd or .mom>")
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: resolved.model)
        do {
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            return StoreSession(url: url, resolved: resolved, coordinator: coordinator, store: store, file: nil)
        } catch {
            throw ToolError("cannot open \(path) for writing: \(ToolError.describe(error))")
        }
    }

    /// Closes the store and the raw file.
    func close() {
        try? coordinator.remove(store)
        file?.close()
    }
}

// MARK: - Reads that failed

extension StoreSession {
    /// The tool error of a read of this store that failed: the library's cause, naming the store.
    func readError(_ error: any Error) -> ToolError {
        ToolError("cannot read \(url.path): \(ToolError.describe(error))")
    }

    /// Throws, as a tool error, the first read of the session's context that failed since the
    /// last check (a fault or relationship fault the library could not fulfill): nothing read
    /// from such an object may be printed or judged.
    func throwReadFailure() throws {
        do {
            try context.throwPendingReadFailure()
        } catch {
            throw readError(error)
        }
    }
}
