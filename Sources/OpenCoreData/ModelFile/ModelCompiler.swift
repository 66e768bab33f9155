import Foundation

/// Compiles Xcode model source to the compiled forms Apple's `momc` writes, so that
/// `Bundle.module.url(forResource: "Trips", withExtension: "momd")` finds a model on Linux too.
///
/// - `Foo.xcdatamodeld` → a `Foo.momd` folder: one `<Version>.mom` per version and a binary
///   `VersionInfo.plist` with `NSManagedObjectModel_CurrentVersionName`,
///   `NSManagedObjectModel_VersionHashes` and `NSManagedObjectModel_VersionChecksums`
///   (shared/docs/coredata-formats.md §2).
/// - `Foo.xcdatamodel` → a `Foo.mom` file.
///
/// A `.mom` is the keyed archive of the model with Apple's classes and keys, the archive a
/// store's `Z_MODELCACHE` holds before compression (`ModelCacheArchiver`); it reads back to a
/// model with the same entities, properties, rules, templates and version hashes.
package enum ModelCompiler {
    /// The compiled file's name: `Foo.momd` for `Foo.xcdatamodeld`, `Foo.mom` for `Foo.xcdatamodel`.
    package static func compiledName(of source: URL) -> String {
        let base = source.deletingPathExtension().lastPathComponent
        return source.pathExtension == "xcdatamodel" ? "\(base).mom" : "\(base).momd"
    }

    /// Compiles `source` (`.xcdatamodeld` or `.xcdatamodel`) to `destination`.
    ///
    /// Every version is read before anything is written, so a model that doesn't load leaves
    /// `destination` as it was; output equal to what `destination` already holds is not
    /// rewritten, so a build doesn't redo the steps that depend on it.
    /// - Throws: The loading error naming the file, entity and property; a Cocoa file error
    ///   when `destination` can't be written.
    package static func compile(_ source: URL, to destination: URL) throws {
        if source.pathExtension == "xcdatamodel" {
            let archive = ModelCacheArchiver.archive(try NSManagedObjectModel.load(contentsOf: source))
            if (try? Data(contentsOf: destination)) == archive { return }
            try archive.write(to: destination, options: .atomic)
            return
        }
        let files = try momdFiles(for: ModelBundle(url: source))
        if unchanged(destination, files) { return }
        try replace(destination, with: files)
    }

    // MARK: - Building the folder

    /// The files of the `.momd` folder, by name.
    private static func momdFiles(for bundle: ModelBundle) throws -> [String: Data] {
        var files: [String: Data] = [:]
        var hashValues: [PropertyListValue] = [], checksumValues: [PropertyListValue] = []
        for version in bundle.versions {
            let model = try NSManagedObjectModel.load(contentsOf: version.url)
            files["\(version.name).mom"] = ModelCacheArchiver.archive(model)
            let hashes = model.entityVersionHashesByName
            let names = hashes.keys.sorted()
            hashValues.append(.dictionary(keys: names, values: names.map { .data(hashes[$0] ?? Data()) }))
            checksumValues.append(.string(model.versionChecksum))
        }
        let versionNames = bundle.versions.map(\.name)
        let info = PropertyListValue.dictionary(
            keys: ["NSManagedObjectModel_CurrentVersionName", "NSManagedObjectModel_VersionChecksums", "NSManagedObjectModel_VersionHashes"],
            values: [.string(bundle.currentVersionName),
                     .dictionary(keys: versionNames, values: checksumValues),
                     .dictionary(keys: versionNames, values: hashValues)]
        )
        files["VersionInfo.plist"] = BinaryPropertyListWriter.data(info)
        return files
    }

    /// Whether `folder` holds exactly `files`.
    private static func unchanged(_ folder: URL, _ files: [String: Data]) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path),
              Set(names) == Set(files.keys) else { return false }
        return files.allSatisfy { name, data in (try? Data(contentsOf: folder.appendingPathComponent(name))) == data }
    }

    /// Writes the folder beside `destination`, then puts it in its place.
    private static func replace(_ destination: URL, with files: [String: Data]) throws {
        let manager = FileManager.default
        let parent = destination.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString)")
        do {
            try manager.createDirectory(at: staging, withIntermediateDirectories: true)
            for (name, data) in files {
                try data.write(to: staging.appendingPathComponent(name))
            }
            if manager.fileExists(atPath: destination.path) {
                try manager.removeItem(at: destination)
            }
            try manager.moveItem(at: staging, to: destination)
        } catch {
            try? manager.removeItem(at: staging)
            throw error
        }
    }
}
