import ArgumentParser
import OpenCoreData

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write every to-do, tag and location as JSON.",
        discussion: """
            Examples:
              todo export > todos.json
              todo export --output todos.json
            """
    )

    @Option(name: .long, help: ArgumentHelp("The file to write (default: standard output).", valueName: "file"))
    var output: String?
    @OptionGroup var options: CommonOptions

    func run() async throws {
        let archive = try await ArchiveRepository(container: try options.makeContainer()).export()
        let data = try TodoArchive.makeEncoder().encode(archive)
        if let output {
            let url = URL(fileURLWithPath: (output as NSString).expandingTildeInPath)
            do {
                try data.write(to: url, options: .atomic)
            } catch {
                throw TodoAppError("can't write \(url.path): \((error as NSError).localizedDescription)")
            }
            Output.writeError("Exported \(archive.todos.count) to-do(s), \(archive.tags.count) tag(s), \(archive.locations.count) location(s) to \(url.path)")
        } else {
            Output.write(String(decoding: data, as: UTF8.self))
        }
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read to-dos, tags and locations from `todo export`'s JSON.",
        discussion: """
            Records are matched by todoId, tagId and location id: importing a file again updates,
            never duplicates. The whole file is checked first; a bad file imports nothing, and the
            error names the record at fault. Rows are written with batch inserts, then linked to
            their tags and locations; if writing fails midway, importing the file again completes it.

            Example:
              todo import todos.json
            """
    )

    @Argument(help: ArgumentHelp("The JSON file ('-' for standard input).", valueName: "file")) var file: String
    @OptionGroup var options: CommonOptions

    func run() async throws {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            let url = URL(fileURLWithPath: (file as NSString).expandingTildeInPath)
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw TodoAppError("can't read \(url.path): \((error as NSError).localizedDescription)")
            }
        }
        let repository = ArchiveRepository(container: try options.makeContainer())
        let summary: ImportSummary
        do {
            summary = try await repository.importArchive(data)
        } catch let error as TodoAppError {
            // Validation failed: nothing was written.
            throw TodoAppError("\(file): \(error.message); nothing was imported")
        } catch {
            // Writing failed (the batch requests and the linking save are separate transactions).
            throw TodoAppError("\(file): the import stopped while writing (\((error as NSError).localizedDescription)); "
                + "part of it may be stored: import the same file again to complete it")
        }
        try options.print(summary, orText: """
            Imported \(file): to-dos \(summary.todosCreated) new, \(summary.todosUpdated) updated; \
            tags \(summary.tagsCreated) new, \(summary.tagsUpdated) updated; \
            locations \(summary.locationsCreated) new, \(summary.locationsUpdated) updated
            """)
    }
}
