import ArgumentParser
import Foundation

/// `coredata model …`
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show a model's entities, draw it, print its version hashes, compare two versions, or compile it.",
        discussion: """
        <model> is an .xcdatamodeld bundle (its current version), an .xcdatamodel, a compiled \
        .momd or .mom, or an SQLite store (the model cached in it).
        """,
        subcommands: [ModelShowCommand.self, ModelHashesCommand.self, ModelGraphCommand.self, ModelDiffCommand.self, ModelCompileCommand.self]
    )
}

/// `coredata model show`
struct ModelShowCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "List entities, attributes, relationships, uniqueness constraints and fetch indexes.",
        discussion: """
        EXAMPLES:
          coredata model show Model.xcdatamodeld
          coredata model show Model.momd --json | jq '.entities[].name'
          coredata model show App.sqlite              # the model cached in a store
        """
    )

    @Argument(help: ArgumentHelp("The model, or a store whose cached model to show.", valueName: "model"))
    var model: String

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func execute(_ console: Console) throws {
        let resolved = try ModelResolver.load(path: model)
        if json {
            let writer = JSONWriter(sink: console.out)
            try writer.value(ModelReport.json(resolved))
            try writer.finish()
        } else {
            try console.out.write(ModelReport.text(resolved))
        }
    }
}

/// `coredata model hashes`
struct ModelHashesCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "hashes",
        abstract: "Print entity version hashes (hex and base64), the hashes digest and the model checksum.",
        discussion: """
        These are the values a store made with the model records in its metadata \
        (NSStoreModelVersionHashes, NSStoreModelVersionHashesDigest, NSStoreModelVersionChecksumKey).

        EXAMPLES:
          coredata model hashes Model.xcdatamodeld
          coredata model hashes Model.xcdatamodeld --properties
          coredata model hashes Model.momd --json
        """
    )

    @Argument(help: ArgumentHelp("The model, or a store whose cached model to hash.", valueName: "model"))
    var model: String

    @Flag(name: .long, help: "Also list each property's version hash.")
    var properties = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func execute(_ console: Console) throws {
        let resolved = try ModelResolver.load(path: model)
        if json {
            let writer = JSONWriter(sink: console.out)
            try writer.value(HashesReport.json(resolved, properties: properties))
            try writer.finish()
        } else {
            try console.out.write(HashesReport.text(resolved, properties: properties))
        }
    }
}
