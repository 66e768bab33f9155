import ArgumentParser
import Foundation

/// `coredata model diff`
struct ModelDiffCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two model versions and whether lightweight migration can infer it.",
        discussion: """
        Entities and properties of the new model are paired with the old ones as lightweight \
        migration pairs them: by renaming identifier (Xcode's "Renaming ID"), else by name. \
        Lists added (+), removed (-), renamed and changed (~) entities and properties: type, \
        optionality, default, to-many, ordered, destination, delete rule, version hashes. \
        Then asks NSMappingModel.inferredMappingModel whether the change can be inferred, \
        and if not, why (the entity and property).

        Exit codes: 0 the change can be inferred (or there is none), 1 it cannot, 2 an error.

        EXAMPLES:
          coredata model diff Old.xcdatamodel New.xcdatamodel
          coredata model diff Model.momd/Model.mom Model.momd/Model2.mom --json
          coredata model diff App.sqlite Model.xcdatamodeld   # cached vs current
        """
    )

    @Argument(help: ArgumentHelp("The old model (or a store, for the model cached in it).", valueName: "old"))
    var old: String

    @Argument(help: ArgumentHelp("The new model.", valueName: "new"))
    var new: String

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func execute(_ console: Console) throws {
        let diff = ModelDiff(old: try ModelResolver.load(path: old), new: try ModelResolver.load(path: new))
        if json {
            let writer = JSONWriter(sink: console.out)
            try writer.value(diff.json())
            try writer.finish()
        } else {
            try console.out.write(diff.text())
        }
        if case .notInferable = diff.inference {
            try console.out.flush()
            throw ExitCode(1)
        }
    }
}
