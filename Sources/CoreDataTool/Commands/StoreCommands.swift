import ArgumentParser
import Foundation

/// `coredata store …`
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Show a store's metadata, model compatibility, row counts and SQL schema, or migrate it to a new model.",
        subcommands: [StoreInfoCommand.self, StoreSchemaCommand.self, StoreMigrateCommand.self]
    )
}

/// `coredata store info`
struct StoreInfoCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show metadata, model compatibility per entity, row counts and file sizes.",
        discussion: """
        Compatibility compares the store's NSStoreModelVersionHashes with the model's hashes, \
        entity by entity: matches, differs, not in model, not in store. Row counts are per Z_ENT \
        (an entity's own rows, not its subentities'). The store is opened read-only.

        EXAMPLES:
          coredata store info App.sqlite
          coredata store info App.sqlite --model Model.xcdatamodeld
          coredata store info App.sqlite --json | jq '.entities[] | {name, rows}'
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store.", valueName: "store"))
    var store: String

    @OptionGroup var modelOptions: ModelOptions

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func execute(_ console: Console) throws {
        let info = try StoreInfo.read(path: store, modelPath: modelOptions.model)
        if json {
            let writer = JSONWriter(sink: console.out)
            try writer.value(info.json())
            try writer.finish()
        } else {
            try console.out.write(info.text())
        }
    }
}

/// `coredata store schema`
struct StoreSchemaCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the store's SQL schema (from sqlite_master): tables, indexes, triggers.",
        discussion: """
        EXAMPLES:
          coredata store schema App.sqlite
          coredata store schema App.sqlite --json
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store.", valueName: "store"))
    var store: String

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func execute(_ console: Console) throws {
        let objects = try SchemaReport.read(path: store)
        if json {
            let writer = JSONWriter(sink: console.out)
            try writer.value(SchemaReport.json(objects, path: store))
            try writer.finish()
        } else {
            try console.out.write(SchemaReport.text(objects, path: store))
        }
    }
}
