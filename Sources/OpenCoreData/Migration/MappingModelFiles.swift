import Foundation

/// Where mapping model files and the models they were made for are found on disk.
enum MappingModelFiles {
    /// Mapping model extensions, compiled first: a bundle holding both forms of one mapping
    /// model uses the compiled one, as Apple's would.
    static let extensions = ["cdm", "xcmappingmodel"]

    /// How many folders up from the mapping model a recorded model path is looked for.
    static let maximumAncestors = 8

    /// The model a `.xcmappingmodel` records as `sourcemodelpath` or `destinationmodelpath`.
    ///
    /// The recorded path is relative to the Xcode project (`Tests/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel`),
    /// which a copied or moved mapping model no longer sits in. So, from the folder holding the
    /// `.xcmappingmodel` up to ``maximumAncestors`` levels, each folder is tried for the
    /// recorded path, then `SampleModel.xcdatamodeld/SampleModel2.xcdatamodel`,
    /// `SampleModel.momd/SampleModel2.mom`, `SampleModel2.xcdatamodel` and `SampleModel2.mom`.
    /// Only those paths are checked; no folder is listed.
    ///
    /// - Returns: The model's URL, or nil, and every path tried.
    static func modelURL(recordedPath: String, mappingFile: URL) -> (url: URL?, tried: [String]) {
        let components = recordedPath.split(separator: "/").map(String.init).filter { $0 != "." && !$0.isEmpty }
        guard let versionFile = components.last else { return (nil, []) }
        let version = (versionFile as NSString).deletingPathExtension
        var relatives = [components.joined(separator: "/")]
        if components.count >= 2, components[components.count - 2].hasSuffix(".xcdatamodeld") {
            let bundleName = components[components.count - 2]
            let base = (bundleName as NSString).deletingPathExtension
            relatives += ["\(bundleName)/\(versionFile)", "\(base).momd/\(version).mom"]
        }
        relatives += [versionFile, "\(version).mom"]
        var tried: [String] = []
        let fileManager = FileManager.default
        if recordedPath.hasPrefix("/") {
            tried.append(recordedPath)
            if fileManager.fileExists(atPath: recordedPath) { return (URL(fileURLWithPath: recordedPath), tried) }
        }
        var folder = mappingFolder(of: mappingFile).deletingLastPathComponent()
        for _ in 0..<maximumAncestors {
            for relative in relatives {
                let candidate = folder.appendingPathComponent(relative)
                tried.append(candidate.path)
                if fileManager.fileExists(atPath: candidate.path) { return (candidate, tried) }
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return (nil, tried)
    }

    /// The `.xcmappingmodel` folder of an `xcmapping.xml`, or the file's folder for a loose one.
    static func mappingFolder(of url: URL) -> URL {
        url.pathExtension == "xcmappingmodel" ? url : url.deletingLastPathComponent()
    }

    /// The mapping models (`.cdm` files and `.xcmappingmodel` folders) at the top of each folder,
    /// compiled ones first, each folder's in name order.
    static func candidates(in folders: [URL]) -> [URL] {
        var found: [[URL]] = Array(repeating: [], count: extensions.count)
        var seen = Set<String>()
        for folder in folders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names.sorted() {
                guard let rank = extensions.firstIndex(of: (name as NSString).pathExtension) else { continue }
                let url = folder.appendingPathComponent(name).standardizedFileURL
                guard seen.insert(url.path).inserted else { continue }
                found[rank].append(url)
            }
        }
        return found.flatMap { $0 }
    }
}
