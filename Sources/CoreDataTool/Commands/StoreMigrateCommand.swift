import ArgumentParser
import Foundation

/// `coredata store migrate`
struct StoreMigrateCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a new model version: print the plan, then migrate a copy or the store in place.",
        discussion: """
        The store's source model is found as automatic migration finds it: the version of the \
        --model bundle (.xcdatamodeld or .momd, or the bundle around a version file) whose entity \
        hashes equal the store's, else the model cached in the store (Z_MODELCACHE). The mapping \
        is inferred by lightweight migration's rules, or read from --mapping (.xcmappingmodel or \
        .cdm). The plan lists the steps, the entity mappings with their types and the property \
        mappings.

        --output migrates a copy and leaves the store alone. --in-place first copies the store to \
        <Name>-before-migration.sqlite beside it (-2, -3, … when taken), then migrates the store \
        in one transaction: a failure or a killed process leaves it as it was. --dry-run only \
        prints the plan and writes nothing.

        EXAMPLES:
          coredata store migrate App.sqlite --model Model.xcdatamodeld --dry-run
          coredata store migrate App.sqlite --model Model.momd --output New.sqlite
          coredata store migrate App.sqlite --in-place --model Model.xcdatamodeld
          coredata store migrate App.sqlite --model M.momd --mapping M.cdm --dry-run
          coredata store migrate App.sqlite --model M.momd --dry-run --json
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store.", valueName: "store"))
    var store: String

    @Option(name: .long, help: ArgumentHelp("The model to migrate to (.xcdatamodeld, .xcdatamodel, .momd or .mom); a bundle's other versions are tried as the source model.", valueName: "model"))
    var model: String

    @Option(name: .long, help: ArgumentHelp("A mapping model (.xcmappingmodel or .cdm) instead of the inferred mapping.", valueName: "mapping"))
    var mapping: String?

    @Flag(name: .long, help: "Print the plan only; write nothing.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("Migrate a copy at this new path; the store is not changed.", valueName: "copy"))
    var output: String?

    @Flag(name: .long, help: "Migrate the store itself, after writing a backup beside it.")
    var inPlace = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func validate() throws {
        if output != nil && inPlace {
            throw ValidationError("--output and --in-place exclude each other: migrate a copy, or the store itself")
        }
        if !dryRun && output == nil && !inPlace {
            throw ValidationError("say where the migrated store goes: --output <copy> (the store is not changed) or --in-place (after a backup), or print the plan with --dry-run")
        }
    }

    func execute(_ console: Console) throws {
        let plan = try MigrationPlan.make(storePath: store, modelPath: model, mappingPath: mapping)
        var outcome: StoreMigrator.Outcome?
        if !dryRun, plan.isNeeded {
            outcome = try StoreMigrator.run(plan, to: output.map { StoreMigrator.Target.copy($0) } ?? .inPlace)
        }
        let action = actionText(plan, outcome: outcome)
        if json {
            var root = plan.json()
            var result = JSONObject()
            result["dryRun"] = .bool(dryRun)
            result["migrated"] = outcome.map { .string($0.migrated) } ?? .null
            result["backup"] = outcome?.backup.map(JSONValue.string) ?? .null
            result["summary"] = .string(action)
            root["result"] = .object(result)
            let writer = JSONWriter(sink: console.out)
            try writer.value(.object(root))
            try writer.finish()
        } else {
            try console.out.write(plan.text() + "\n" + action + "\n")
        }
    }

    /// What was done, or would be: the last line of the text output.
    private func actionText(_ plan: MigrationPlan, outcome: StoreMigrator.Outcome?) -> String {
        guard plan.isNeeded else { return "Nothing written." }
        if let outcome {
            if let backup = outcome.backup {
                return "Backed up the store to \(backup), then migrated \(outcome.migrated) in place to \(plan.destinationName)."
            }
            return "Migrated a copy of the store to \(outcome.migrated) (\(plan.destinationName)); \(store) was not changed."
        }
        var text = "Dry run: nothing written."
        if let output {
            text += " Without --dry-run, a migrated copy would be written to \(output)."
        } else if inPlace {
            text += " Without --dry-run, the store would be backed up to \(StoreMigrator.backupURL(for: URL(fileURLWithPath: store)).path) and migrated in place."
        }
        return text
    }
}
