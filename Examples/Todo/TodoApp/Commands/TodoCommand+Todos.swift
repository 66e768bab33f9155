import ArgumentParser
import OpenCoreData

// MARK: - add

struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add a to-do.",
        discussion: """
            Tags and the location are created when they don't exist yet.

            Examples:
              todo add "Buy milk" --tag home --tag errands
              todo add "Call the plumber" --location Home
            """
    )

    @Argument(help: "The to-do's title.") var title: String
    @Option(name: .long, help: ArgumentHelp("A tag to put on it (repeatable).", valueName: "tag")) var tag: [String] = []
    @Option(name: .long, help: ArgumentHelp("Where it is to be done.", valueName: "name")) var location: String?
    @OptionGroup var options: CommonOptions

    func run() async throws {
        let repository = TodoRepository(container: try options.makeContainer())
        let item = try await repository.add(title: title, tags: tag, location: location)
        try options.print(item, orText: "Added \(Output.shortId(item.id)): \(item.title)")
    }
}

// MARK: - list

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List to-dos, most recently changed first.",
        discussion: """
            Examples:
              todo list
              todo list --search milk --tag home --open
              todo list --done --page 2 --page-size 5 --json
              todo list --follow --open     (keeps printing changes until interrupted)

            With --follow, the list (every matching to-do, no paging) is followed by a line per
            change that this or any other todo process saves: inserted, deleted, moved or updated,
            with the to-do's rows before and after.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Only titles containing this text (ignoring case and accents).", valueName: "text"))
    var search: String?
    @Option(name: .long, help: ArgumentHelp("Only to-dos with this tag.", valueName: "tag")) var tag: String?
    @Flag(name: .long, help: "Only done to-dos.") var done = false
    @Flag(name: .long, help: "Only open to-dos.") var open = false
    @Option(name: .long, help: "The page to show, from 1.") var page = 1
    @Option(name: .long, help: "To-dos per page.") var pageSize = 20
    @Flag(name: .long, help: "Keep running and print each change to the list, until interrupted.") var follow = false
    @Option(name: .long, help: ArgumentHelp("With --follow: stop after this many batches of changes (for scripts).", valueName: "n"))
    var changes: Int?
    @OptionGroup var options: CommonOptions

    func validate() throws {
        if done && open { throw ValidationError("--done and --open exclude each other") }
        if changes != nil && !follow { throw ValidationError("--changes needs --follow") }
        if let changes, changes < 1 { throw ValidationError("--changes must be 1 or more (got \(changes))") }
        if follow && options.json { throw ValidationError("--follow prints text, not --json") }
        if follow && (page != 1 || pageSize != 20) { throw ValidationError("--follow shows every matching to-do: --page and --page-size don't apply") }
    }

    func run() async throws {
        let isDone: Bool? = done ? true : (open ? false : nil)
        if follow { return try await runFollowing(isDone: isDone) }
        let repository = TodoRepository(container: try options.makeContainer())
        let result = try await repository.list(search: search, tag: tag, isDone: isDone, page: page, pageSize: pageSize)
        try options.print(result, orText: Output.todoTable(result))
    }

    /// `--follow`: the list, then a line per change, until interrupted or `--changes` batches.
    private func runFollowing(isDone: Bool?) async throws {
        let container = try options.makeContainer(watchingRemoteChanges: true)
        let feed = try await TodoRepository(container: container).follow(search: search, tag: tag, isDone: isDone)
        var batches = 0
        for try await event in feed {
            switch event {
            case .list(let items):
                Output.write(Output.followTable(items))
                Output.writeError("Following \(container.persistentStoreCoordinator.persistentStores.first?.url?.path ?? "the store"); interrupt to stop.")
            case .changes(let changes):
                for change in changes { Output.write(Output.changeLine(change)) }
                batches += 1
                if let limit = self.changes, batches >= limit { return }
            }
        }
    }
}

// MARK: - done / undone

struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark a to-do done.", discussion: "Example:\n  todo done 3f2a")

    @Argument(help: "The to-do's id, or its first characters.") var id: String
    @OptionGroup var options: CommonOptions

    func run() async throws {
        let item = try await TodoRepository(container: try options.makeContainer()).setDone(id, true)
        try options.print(item, orText: "Done \(Output.shortId(item.id)): \(item.title)")
    }
}

struct Undone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark a to-do open again.", discussion: "Example:\n  todo undone 3f2a")

    @Argument(help: "The to-do's id, or its first characters.") var id: String
    @OptionGroup var options: CommonOptions

    func run() async throws {
        let item = try await TodoRepository(container: try options.makeContainer()).setDone(id, false)
        try options.print(item, orText: "Open \(Output.shortId(item.id)): \(item.title)")
    }
}

// MARK: - edit

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a to-do's title, tags or location.",
        discussion: """
            Examples:
              todo edit 3f2a --title "Buy oat milk"
              todo edit 3f2a --add-tag shop --remove-tag home
              todo edit 3f2a --location ""      (removes the location)
            """
    )

    @Argument(help: "The to-do's id, or its first characters.") var id: String
    @Option(name: .long, help: "The new title.") var title: String?
    @Option(name: .long, help: ArgumentHelp("A tag to add (repeatable).", valueName: "tag")) var addTag: [String] = []
    @Option(name: .long, help: ArgumentHelp("A tag to remove (repeatable).", valueName: "tag")) var removeTag: [String] = []
    @Option(name: .long, help: ArgumentHelp("The new location; \"\" removes it.", valueName: "name")) var location: String?
    @OptionGroup var options: CommonOptions

    func validate() throws {
        if title == nil && addTag.isEmpty && removeTag.isEmpty && location == nil {
            throw ValidationError("nothing to change: give --title, --add-tag, --remove-tag or --location")
        }
    }

    func run() async throws {
        let repository = TodoRepository(container: try options.makeContainer())
        let item = try await repository.edit(id, title: title, addTags: addTag, removeTags: removeTag, location: location)
        try options.print(item, orText: "Edited \(Output.shortId(item.id)): \(item.title)")
    }
}

// MARK: - delete

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a to-do.", discussion: "Example:\n  todo delete 3f2a")

    @Argument(help: "The to-do's id, or its first characters.") var id: String
    @OptionGroup var options: CommonOptions

    func run() async throws {
        let item = try await TodoRepository(container: try options.makeContainer()).delete(id)
        try options.print(item, orText: "Deleted \(Output.shortId(item.id)): \(item.title)")
    }
}

// MARK: - stats

struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Count to-dos, tags and locations.")

    @OptionGroup var options: CommonOptions

    func run() async throws {
        let stats = try await TodoRepository(container: try options.makeContainer()).stats()
        try options.print(stats, orText: Output.table(
            headers: ["WHAT", "COUNT"],
            rows: [["to-dos", "\(stats.todos)"], ["done", "\(stats.done)"], ["open", "\(stats.open)"],
                   ["untagged", "\(stats.untagged)"], ["tags", "\(stats.tags)"], ["locations", "\(stats.locations)"]]
        ))
    }
}
