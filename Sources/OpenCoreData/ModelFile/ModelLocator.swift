import Foundation

/// Finds model files in bundles: the main bundle, SwiftPM resource bundles and loaded bundles.
///
/// SwiftPM copies a target's resources into a bundle next to the executable
/// (`<Package>_<Target>.resources` on Linux, `<Package>_<Target>.bundle` on Apple platforms);
/// Linux has no `momc`, so a model usually arrives there as its `.xcdatamodeld` source. Both
/// compiled and source forms are looked for, compiled first.
package enum ModelLocator {
    /// Model file extensions in order of preference.
    static let extensions = ["momd", "mom", "xcdatamodeld", "xcdatamodel"]

    /// The folders searched for a model named by the container: each bundle's resources and
    /// top folder, and the SwiftPM resource bundles beside the main executable.
    package static func searchFolders(bundles: [Bundle]?) -> [URL] {
        var folders: [URL] = []
        func add(_ url: URL?) {
            guard let url = url?.standardizedFileURL, !folders.contains(url) else { return }
            folders.append(url)
        }
        let chosen = bundles ?? ([Bundle.main] + Bundle.allBundles)
        for bundle in chosen {
            add(bundle.resourceURL)
            add(bundle.bundleURL)
        }
        if bundles == nil {
            for folder in [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()] {
                for resourceBundle in resourceBundles(in: folder) {
                    add(Bundle(url: resourceBundle)?.resourceURL ?? resourceBundle)
                    add(resourceBundle)
                }
            }
        }
        return folders
    }

    /// The SwiftPM resource bundles (`*.resources`, `*.bundle`) directly in a folder.
    static func resourceBundles(in folder: URL?) -> [URL] {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.sorted()
            .filter { $0.hasSuffix(".resources") || $0.hasSuffix(".bundle") }
            .map { folder.appendingPathComponent($0, isDirectory: true) }
    }

    /// The model named `name` in the folders, and every path that was tried.
    package static func find(named name: String, in folders: [URL]) -> (url: URL?, tried: [String]) {
        var tried: [String] = []
        for folder in folders {
            for pathExtension in extensions {
                let candidate = folder.appendingPathComponent("\(name).\(pathExtension)")
                tried.append(candidate.path)
                if FileManager.default.fileExists(atPath: candidate.path) { return (candidate, tried) }
            }
        }
        return (nil, tried)
    }

    /// The model files directly in a folder, compiled forms first, each kind in name order.
    package static func modelFiles(in folder: URL) -> [URL] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return extensions.flatMap { pathExtension in
            names.sorted().filter { ($0 as NSString).pathExtension == pathExtension }.map { folder.appendingPathComponent($0) }
        }
    }

    /// Loads the model named `name`, searching `bundles` (the main bundle, SwiftPM resource
    /// bundles and all loaded bundles when nil).
    ///
    /// - Throws: `NSFileReadNoSuchFileError` listing every path tried when there is no such model,
    ///   or the loading error.
    package static func loadModel(named name: String, bundles: [Bundle]?) throws -> NSManagedObjectModel {
        let folders = searchFolders(bundles: bundles)
        let (url, tried) = find(named: name, in: folders)
        guard let url else {
            let folderList = folders.map(\.path).joined(separator: "\n  ")
            let reason = "no model named '\(name)' (\(extensions.map { "\(name).\($0)" }.joined(separator: ", "))) was found. Looked in:\n  \(folderList)\nAdd the model to a target's resources (for SwiftPM: resources: [.copy(\"\(name).xcdatamodeld\")]) or pass the bundle that holds it"
            var info: [String: Any] = [
                NSLocalizedDescriptionKey: "Can't find the Core Data model '\(name)': \(reason).",
                NSLocalizedFailureReasonErrorKey: reason,
            ]
            info["OCDSearchedPaths"] = tried
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadNoSuchFileError, userInfo: info)
        }
        return try NSManagedObjectModel.load(contentsOf: url)
    }

    /// Every model in the bundles' resources, one per name, compiled forms preferred.
    package static func modelURLs(in bundles: [Bundle]) -> [URL] {
        var byName: [String: URL] = [:]
        var order: [String] = []
        for bundle in bundles {
            for folder in [bundle.resourceURL, bundle.bundleURL].compactMap({ $0 }) {
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
                for fileName in names.sorted() {
                    let pathExtension = (fileName as NSString).pathExtension
                    guard let rank = extensions.firstIndex(of: pathExtension) else { continue }
                    let name = (fileName as NSString).deletingPathExtension
                    let url = folder.appendingPathComponent(fileName)
                    if let existing = byName[name] {
                        let existingRank = extensions.firstIndex(of: existing.pathExtension) ?? extensions.count
                        if rank < existingRank { byName[name] = url }
                    } else {
                        byName[name] = url
                        order.append(name)
                    }
                }
            }
        }
        return order.compactMap { byName[$0] }
    }

    /// Every version of a model bundle (current first), or the file itself when it is not versioned.
    package static func versionURLs(of url: URL) -> [URL] {
        guard ["momd", "xcdatamodeld"].contains(url.pathExtension), let bundle = try? ModelBundle(url: url) else { return [url] }
        let current = bundle.currentVersionURL
        return [current] + bundle.versions.map(\.url).filter { $0 != current }
    }
}
