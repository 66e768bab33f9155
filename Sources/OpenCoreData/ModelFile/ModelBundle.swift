import Foundation

/// The versions of a model bundle and which one is current.
///
/// - `.xcdatamodeld`: one `<Version>.xcdatamodel` folder per version; `.xccurrentversion` (an XML
///   plist) names the current one in `_XCCurrentVersionName`. A bundle with a single version
///   may leave it out. Version names may contain spaces.
/// - `.momd`: one `<Version>.mom` per version; `VersionInfo.plist` names the current one in
///   `NSManagedObjectModel_CurrentVersionName` and records each version's entity hashes.
package struct ModelBundle {
    /// The bundle folder.
    package let url: URL
    /// Each version's file (`.xcdatamodel` folder or `.mom` file), by version name (no extension).
    package let versions: [(name: String, url: URL)]
    /// The current version's name.
    package let currentVersionName: String

    /// The current version's file.
    package var currentVersionURL: URL {
        versions.first { $0.name == currentVersionName }?.url ?? url
    }

    /// Reads an `.xcdatamodeld` or `.momd` folder.
    ///
    /// - Throws: `NSFileReadNoSuchFileError` when the bundle has no versions or names a missing
    ///   current version; `NSFileReadCorruptFileError` when its version file is malformed.
    package init(url: URL) throws {
        self.url = url
        let location = ModelFileLocation(url: url)
        if url.pathExtension == "momd" || FileManager.default.fileExists(atPath: url.appendingPathComponent("VersionInfo.plist").path) {
            versions = try Self.contents(of: url, withExtension: "mom", location: location)
            currentVersionName = try Self.momdCurrentVersion(url, versions: versions, location: location)
        } else {
            versions = try Self.contents(of: url, withExtension: "xcdatamodel", location: location)
            currentVersionName = try Self.xcdatamodeldCurrentVersion(url, versions: versions, location: location)
        }
    }

    private static func contents(of url: URL, withExtension pathExtension: String,
                                 location: ModelFileLocation) throws -> [(name: String, url: URL)] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelFileError.unreadable(location, underlying: error)
        }
        // Version order: by name, numbers compared as numbers ("Model", "Model 2", "Model 10").
        return names.filter { ($0 as NSString).pathExtension == pathExtension }
            .map { (name: ($0 as NSString).deletingPathExtension, url: url.appendingPathComponent($0)) }
            .sorted { $0.name.compare($1.name, options: [.numeric]) == .orderedAscending }
    }

    private static func xcdatamodeldCurrentVersion(_ url: URL, versions: [(name: String, url: URL)],
                                                   location: ModelFileLocation) throws -> String {
        let available = versions.map(\.name)
        guard let only = available.first else {
            throw ModelFileError.missing(location, "the bundle contains no .xcdatamodel version")
        }
        let currentFile = url.appendingPathComponent(".xccurrentversion")
        var named: String?
        if FileManager.default.fileExists(atPath: currentFile.path) {
            let fileLocation = ModelFileLocation(url: currentFile)
            guard let dictionary = try readPlist(currentFile, location: fileLocation) as? [String: Any] else {
                throw ModelFileError.corrupt(fileLocation, "it is not a dictionary")
            }
            if let value = dictionary["_XCCurrentVersionName"] {
                guard let name = value as? String, !name.isEmpty else {
                    throw ModelFileError.corrupt(fileLocation, "_XCCurrentVersionName is not a version name")
                }
                let versionName = (name as NSString).pathExtension == "xcdatamodel" ? (name as NSString).deletingPathExtension : name
                guard available.contains(versionName) else {
                    throw ModelFileError.missing(fileLocation, "it names the current version '\(name)', which is not in the bundle (versions: \(list(available)))")
                }
                named = versionName
            }
        }
        if let named { return named }
        // No current version recorded (no .xccurrentversion, or an empty one): a single version
        // is current; otherwise the version named like the bundle, which Xcode creates first.
        if available.count == 1 { return only }
        let baseName = url.deletingPathExtension().lastPathComponent
        if available.contains(baseName) { return baseName }
        throw ModelFileError.missing(location, "the bundle has \(available.count) versions (\(list(available))) but no .xccurrentversion naming the current one")
    }

    private static func momdCurrentVersion(_ url: URL, versions: [(name: String, url: URL)],
                                           location: ModelFileLocation) throws -> String {
        let available = versions.map(\.name)
        let infoURL = url.appendingPathComponent("VersionInfo.plist")
        guard FileManager.default.fileExists(atPath: infoURL.path) else {
            guard available.count == 1, let only = available.first else {
                throw ModelFileError.missing(location, available.isEmpty ? "the bundle contains no .mom version"
                    : "the bundle has \(available.count) versions (\(list(available))) but no VersionInfo.plist")
            }
            return only
        }
        let infoLocation = ModelFileLocation(url: infoURL)
        let info = try VersionInfo(url: infoURL)
        guard let name = info.currentVersionName else {
            throw ModelFileError.corrupt(infoLocation, "it has no NSManagedObjectModel_CurrentVersionName")
        }
        guard available.contains(name) else {
            throw ModelFileError.missing(infoLocation, "it names the current version '\(name)', but '\(name).mom' is not in the bundle (versions: \(list(available)))")
        }
        return name
    }

    static func readPlist(_ url: URL, location: ModelFileLocation) throws -> Any {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelFileError.unreadable(location, underlying: error)
        }
        do {
            return try PropertyListReader.propertyList(from: data)
        } catch {
            throw ModelFileError.corrupt(location, "not a property list", underlying: error)
        }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.map { "'\($0)'" }.joined(separator: ", ")
    }
}

/// A compiled model's `VersionInfo.plist`.
package struct VersionInfo {
    /// `NSManagedObjectModel_CurrentVersionName`.
    package var currentVersionName: String?
    /// `NSManagedObjectModel_VersionHashes`: entity hashes by version name.
    package var versionHashes: [String: [String: Data]]
    /// `NSManagedObjectModel_VersionChecksums` (newer Xcode): checksum by version name.
    package var versionChecksums: [String: String]

    package init(url: URL) throws {
        let location = ModelFileLocation(url: url)
        guard let plist = try ModelBundle.readPlist(url, location: location) as? [String: Any] else {
            throw ModelFileError.corrupt(location, "the top level is not a dictionary")
        }
        currentVersionName = plist["NSManagedObjectModel_CurrentVersionName"] as? String
        var hashes: [String: [String: Data]] = [:]
        for (version, value) in plist["NSManagedObjectModel_VersionHashes"] as? [String: Any] ?? [:] {
            hashes[version] = (value as? [String: Any])?.compactMapValues { $0 as? Data }
        }
        versionHashes = hashes
        versionChecksums = (plist["NSManagedObjectModel_VersionChecksums"] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:]
    }
}
