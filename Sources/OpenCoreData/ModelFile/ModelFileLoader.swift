import Foundation
import Logging

extension Log {
    /// Model file events: a model that could not be loaded by a non-throwing API.
    package static let modelFile = Logger(label: "OpenCoreData.ModelFile")
}

/// Loads a model from any of the forms Xcode produces, chosen by what the URL points to:
///
/// | URL | read as |
/// |---|---|
/// | `Foo.xcdatamodeld/` | its current `.xcdatamodel` version |
/// | `Foo.xcdatamodel/` | its `contents` XML (Xcode 4+); a legacy `elements` file is refused |
/// | `Foo.momd/` | its current `.mom` (from `VersionInfo.plist`) |
/// | `Foo.mom`, or any binary-plist keyed archive | the compiled model |
/// | `contents`, or any XML file | model XML |
package enum ModelFileLoader {
    /// Fills `model` from the file or bundle at `url`.
    ///
    /// - Throws: An `NSError` in `NSCocoaErrorDomain` naming the file (and entity and property
    ///   when the problem is inside the model): 260 for a missing file or version, 259 for a
    ///   malformed or unsupported file, 134060 for an inconsistent model.
    package static func load(_ url: URL, into model: NSManagedObjectModel) throws {
        let location = ModelFileLocation(url: url)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError.missing(location, "no such file or folder")
        }
        if isDirectory.boolValue {
            try loadDirectory(url, into: model)
        } else {
            try loadFile(url, into: model)
        }
    }

    private static func loadDirectory(_ url: URL, into model: NSManagedObjectModel) throws {
        let fileManager = FileManager.default
        let location = ModelFileLocation(url: url)
        switch url.pathExtension {
        case "xcdatamodeld", "momd":
            try load(ModelBundle(url: url).currentVersionURL, into: model)
            model.versionBundleURL = url
            return
        default:
            break
        }
        let contents = url.appendingPathComponent("contents")
        if fileManager.fileExists(atPath: contents.path) {
            try loadFile(contents, into: model)
            return
        }
        if fileManager.fileExists(atPath: url.appendingPathComponent("elements").path) {
            throw ModelFileError.corrupt(location, "this is a model in the legacy pre-Xcode 4 format (an 'elements' archive), which is not supported; open it in Xcode 4 or later and save it to convert it to the XML format")
        }
        if url.pathExtension == "xcdatamodel" {
            throw ModelFileError.missing(location, "the model folder has no 'contents' file")
        }
        let names = (try? fileManager.contentsOfDirectory(atPath: url.path)) ?? []
        if names.contains(where: { ($0 as NSString).pathExtension == "xcdatamodel" }) ||
            names.contains("VersionInfo.plist") {
            try load(ModelBundle(url: url).currentVersionURL, into: model)
            return
        }
        throw ModelFileError.corrupt(location, "the folder is not a model (.xcdatamodeld, .xcdatamodel or .momd)")
    }

    private static func loadFile(_ url: URL, into model: NSManagedObjectModel) throws {
        let location = ModelFileLocation(url: url)
        if url.pathExtension == "omo" {
            throw ModelFileError.corrupt(location, "'.omo' optimized models are not supported; load the .momd folder or the .mom next to it")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelFileError.unreadable(location, underlying: error)
        }
        try load(data, url: url, into: model)
    }

    /// Reads model data whose format is recognised from its first bytes.
    package static func load(_ data: Data, url: URL?, into model: NSManagedObjectModel) throws {
        let location = ModelFileLocation(url: url)
        let head = String(decoding: data.prefix(512), as: UTF8.self)
        if data.starts(with: Array("bplist".utf8)) {
            try ModelArchiveReader(url: url).read(data, into: model)
        } else if head.contains("<plist") {
            try ModelArchiveReader(url: url).read(data, into: model)
        } else if head.contains("<") {
            try XMLModelReader(url: url).read(data, into: model)
        } else if data.isEmpty {
            throw ModelFileError.corrupt(location, "the file is empty")
        } else {
            throw ModelFileError.corrupt(location, "the file is neither model XML nor a compiled model")
        }
    }

    /// Decodes a store's `Z_MODELCACHE.Z_CONTENT`: a raw DEFLATE stream of a keyed archive.
    package static func loadModelCache(_ data: Data, into model: NSManagedObjectModel) throws {
        let location = ModelFileLocation(url: nil, source: "the store's Z_MODELCACHE")
        let archive: Data
        if data.starts(with: Array("bplist".utf8)) {
            archive = data
        } else {
            do {
                archive = try Inflate.decompress(data)
            } catch {
                throw ModelFileError.corrupt(location, "the model cache is not a valid DEFLATE stream (\(error))", underlying: error)
            }
        }
        try ModelArchiveReader(location: location).read(archive, into: model)
    }
}
