import Foundation
import Logging

extension Log {
    /// Mapping model events: a file a non-throwing API could not load, or skipped in a bundle search.
    package static let mappingModel = Logger(label: "OpenCoreData.MappingModel")
}

extension NSMappingModel {
    // MARK: - Loading a file

    /// Loads the mapping model at a URL, or returns nil when it can't be loaded.
    ///
    /// Accepts a compiled mapping model (`.cdm`), as Apple's does, and on every platform also
    /// Xcode's source (a `.xcmappingmodel` folder or its `xcmapping.xml`): Linux has no mapping
    /// model compiler. A source mapping model needs its source and destination models nearby (see
    /// docs/MappingModels.md). The reason for a failure is logged.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmappingmodel/init(contentsof:)>.
    public convenience init?(contentsOf url: URL?) {
        guard let url else { return nil }
        let loaded: NSMappingModel
        do {
            loaded = try NSMappingModel.load(from: url)
        } catch {
            Log.mappingModel.error("\(error.localizedDescription)")
            return nil
        }
        self.init()
        entityMappings = loaded.entityMappings
    }

    /// Loads the mapping model at a URL, throwing an error that says what is wrong and where.
    ///
    /// - Parameters:
    ///   - url: A `.cdm` file, a `.xcmappingmodel` folder or an `xcmapping.xml` file.
    ///   - sourceModel: For a `.xcmappingmodel`, the source model to use instead of the one it records.
    ///   - destinationModel: For a `.xcmappingmodel`, the destination model to use instead of the one it records.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain` whose description names the file and the
    ///   entity and property mapping: `NSFileReadNoSuchFileError` (260) when the file, or a
    ///   model a `.xcmappingmodel` needs, is missing; `NSFileReadCorruptFileError` (259) for a
    ///   truncated or malformed file, an unknown mapping type, a missing key, a value of the wrong
    ///   type or an expression that can't be read; `NSFileReadUnknownError` (256) when the file
    ///   can't be read.
    package static func load(from url: URL, sourceModel: NSManagedObjectModel? = nil,
                             destinationModel: NSManagedObjectModel? = nil) throws -> NSMappingModel {
        let file: URL
        let data: Data
        do {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw MappingModelFailure.missing("no such file or folder")
            }
            file = isDirectory.boolValue ? url.appendingPathComponent("xcmapping.xml") : url
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw MappingModelFailure.missing("the folder has no xcmapping.xml")
            }
            do {
                data = try Data(contentsOf: file)
            } catch {
                throw MappingModelFailure(code: NSFileReadUnknownError, reason: "the file could not be read: \(error.localizedDescription)", underlying: error)
            }
        } catch {
            throw MappingModelError.make(error, url: url)
        }
        return try load(data, file: file, reportedAs: url, sourceModel: sourceModel, destinationModel: destinationModel)
    }

    /// Reads mapping model data: a keyed archive (`.cdm`) or an `xcmapping.xml`, whose models are
    /// looked for near `file`. Errors name `url`.
    static func load(_ data: Data, file: URL, reportedAs url: URL? = nil, sourceModel: NSManagedObjectModel? = nil,
                     destinationModel: NSManagedObjectModel? = nil) throws -> NSMappingModel {
        do {
            if data.starts(with: Array("bplist".utf8)) {
                return try MappingArchiveReader(url: file).read(data)
            }
            // An xcmapping.xml holds a <plist> too (its metadata), after the <database> root.
            let head = String(decoding: data.prefix(512), as: UTF8.self)
            if head.contains("<database") || (!head.contains("<plist") && file.lastPathComponent == "xcmapping.xml") {
                return try MappingXMLReader(url: file).read(data, sourceModel: sourceModel, destinationModel: destinationModel)
            }
            // A keyed archive in XML property list form, or garbage: the archive reader says which.
            return try MappingArchiveReader(url: file).read(data)
        } catch {
            throw MappingModelError.make(error, url: url ?? file)
        }
    }

    // MARK: - Finding one in bundles

    /// The mapping model in the bundles made for migrating `sourceModel` to `destinationModel`,
    /// or nil when none is.
    ///
    /// Searches the top of each bundle's resources (the main bundle and the SwiftPM resource
    /// bundles beside the executable when `bundles` is nil) for `.cdm` files and, since Linux has
    /// no mapping model compiler, `.xcmappingmodel` folders. A mapping model matches when every
    /// entity mapping's source version hash equals the source model's hash for that entity and
    /// its destination version hash the destination model's (add mappings have no source, remove
    /// mappings no destination). Compiled files are tried first; files that can't be loaded are
    /// logged and skipped.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nsmappingmodel/init(from:forsourcemodel:destinationmodel:)>.
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
                             destinationModel: NSManagedObjectModel?) {
        guard sourceModel != nil || destinationModel != nil,
              let found = Self.find(in: ModelLocator.searchFolders(bundles: bundles), sourceModel: sourceModel, destinationModel: destinationModel)
        else { return nil }
        self.init()
        entityMappings = found.entityMappings
    }

    /// The first mapping model at the top of `folders` made for the two models (nil: not checked).
    package static func find(in folders: [URL], sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?) -> NSMappingModel? {
        let sourceHashes = sourceModel?.entityVersionHashesByName
        let destinationHashes = destinationModel?.entityVersionHashesByName
        for candidate in MappingModelFiles.candidates(in: folders) {
            let loaded: NSMappingModel
            do {
                loaded = try NSMappingModel.load(from: candidate)
            } catch {
                Log.mappingModel.notice("skipped while looking for a mapping model: \(error.localizedDescription)")
                continue
            }
            if loaded.matches(sourceHashes: sourceHashes, destinationHashes: destinationHashes) { return loaded }
        }
        return nil
    }

    /// Whether every entity mapping was made for these entity versions (nil hashes: not checked).
    func matches(sourceHashes: [String: Data]?, destinationHashes: [String: Data]?) -> Bool {
        let mappings = entityMappings ?? []
        guard !mappings.isEmpty else { return false }
        for mapping in mappings {
            if let sourceHashes, let name = mapping.sourceEntityName {
                guard let hash = sourceHashes[name], mapping.sourceEntityVersionHash == hash else { return false }
            }
            if let destinationHashes, let name = mapping.destinationEntityName {
                guard let hash = destinationHashes[name], mapping.destinationEntityVersionHash == hash else { return false }
            }
        }
        return true
    }
}
