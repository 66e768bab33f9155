import Foundation
import OpenCoreData

/// The program behind the model-lookup executables (`lookup-*`, issue 38 point 1):
/// `lookup-x <model name> [store path] [--name-init]` loads the model by name as an app does,
/// prints its entities and attributes, and opens the store when one is given. A lookup that
/// fails prints the error and exits 2 (`--name-init` uses `NSPersistentContainer(name:)`, which
/// stops the process instead).
public enum ModelLookupProbe {
    public static func run(linked: [String]) -> Never {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let nameInit = arguments.contains("--name-init")
        arguments.removeAll { $0 == "--name-init" }
        let name = arguments.first ?? "Trips"
        do {
            let container = nameInit ? NSPersistentContainer(name: name) : try NSPersistentContainer(loadingModelNamed: name)
            let entities = container.managedObjectModel.entities.map { entity in
                "\(entity.name ?? "?")(\(entity.attributesByName.keys.sorted().joined(separator: ",")))"
            }
            print("linked: \(linked.joined(separator: ",")) entities: \(entities.sorted().joined(separator: " "))")
            if arguments.count > 1 {
                container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: arguments[1]))]
                var failure: Error?
                container.loadPersistentStores { _, error in failure = error }
                if let failure { throw failure }
                print("store: opened")
            }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("lookup failed: \((error as NSError).code) \(error.localizedDescription)\n".utf8))
            exit(2)
        }
    }
}
