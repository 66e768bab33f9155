import Foundation
import OpenCoreData

/// A model and where it came from.
struct ResolvedModel {
    /// Where a model was read from.
    enum Origin {
        /// A model file or bundle given on the command line.
        case file(String)
        /// A store's `Z_MODELCACHE`: the model the store was last saved with.
        case storeCache(String)
    }

    let model: NSManagedObjectModel
    let origin: Origin

    /// Whether the model is the store's own (so a hash difference is ours, not a real mismatch).
    var isStoreCache: Bool {
        if case .storeCache = origin { return true }
        return false
    }

    var originDescription: String {
        switch origin {
        case .file(let path): path
        case .storeCache(let path): "Z_MODELCACHE of \(path)"
        }
    }
}

/// Finds the model for a command: `--model` if given, else the store's `Z_MODELCACHE`, else an error.
enum ModelResolver {
    /// Loads a model file (`.xcdatamodeld`, `.xcdatamodel`, `.momd`, `.mom`), or the model cached
    /// in a store file when `path` is an SQLite store.
    static func load(path: String) throws -> ResolvedModel {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ToolError("no model at \(path)")
        }
        if !isDirectory.boolValue, StoreFile.looksLikeSQLite(path) {
            let store = try StoreFile(path: path)
            defer { store.close() }
            return try fromCache(of: store)
        }
        do {
            let model = try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: path))
            return ResolvedModel(model: model, origin: .file(path))
        } catch {
            throw ToolError("cannot load the model \(path): \(ToolError.describe(error))")
        }
    }

    /// The model of a store: `--model` when given, else its `Z_MODELCACHE`.
    static func resolve(modelPath: String?, store: StoreFile) throws -> ResolvedModel {
        if let modelPath { return try load(path: modelPath) }
        return try fromCache(of: store)
    }

    /// The model cached in a store.
    static func fromCache(of store: StoreFile) throws -> ResolvedModel {
        guard let cache = try store.modelCache() else {
            throw ToolError("\(store.url.path) has no model cache (Z_MODELCACHE); pass the model with --model <path to .xcdatamodeld, .momd or .mom>")
        }
        do {
            return ResolvedModel(model: try NSManagedObjectModel.fromModelCache(cache), origin: .storeCache(store.url.path))
        } catch {
            throw ToolError("cannot read the model cached in \(store.url.path) (Z_MODELCACHE): \(ToolError.describe(error)); pass the model with --model")
        }
    }
}
