import Foundation
import PackagePlugin

/// Writes `<Class>+CoreDataClass.swift` and `<Class>+CoreDataProperties.swift` for the entities of
/// the Core Data models in the package's targets into the source tree, for manual code generation
/// (Xcode's "Create NSManagedObject Subclass…").
///
/// ```
/// swift package --allow-writing-to-package-directory generate-managed-object-classes \
///     [--target App] [--entity Todo]... [--output Sources/App/Model]
/// ```
///
/// Without `--output` the files go next to each model. See docs/CodeGeneration.md.
@main
struct GenerateManagedObjectClasses: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let entities = extractor.extractOption(named: "entity")
        let output = extractor.extractOption(named: "output").last
        guard extractor.remainingArguments.isEmpty else {
            throw PluginError("unexpected arguments: \(extractor.remainingArguments.joined(separator: " "))")
        }

        let targets = try targetNames.isEmpty
            ? context.package.targets
            : context.package.targets(named: targetNames)
        let generator = try context.tool(named: "ocd-modelgen").url
        var models: [URL] = []
        for case let target as SourceModuleTarget in targets {
            models += find(in: target.sourceFiles.map(\.url)).filter { !models.contains($0) }
        }
        guard !models.isEmpty else { throw PluginError("no .xcdatamodeld or .xcdatamodel in the chosen targets") }

        for model in models {
            let folder = output.map { context.package.directoryURL.appending(path: $0) } ?? model.deletingLastPathComponent()
            var arguments = [model.path, "--output", folder.path]
            for entity in entities { arguments += ["--entity", entity] }
            let process = try Process.run(generator, arguments: arguments)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw PluginError("ocd-modelgen failed for \(model.lastPathComponent) (exit status \(process.terminationStatus))")
            }
        }
    }

    /// The outermost `.xcdatamodeld` or `.xcdatamodel` folder each file lies in, once each, sorted.
    private func find(in files: [URL]) -> [URL] {
        var found: Set<URL> = []
        for file in files {
            var bundle: URL?
            var current = file.standardizedFileURL
            while current.pathComponents.count > 1 {
                let ext = current.pathExtension
                if ext == "xcdatamodeld" || (ext == "xcdatamodel" && bundle?.pathExtension != "xcdatamodeld") {
                    bundle = current
                }
                current = current.deletingLastPathComponent()
            }
            if let bundle { found.insert(bundle) }
        }
        return found.sorted { $0.path < $1.path }
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
