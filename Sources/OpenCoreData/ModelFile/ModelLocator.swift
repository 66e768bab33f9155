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
    /// top folder, and the SwiftPM resource bundles beside the main executable that belong to it.
    package static func searchFolders(bundles: [Bundle]?) -> [URL] {
        let (preferred, others) = searchFolders(bundles: bundles, preferredModule: nil)
        return preferred + others
    }

    /// The folders searched, in two tiers: the preferred ones (the resource bundle of
    /// `preferredModule`, the module that declares a container subclass, and of the executable's
    /// own target), then the others (the bundles' folders and the other resource bundles linked
    /// into the executable). A resource bundle of another executable or test target that
    /// happens to sit in the same build folder is never searched (`linkedResourceBundleNames`).
    package static func searchFolders(bundles: [Bundle]?, preferredModule: String?) -> (preferred: [URL], others: [URL]) {
        var preferred: [URL] = [], others: [URL] = []
        func add(_ url: URL?, preferring: Bool = false) {
            guard let url = url?.standardizedFileURL, !preferred.contains(url), !others.contains(url) else { return }
            if preferring { preferred.append(url) } else { others.append(url) }
        }
        guard bundles == nil else {
            for bundle in bundles ?? [] {
                add(bundle.resourceURL)
                add(bundle.bundleURL)
            }
            return (preferred, others)
        }
        let executable = Bundle.main.executableURL
        var besideExecutable: [URL] = []
        for folder in [Bundle.main.bundleURL, executable?.deletingLastPathComponent()] {
            for bundle in resourceBundles(in: folder) where !besideExecutable.contains(bundle) { besideExecutable.append(bundle) }
        }
        // The module declaring a container subclass and the executable's own target: their
        // bundles by name, whatever else the executable links.
        let preferredTargets = [preferredModule, executable?.lastPathComponent].compactMap { $0 }.map(c99Name)
        for bundle in besideExecutable where preferredTargets.contains(c99Name(targetName(of: bundle))) {
            add(Bundle(url: bundle)?.resourceURL ?? bundle, preferring: true)
            add(bundle, preferring: true)
        }
        for bundle in [Bundle.main] + Bundle.allBundles {
            add(bundle.resourceURL)
            add(bundle.bundleURL)
        }
        let linked = linkedResourceBundleNames
        for bundle in besideExecutable where linked?.contains(bundle.lastPathComponent) ?? true {
            add(Bundle(url: bundle)?.resourceURL ?? bundle)
            add(bundle)
        }
        return (preferred, others)
    }

    /// The target a SwiftPM resource bundle belongs to: `<Package>_<Target>.resources` (or
    /// `.bundle` on Apple platforms) names it after the package's first underscore.
    static func targetName(of bundle: URL) -> String {
        let name = (bundle.lastPathComponent as NSString).deletingPathExtension
        return name.split(separator: "_", maxSplits: 1).last.map(String.init) ?? name
    }

    /// A target's module name, as SwiftPM makes it (every character that is not a letter, a
    /// digit or `_` becomes `_`).
    static func c99Name(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar -> Character in
            (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_")) ? Character(scalar) : "_"
        })
    }

    /// The names of the resource bundles beside the executable that belong to targets linked
    /// into it, or nil when the executable cannot be read (then every bundle there is searched).
    ///
    /// SwiftPM's generated `Bundle.module` accessor of a target with resources spells its
    /// bundle's file name (`<Package>_<Target>.resources`) in the code, and every Swift symbol
    /// and type name of a module carries the module's mangled name (`13LookupModelsA`), so the
    /// executable's file holds one or the other for each target linked into it (a release build
    /// strips an accessor nobody calls, not the code the app uses), and neither for the bundles
    /// of other executables and test targets built into the same folder. Read once per process.
    static let linkedResourceBundleNames: Set<String>? = {
        guard let executable = Bundle.main.executableURL,
              let contents = try? Data(contentsOf: executable, options: .alwaysMapped) else { return nil }
        var names: Set<String> = []
        for folder in [Bundle.main.bundleURL, executable.deletingLastPathComponent()] {
            for bundle in resourceBundles(in: folder) {
                let module = c99Name(targetName(of: bundle))
                if ByteSearch.contains(contents, Data(bundle.lastPathComponent.utf8))
                    || ByteSearch.contains(contents, Data("\(module.utf8.count)\(module)".utf8)) {
                    names.insert(bundle.lastPathComponent)
                }
            }
        }
        return names
    }()

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

    /// Every file of the model named `name` in the folders, one per folder (compiled forms
    /// first), and every path that was tried.
    package static func findAll(named name: String, in folders: [URL]) -> (urls: [URL], tried: [String]) {
        var urls: [URL] = [], tried: [String] = []
        for folder in folders {
            for pathExtension in extensions {
                let candidate = folder.appendingPathComponent("\(name).\(pathExtension)")
                tried.append(candidate.path)
                if FileManager.default.fileExists(atPath: candidate.path) {
                    urls.append(candidate)
                    break
                }
            }
        }
        return (urls, tried)
    }

    /// Loads the model named `name`, searching `bundles` (when nil: the resource bundle of
    /// `preferredModule` and of the executable's own target first, then the main bundle, the
    /// other resource bundles linked into the executable and all loaded bundles).
    ///
    /// - Throws: `NSFileReadNoSuchFileError` listing every path tried when there is no such model;
    ///   `NSCoreDataError` listing them when several different models have the name and none is
    ///   preferred (a choice by folder order could be another target's model); or the loading error.
    package static func loadModel(named name: String, bundles: [Bundle]?, preferredModule: String? = nil) throws -> NSManagedObjectModel {
        let (preferred, others) = searchFolders(bundles: bundles, preferredModule: preferredModule)
        let own = findAll(named: name, in: preferred)
        if let url = own.urls.first { return try NSManagedObjectModel.load(contentsOf: url) }
        let (urls, triedOthers) = findAll(named: name, in: others)
        let tried = own.tried + triedOthers
        guard let first = urls.first else {
            let folderList = (preferred + others).map(\.path).joined(separator: "\n  ")
            let reason = "no model named '\(name)' (\(extensions.map { "\(name).\($0)" }.joined(separator: ", "))) was found. Looked in:\n  \(folderList)\nAdd the model to a target's resources (for SwiftPM: resources: [.copy(\"\(name).xcdatamodeld\")]) or pass the bundle that holds it"
            var info: [String: Any] = [
                NSLocalizedDescriptionKey: "Can't find the Core Data model '\(name)': \(reason).",
                NSLocalizedFailureReasonErrorKey: reason,
            ]
            info["OCDSearchedPaths"] = tried
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadNoSuchFileError, userInfo: info)
        }
        let model = try NSManagedObjectModel.load(contentsOf: first)
        // The same model copied into several bundles is one model; different ones are a choice
        // this lookup must not make.
        for url in urls.dropFirst() {
            let other = try? NSManagedObjectModel.load(contentsOf: url)
            if other?.entityVersionHashesByName != model.entityVersionHashesByName {
                let list = urls.map(\.path).joined(separator: "\n  ")
                throw CoreDataError.make(NSCoreDataError, "Several different Core Data models are named '\(name)':\n  \(list)\nNone belongs to the executable's own target; pass the bundle that holds yours (NSPersistentContainer(loadingModelNamed: \"\(name)\", in: [Bundle.module])).",
                                         userInfo: ["OCDCandidatePaths": urls.map(\.path)])
            }
        }
        return model
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
