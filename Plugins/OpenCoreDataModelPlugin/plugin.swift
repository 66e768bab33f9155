import Foundation
import PackagePlugin

/// Builds the Core Data models in a target as Xcode does: generates their Swift and compiles them.
///
/// For each `.xcdatamodeld` (or stand-alone `.xcdatamodel`) among the target's files, runs
/// `ocd-modelgen --codegen-file`: entities whose Codegen is "Class Definition" get a class and a
/// properties extension, "Category/Extension" the extension only, "Manual/None" nothing.
/// And runs `ocd-modelgen --compile`, Xcode's `momc` step: `Foo.xcdatamodeld` becomes
/// `Foo.momd` (a `.xcdatamodel`, `Foo.mom`), which SwiftPM copies into the target's resource
/// bundle, so `Bundle.module.url(forResource: "Foo", withExtension: "momd")` finds it.
/// See docs/CodeGeneration.md and docs/ModelFiles.md.
@main
struct OpenCoreDataModelPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let generator = try context.tool(named: "ocd-modelgen").url
        var usedNames: Set<String> = []
        var compiledNames: Set<String> = []
        var commands: [Command] = []
        for model in ModelBundles.find(in: target.sourceFiles.map(\.url)) {
            let name = ModelBundles.uniqueOutputName(for: model, used: &usedNames)
            let output = context.pluginWorkDirectoryURL.appending(path: name)
            let inputs = ModelBundles.files(in: model)
            commands.append(.buildCommand(
                displayName: "Generating Core Data classes from \(model.lastPathComponent)",
                executable: generator,
                arguments: [model.path, "--codegen-file", output.path],
                inputFiles: inputs,
                outputFiles: [output]
            ))
            // One compiled model per name: a resource bundle can't hold two `Foo.momd`s.
            let compiledName = ModelBundles.compiledName(for: model)
            guard compiledNames.insert(compiledName).inserted else { continue }
            let compiled = context.pluginWorkDirectoryURL.appending(path: "CompiledModels").appending(path: compiledName)
            commands.append(.buildCommand(
                displayName: "Compiling Core Data model \(model.lastPathComponent)",
                executable: generator,
                arguments: [model.path, "--compile", compiled.path],
                inputFiles: inputs,
                outputFiles: [compiled]
            ))
        }
        return commands
    }
}

/// Finding model bundles among a target's files.
enum ModelBundles {
    /// The outermost `.xcdatamodeld` or `.xcdatamodel` folder each file lies in, once each, sorted.
    static func find(in files: [URL]) -> [URL] {
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

    /// Every file in a bundle, so that editing any version re-runs the generator.
    static func files(in bundle: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: bundle, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return [bundle]
        }
        var files: [URL] = []
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// What `momc` makes of a model: `Todo.momd` for `Todo.xcdatamodeld`, `Todo.mom` for `Todo.xcdatamodel`.
    static func compiledName(for model: URL) -> String {
        let base = model.deletingPathExtension().lastPathComponent
        return model.pathExtension == "xcdatamodel" ? "\(base).mom" : "\(base).momd"
    }

    /// `Todo+CoreDataModel.swift`, numbered when two models share a name.
    static func uniqueOutputName(for model: URL, used: inout Set<String>) -> String {
        let base = model.deletingPathExtension().lastPathComponent
        var name = "\(base)+CoreDataModel.swift"
        var number = 2
        while !used.insert(name).inserted {
            name = "\(base)\(number)+CoreDataModel.swift"
            number += 1
        }
        return name
    }
}
