import ArgumentParser
import OpenCoreData

/// `todo`: the seed to-do app on the command line, over OpenCoreData.
public struct TodoCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "A to-do list kept in a Core Data SQLite store.",
        discussion: """
            The store is \(TodoPersistence.defaultStoreURL.path) unless --store is given.
            Ids may be shortened to their first characters (at least 4), as `list` shows them.

            Examples:
              todo add "Buy milk" --tag home --location Shop
              todo list --search milk --open
              todo list --tag home --page 2 --page-size 10 --json
              todo done 3f2a
              todo edit 3f2a --title "Buy oat milk" --add-tag errands --remove-tag home
              todo tag rename errands chores
              todo export --output todos.json
              todo import todos.json --store /tmp/copy.sqlite
              todo list --follow --open
              todo watch
            """,
        subcommands: [
            Add.self, List.self, Done.self, Undone.self, Edit.self, Delete.self,
            TagCommand.self, LocationCommand.self, Export.self, Import.self, Stats.self, Watch.self,
        ]
    )

    public init() {}

    /// Parses the process's arguments and runs the command: the `todo` executable's entry point.
    public static func runFromCommandLine() async {
        await main(nil)
    }
}

/// The options every command takes: where the store is, and table or JSON output.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The SQLite store file.", valueName: "path"))
    var store: String?

    @Flag(name: .long, help: "Print JSON (for scripts) instead of a table.")
    var json = false

    /// The container over `--store`, or the default store; `watchingRemoteChanges` asks its
    /// coordinator to post `NSPersistentStoreRemoteChange` for other processes' commits.
    func makeContainer(watchingRemoteChanges: Bool = false) throws -> NSPersistentContainer {
        let url = store.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) } ?? TodoPersistence.defaultStoreURL
        return try TodoPersistence.makeContainer(storeURL: url, watchingRemoteChanges: watchingRemoteChanges)
    }

    /// Prints `value` as JSON when `--json` is set, or else the text.
    func print<T: Encodable>(_ value: T, orText text: @autoclosure () -> String) throws {
        if json {
            Output.write(try Output.json(value))
        } else {
            Output.write(text())
        }
    }
}
