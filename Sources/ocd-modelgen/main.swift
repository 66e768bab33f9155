import Foundation
import OpenCoreData

// Generates the Swift classes Xcode's model editor would, from a .xcdatamodeld, .xcdatamodel,
// .momd or .mom, and compiles model source to .momd/.mom as momc does. The build plugin runs it
// with --codegen-file and --compile; the command plugin and `swift run ocd-modelgen` with
// --output. See docs/CodeGeneration.md and docs/ModelFiles.md.

let usage = """
    usage: ocd-modelgen <model> --output <folder> [--entity <name>]...
           ocd-modelgen <model> --codegen-file <file.swift>
           ocd-modelgen <model> --compile <Name.momd | Name.mom>

      --output <folder>        write <Class>+CoreDataClass.swift and <Class>+CoreDataProperties.swift
                               for every entity (or each --entity), whatever its Codegen setting, as
                               Xcode's "Create NSManagedObject Subclass…" does
      --entity <name>          only this entity (repeatable; with --output)
      --codegen-file <file>    write, as one file, what each entity's Codegen setting asks for:
                               Class Definition, Category/Extension or nothing (the build plugin)
      --compile <path>         compile a .xcdatamodeld to a .momd folder, or a .xcdatamodel to a .mom
                               file, as Xcode's momc does (the build plugin)
    """

/// The command line, parsed.
struct Arguments {
    enum Mode { case output(URL), codegenFile(URL), compile(URL) }
    var model: URL
    var mode: Mode
    var entities: [String]?

    init(_ arguments: [String]) throws(UsageError) {
        var model: URL?
        var mode: Mode?
        var entities: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--output", "--codegen-file", "--compile", "--entity":
                guard let value = rest.popFirst(), !value.isEmpty else { throw UsageError("\(argument) needs a value") }
                let url = URL(fileURLWithPath: value)
                switch argument {
                case "--entity": entities.append(value)
                default:
                    guard mode == nil else { throw UsageError("give one of --output, --codegen-file and --compile") }
                    mode = argument == "--output" ? .output(url) : argument == "--compile" ? .compile(url) : .codegenFile(url)
                }
            case "-h", "--help":
                throw UsageError(nil)
            default:
                guard !argument.hasPrefix("-") else { throw UsageError("unknown option \(argument)") }
                guard model == nil else { throw UsageError("more than one model: \(argument)") }
                model = URL(fileURLWithPath: argument)
            }
        }
        guard let model else { throw UsageError("no model given") }
        guard let mode else { throw UsageError("give --output <folder>, --codegen-file <file> or --compile <path>") }
        if case .output = mode {} else if !entities.isEmpty { throw UsageError("--entity goes with --output") }
        self.model = model
        self.mode = mode
        self.entities = entities.isEmpty ? nil : entities
    }
}

struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}

/// Prints a diagnostic in the compiler's `path: error: message` form, which SwiftPM and editors show.
func fail(_ path: String, _ message: String) -> Never {
    FileHandle.standardError.write(Data("\(path): error: \(message)\n".utf8))
    exit(1)
}

/// Writes a file unless it already holds the same text, so unchanged output doesn't trigger a rebuild.
func write(_ text: String, to url: URL) throws {
    let data = Data(text.utf8)
    if let existing = try? Data(contentsOf: url), existing == data { return }
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url, options: .atomic)
}

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message {
        FileHandle.standardError.write(Data("ocd-modelgen: error: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
    print(usage)
    exit(0)
}

let modelPath = arguments.model.path
if case .compile(let destination) = arguments.mode {
    guard ["xcdatamodeld", "xcdatamodel"].contains(arguments.model.pathExtension) else {
        fail(modelPath, "--compile takes a .xcdatamodeld or .xcdatamodel")
    }
    do {
        try ModelCompiler.compile(arguments.model, to: destination)
        exit(0)
    } catch {
        fail(modelPath, error.localizedDescription)
    }
}
let model: NSManagedObjectModel
do {
    model = try NSManagedObjectModel.load(contentsOf: arguments.model)
} catch {
    fail(modelPath, error.localizedDescription)
}

let generator = ModelCodeGenerator(model: model, sourceName: arguments.model.lastPathComponent)
do {
    switch arguments.mode {
    case .codegenFile(let file):
        try write(generator.combinedSource(for: .codegenSettings, fileName: file.lastPathComponent), to: file)
    case .output(let folder):
        for file in try generator.files(for: .manual(entities: arguments.entities)) {
            try write(file.contents, to: folder.appendingPathComponent(file.name))
            print("wrote \(folder.appendingPathComponent(file.name).path)")
        }
        let chosen = arguments.entities.map(Set.init)
        for entity in model.entities where chosen?.contains(entity.name ?? "") ?? true {
            guard let setting = entity.codegenSettingName else { continue }
            print("note: entity '\(entity.name ?? "")' has Codegen \(setting); set it to Manual/None, "
                + "or the build plugin generates its code a second time")
        }
    case .compile:
        break // handled above, before the model is loaded for code generation
    }
} catch let error as ModelCodeGenerationError {
    fail(modelPath, "can't generate Swift for \(error)")
} catch {
    fail(modelPath, error.localizedDescription)
}
