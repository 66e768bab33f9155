import ArgumentParser
import Foundation

/// `coredata`: inspect, query, export, import and validate Core Data models and SQLite stores.
public struct CoreDataCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "coredata",
        abstract: "Inspect, compare, query, migrate, export, import and validate Core Data models and SQLite stores.",
        discussion: """
        Works on Xcode models (.xcdatamodeld, .xcdatamodel, .momd, .mom) and on SQLite stores \
        written by Apple's Core Data or by OpenCoreData. Store commands use --model when given, \
        else the model cached in the store (Z_MODELCACHE). Stores are opened read-only, except by `import` \
        and `store migrate`.

        EXAMPLES:
          coredata model show Model.xcdatamodeld
          coredata store info App.sqlite
          coredata model diff Old.xcdatamodel New.xcdatamodel
          coredata store migrate App.sqlite --model Model.xcdatamodeld --dry-run
          coredata query App.sqlite Person --where "age >= 18" --sort lastName
          coredata export App.sqlite --output app.json
          coredata import Copy.sqlite app.json --model Model.xcdatamodeld
          coredata validate App.sqlite

        Exit codes: 0 success, 1 `validate` found violations or `model diff` a change lightweight \
        migration cannot infer, 2 an error (message on standard error), 64 a usage error.
        """,
        version: "0.1.0",
        subcommands: [ModelCommand.self, StoreCommand.self, QueryCommand.self, ExportCommand.self, ImportCommand.self, ValidateCommand.self]
    )

    public init() {}
}

/// A command whose work is `execute(_:)`, so tests can run it with captured output; errors are
/// printed as one `coredata: error: …` line (no stack trace) and become exit codes.
public protocol ToolCommand: ParsableCommand {
    /// Does the command's work, writing results to `console.out`.
    func execute(_ console: Console) throws
}

extension ToolCommand {
    public mutating func run() throws {
        let console = Console.standard()
        do {
            try execute(console)
            try console.out.flush()
        } catch let error as ExitCode {
            try? console.out.flush()
            throw error
        } catch {
            let toolError = ToolError.wrapping(error)
            console.report(toolError)
            throw ExitCode(toolError.exitCode)
        }
    }
}

/// Where a store command gets its model.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The model (.xcdatamodeld, .xcdatamodel, .momd or .mom); default: the store's Z_MODELCACHE.", valueName: "model"))
    var model: String?
}

/// `--ignore-model-mismatch`, for the read-only store commands.
struct MismatchOptions: ParsableArguments {
    @Flag(name: .long, help: """
        Read the store even when the model's version hashes differ from the store's (read-only \
        commands only; entities missing from the model are skipped). Not needed with the store's \
        own Z_MODELCACHE.
        """)
    var ignoreModelMismatch = false
}
