import ArgumentParser
import Foundation

extension QueryFormat: ExpressibleByArgument {}

/// `coredata query`
struct QueryCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Fetch objects of an entity with a predicate, sort keys and paging.",
        discussion: """
        Prints every stored attribute; to-one relationships as the destination's primary key \
        (--uris: its URI), to-many relationships as a count (--expand: the list). JSON output \
        always uses URIs. Subentities' objects are included unless --no-subentities. The \
        predicate uses NSPredicate's format syntax (docs/Predicates.md); an error points at the \
        position with a caret.

        EXAMPLES:
          coredata query App.sqlite Car
          coredata query App.sqlite Car --where "maker ==[c] 'bmw'" --sort year:desc
          coredata query App.sqlite Car --sort year --offset 20 --limit 10
          coredata query App.sqlite Person --where "ANY cars.year > 2015" --expand
          coredata query App.sqlite Car --format csv > cars.csv
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity to fetch.", valueName: "entity"))
    var entity: String

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate in NSPredicate format.", valueName: "predicate"))
    var predicate: String?

    @Option(name: .long, help: ArgumentHelp("Sort by a key path, ascending or :desc (repeatable).", valueName: "key[:desc]"))
    var sort: [String] = []

    @Option(name: .long, help: "Return at most n objects (0: no limit, as in Core Data).")
    var limit: Int?

    @Option(name: .long, help: "Skip the first n objects.")
    var offset: Int?

    @Option(name: .long, help: "Output format: table, json or csv.")
    var format: QueryFormat = .table

    @Flag(name: .long, help: "List to-many relationships' destinations instead of counting them.")
    var expand = false

    @Flag(name: .long, help: "Print object references as URIs in tables and CSV (JSON always does).")
    var uris = false

    @Flag(name: .long, help: "Only objects of the entity itself, not of its subentities.")
    var noSubentities = false

    @Flag(name: .long, help: "Do not cut long table cells.")
    var wide = false

    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var mismatchOptions: MismatchOptions

    func execute(_ console: Console) throws {
        var request = QueryRequest(entity: entity)
        request.predicate = predicate
        request.sort = sort
        request.limit = limit
        request.offset = offset
        request.includesSubentities = !noSubentities
        request.expand = expand
        request.uris = uris
        request.maximumCellWidth = wide ? nil : 48
        // Check the predicate before opening the store, so a typo is reported at once.
        if let predicate { _ = try QueryRunner.parsePredicate(predicate) }
        let session = try StoreSession.openReadOnly(path: store, modelPath: modelOptions.model,
                                                    ignoreModelMismatch: mismatchOptions.ignoreModelMismatch, console: console)
        defer { session.close() }
        try QueryRunner.run(request, format: format, session: session, output: console.out)
    }
}
