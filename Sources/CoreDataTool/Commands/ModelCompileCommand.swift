import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata model compile`: Xcode's `momc` step, for builds without Xcode.
struct ModelCompileCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile a .xcdatamodeld to a .momd folder (a .xcdatamodel to a .mom file), as Xcode's momc does.",
        discussion: """
        The .momd holds one .mom per version and a VersionInfo.plist naming the current version \
        with every version's entity hashes and checksum; NSManagedObjectModel(contentsOf:) reads \
        it on every platform. The build plugin (OpenCoreDataModelPlugin) runs this step for a \
        target's models, so Bundle.module.url(forResource:withExtension: "momd") finds them.

        EXAMPLES:
          coredata model compile Model.xcdatamodeld                 # writes ./Model.momd
          coredata model compile Model.xcdatamodeld --output Resources/Model.momd
        """
    )

    @Argument(help: ArgumentHelp("The model source: a .xcdatamodeld bundle or a .xcdatamodel.", valueName: "model"))
    var model: String

    @Option(name: .long, help: ArgumentHelp("Where to write the compiled model; default: <name>.momd (or .mom) in the current folder.", valueName: "path"))
    var output: String?

    func execute(_ console: Console) throws {
        let source = URL(fileURLWithPath: model)
        guard ["xcdatamodeld", "xcdatamodel"].contains(source.pathExtension) else {
            throw ToolError("\(model) is not model source: give a .xcdatamodeld or .xcdatamodel")
        }
        guard FileManager.default.fileExists(atPath: source.path) else { throw ToolError("no model at \(model)") }
        let destination = URL(fileURLWithPath: output ?? ModelCompiler.compiledName(of: source))
        do {
            try ModelCompiler.compile(source, to: destination)
        } catch {
            throw ToolError("cannot compile \(model): \(ToolError.describe(error))")
        }
        try console.out.write("wrote \(destination.path)\n")
    }
}
