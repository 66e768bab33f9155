import ArgumentParser
import Foundation

/// `coredata export`
struct ExportCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the whole store as JSON, streaming in constant memory.",
        discussion: """
        Objects are keyed by their URI (x-coredata://<store UUID>/<Entity>/p<key>), one per line, \
        with their attributes (dates ISO 8601, data base64, UUIDs as strings, decimals as strings) \
        and relationships (URIs). The format is in docs/CLI.md; `coredata import` reads it back.

        EXAMPLES:
          coredata export App.sqlite > app.json
          coredata export App.sqlite --output app.json --progress
          coredata export App.sqlite --model Model.xcdatamodeld --output app.json
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store.", valueName: "store"))
    var store: String

    @Option(name: [.short, .long], help: ArgumentHelp("Write to a file instead of standard output.", valueName: "file.json"))
    var output: String?

    @Flag(name: .long, help: "Show progress on standard error even when it is not a terminal.")
    var progress = false

    @Option(name: .long, help: ArgumentHelp("Objects loaded per query.", visibility: .hidden))
    var batchSize: Int = Exporter.defaultBatchSize

    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var mismatchOptions: MismatchOptions

    func execute(_ console: Console) throws {
        let session = try StoreSession.openReadOnly(path: store, modelPath: modelOptions.model,
                                                    ignoreModelMismatch: mismatchOptions.ignoreModelMismatch, console: console)
        defer { session.close() }
        let makeProgress = { (total: Int) in ProgressReporter(console: console, forced: progress, verb: "exported", total: total) }
        guard let output else {
            _ = try Exporter.export(session: session, to: console.out, batchSize: batchSize, progress: makeProgress)
            return
        }
        // Write next to the target and rename at the end, so a failed export leaves no half file.
        let target = URL(fileURLWithPath: output)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(getpid()).partial")
        let sink = try FileSink.create(path: temporary.path)
        do {
            let summary = try Exporter.export(session: session, to: sink, batchSize: batchSize, progress: makeProgress)
            try sink.close()
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.moveItem(at: temporary, to: target)
            try console.err.line("exported \(summary.total) objects of \(summary.objectsByEntity.count) entities to \(output)")
        } catch {
            try? sink.close()
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}

/// `coredata import`
struct ImportCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Insert the objects of an export file into a store, creating the store if needed.",
        discussion: """
        Atomic: the file is checked completely (JSON, entities, keys, value types, references, \
        validation rules) and saved with one save; a bad file imports nothing, and the error \
        names the record. Idempotent: importing the same file again matches each record to the \
        object it created before (the mapping is kept in the store's metadata, OCDImportMap), \
        to the object its URI names when the file came from this very store, or to an object \
        with the same values for a uniqueness constraint; matched objects take the file's values. \
        A new store needs --model.

        EXAMPLES:
          coredata import Copy.sqlite app.json --model Model.xcdatamodeld
          coredata import App.sqlite app.json                 # into an existing store
          coredata import App.sqlite app.json --dry-run       # check only
          cat app.json | coredata import Copy.sqlite - --model Model.xcdatamodeld
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store (created when missing).", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The export file, or - for standard input.", valueName: "file.json"))
    var file: String

    @Flag(name: .long, help: "Check the file against the store and report what would change, without saving.")
    var dryRun = false

    @Flag(name: .long, help: "Show progress on standard error even when it is not a terminal.")
    var progress = false

    @OptionGroup var modelOptions: ModelOptions

    func execute(_ console: Console) throws {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw ToolError("no file at \(file)")
            }
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw ToolError("cannot read \(file): \(ToolError.describe(error))")
            }
        }
        let summary = try ImportCommand.run(store: store, data: data, fileName: file == "-" ? "standard input" : file,
                                            modelPath: modelOptions.model, dryRun: dryRun, console: console, forceProgress: progress)
        let verb = dryRun ? "would import" : "imported"
        try console.out.line("\(verb) \(summary.total) records into \(store): \(summary.inserted) inserted, \(summary.updated) updated, \(summary.unchanged) unchanged")
    }

    /// Imports data into a store (checking only, when `dryRun`); the core of the command, for tests.
    static func run(store: String, data: Data, fileName: String, modelPath: String?, dryRun: Bool,
                    console: Console, forceProgress: Bool = false) throws -> ImportSummary {
        let existed = FileManager.default.fileExists(atPath: store)
        let session = try StoreSession.openForWriting(path: store, modelPath: modelPath)
        var succeeded = false
        defer {
            session.close()
            if !existed && (!succeeded || dryRun) { removeStoreFiles(store) }
        }
        let summary = try Importer.run(session: session, data: data, fileName: fileName, dryRun: dryRun) { total in
            ProgressReporter(console: console, forced: forceProgress, verb: "importing", total: total, showsCounts: false)
        }
        succeeded = true
        return summary
    }

    /// Removes a store this command created but did not fill (a failed or dry-run import).
    private static func removeStoreFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// `coredata validate`
struct ValidateCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Run the model's validation over every object and report each violation.",
        discussion: """
        Calls validateForUpdate() on every object: required values, relationship counts, number \
        and date ranges, string lengths and patterns. Each violation is reported with its entity, \
        object URI, key, Core Data error code and message. Exits with 1 when there is any.

        EXAMPLES:
          coredata validate App.sqlite
          coredata validate App.sqlite --model Model.xcdatamodeld --json
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store.", valueName: "store"))
    var store: String

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var mismatchOptions: MismatchOptions

    func execute(_ console: Console) throws {
        let session = try StoreSession.openReadOnly(path: store, modelPath: modelOptions.model,
                                                    ignoreModelMismatch: mismatchOptions.ignoreModelMismatch, console: console)
        defer { session.close() }
        let (violations, checked) = try StoreValidator.validate(session: session)
        if json {
            let writer = JSONWriter(sink: console.out)
            try writer.value(StoreValidator.json(violations, checked: checked))
            try writer.finish()
        } else {
            try console.out.write(StoreValidator.text(violations, checked: checked))
        }
        if !violations.isEmpty {
            try console.out.flush()
            throw ExitCode(1)
        }
    }
}
