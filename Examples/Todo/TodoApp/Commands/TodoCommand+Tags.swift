import ArgumentParser
import OpenCoreData

/// `todo tag …`
struct TagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Add, list, rename or delete tags.",
        discussion: """
            Deleting a tag takes it off its to-dos; the to-dos stay.

            Examples:
              todo tag add home
              todo tag list
              todo tag rename home house
              todo tag delete house
            """,
        subcommands: [AddTag.self, ListTags.self, RenameTag.self, DeleteTag.self]
    )

    struct AddTag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a tag.")
        @Argument(help: "The tag's title.") var title: String
        @OptionGroup var options: CommonOptions

        func run() async throws {
            let tag = try await TagRepository(container: try options.makeContainer()).add(title: title)
            try options.print(tag, orText: "Added tag \(tag.title)")
        }
    }

    struct ListTags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List tags and how many to-dos carry each.")
        @OptionGroup var options: CommonOptions

        func run() async throws {
            let tags = try await TagRepository(container: try options.makeContainer()).list()
            try options.print(tags, orText: Output.table(
                headers: ["TAG", "TO-DOS", "ID"],
                rows: tags.map { [$0.title, "\($0.todoCount)", Output.shortId($0.id)] },
                empty: "No tags."
            ))
        }
    }

    struct RenameTag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a tag.")
        @Argument(help: "The tag's title now.") var title: String
        @Argument(help: "Its new title.") var newTitle: String
        @OptionGroup var options: CommonOptions

        func run() async throws {
            let tag = try await TagRepository(container: try options.makeContainer()).rename(title, to: newTitle)
            try options.print(tag, orText: "Renamed tag \(title) to \(tag.title)")
        }
    }

    struct DeleteTag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a tag; its to-dos stay.")
        @Argument(help: "The tag's title.") var title: String
        @OptionGroup var options: CommonOptions

        func run() async throws {
            let tag = try await TagRepository(container: try options.makeContainer()).delete(title)
            try options.print(tag, orText: "Deleted tag \(tag.title) (\(tag.todoCount) to-do(s) kept)")
        }
    }
}

/// `todo location …`
struct LocationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "location",
        abstract: "Add or list locations.",
        discussion: """
            Examples:
              todo location add Office --latitude 48.85 --longitude 2.35
              todo location list
            """,
        subcommands: [AddLocation.self, ListLocations.self]
    )

    struct AddLocation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a location.")
        @Argument(help: "The place's name.") var name: String
        @Option(name: .long, help: "Degrees north.") var latitude = 0.0
        @Option(name: .long, help: "Degrees east.") var longitude = 0.0
        @Option(name: .long, help: "Metres.") var altitude = 0.0
        @OptionGroup var options: CommonOptions

        func run() async throws {
            let repository = LocationRepository(container: try options.makeContainer())
            let location = try await repository.add(name: name, latitude: latitude, longitude: longitude, altitude: altitude)
            try options.print(location, orText: "Added location \(location.placeName)")
        }
    }

    struct ListLocations: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List locations.")
        @OptionGroup var options: CommonOptions

        func run() async throws {
            let locations = try await LocationRepository(container: try options.makeContainer()).list()
            try options.print(locations, orText: Output.table(
                headers: ["LOCATION", "LATITUDE", "LONGITUDE", "TO-DOS"],
                rows: locations.map { [$0.placeName, "\($0.latitude)", "\($0.longitude)", "\($0.todoCount)"] },
                empty: "No locations."
            ))
        }
    }
}
