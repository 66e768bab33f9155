import ArgumentParser
import Foundation
import OpenCoreData

/// Output formats of `model graph`.
enum GraphFormat: String, CaseIterable, ExpressibleByArgument {
    case dot, svg
}

/// `coredata model graph`
struct ModelGraphCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw the model: entities with their attributes, relationships and inheritance, as Graphviz DOT or SVG.",
        discussion: """
        SVG is laid out by OpenCoreData itself, without Graphviz; DOT can be rendered with \
        Graphviz (`dot -Tpng`). Without --format, the format follows the --output file's \
        extension, else DOT.

        EXAMPLES:
          coredata model graph Model.xcdatamodeld > model.dot
          coredata model graph Model.xcdatamodeld --format svg --output model.svg
          coredata model graph App.sqlite -o model.svg --no-attribute-types
          coredata model graph Model.xcdatamodeld | dot -Tpng -o model.png
        """
    )

    @Argument(help: ArgumentHelp("The model, or a store whose cached model to draw.", valueName: "model"))
    var model: String

    @Option(name: .long, help: "dot or svg (default: from the --output extension, else dot).")
    var format: GraphFormat?

    @Option(name: [.short, .long], help: ArgumentHelp("Write to a file instead of standard output.", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "Draw entity boxes without their attributes.")
    var noAttributes = false

    @Flag(name: .long, help: "List attributes without their types.")
    var noAttributeTypes = false

    @Flag(name: .long, help: "Repeat inherited properties in subentities' boxes.")
    var inherited = false

    @Option(name: .long, help: "A title drawn above the picture.")
    var title: String?

    func execute(_ console: Console) throws {
        let resolved = try ModelResolver.load(path: model)
        var options = ModelGraphOptions()
        options.showsAttributes = !noAttributes
        options.showsAttributeTypes = !noAttributeTypes
        options.showsInheritedProperties = inherited
        options.title = title
        let chosen = format ?? (output.map { URL(fileURLWithPath: $0).pathExtension.lowercased() == "svg" ? GraphFormat.svg : .dot } ?? .dot)
        let text = chosen == .svg ? resolved.model.svg(options: options) : resolved.model.graphvizDOT(options: options)
        guard let output else {
            try console.out.write(text.hasSuffix("\n") ? text : text + "\n")
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw ToolError("cannot write \(output): \(ToolError.describe(error))")
        }
        try console.err.line("wrote \(chosen.rawValue.uppercased()) of \(resolved.model.entities.count) entities to \(output)")
    }
}
