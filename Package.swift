// swift-tools-version: 6.0
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        .executable(name: "coredata-example", targets: ["CoreDataExample"]),
        .executable(name: "coredata", targets: ["coredata"]),
        // Code generation from Xcode models (docs/CodeGeneration.md).
        .executable(name: "ocd-modelgen", targets: ["ocd-modelgen"]),
        .plugin(name: "OpenCoreDataModelPlugin", targets: ["OpenCoreDataModelPlugin"]),
        .plugin(name: "GenerateManagedObjectClasses", targets: ["GenerateManagedObjectClasses"]),
        // The seed to-do app's Linux twin (Examples/Todo) and the CRUD tutorial's (Examples/CrudExample).
        .executable(name: "todo", targets: ["todo"]),
        .executable(name: "crud-example", targets: ["CrudExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "602.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .macro(
            name: "OpenCoreDataMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "OpenCoreData",
            dependencies: [
                "OpenCoreDataMacros",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "CoreDataExample",
            dependencies: ["OpenCoreData"],
            path: "Examples/CoreDataExample"
        ),
        // The `coredata` tool: its commands live in a library so tests can call them directly.
        .target(
            name: "CoreDataTool",
            dependencies: [
                "OpenCoreData",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "coredata",
            dependencies: ["CoreDataTool"]
        ),
        .testTarget(
            name: "CoreDataCLITests",
            dependencies: [
                "CoreDataTool",
                "OpenCoreData",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The to-do app: model, DAOs, repositories and commands live in a library so that tests
        // can call the repositories; `todo` is its thin executable. The build plugin generates
        // TodoEntity, TagEntity and LocationEntity from Todo.xcdatamodeld.
        .target(
            name: "TodoApp",
            dependencies: [
                "OpenCoreData",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Todo/TodoApp",
            resources: [.copy("Todo.xcdatamodeld")],
            plugins: ["OpenCoreDataModelPlugin"]
        ),
        .executableTarget(
            name: "todo",
            dependencies: ["TodoApp"],
            path: "Examples/Todo/todo"
        ),
        .executableTarget(
            name: "CrudExample",
            dependencies: ["OpenCoreData"],
            path: "Examples/CrudExample"
        ),
        .executableTarget(
            name: "ocd-modelgen",
            dependencies: ["OpenCoreData"]
        ),
        .plugin(
            name: "OpenCoreDataModelPlugin",
            capability: .buildTool(),
            dependencies: ["ocd-modelgen"]
        ),
        .plugin(
            name: "GenerateManagedObjectClasses",
            capability: .command(
                intent: .custom(
                    verb: "generate-managed-object-classes",
                    description: "Write the classes of the Core Data models' entities into the source tree"
                ),
                permissions: [.writeToPackageDirectory(reason: "Writes <Class>+CoreDataClass.swift and <Class>+CoreDataProperties.swift files")]
            ),
            dependencies: ["ocd-modelgen"]
        ),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: [
                "OpenCoreData",
                // Fixture tests read Apple-written stores read-only.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Repository unit tests, and an end-to-end test that runs the built `todo` binary.
        .testTarget(
            name: "TodoAppTests",
            dependencies: ["TodoApp", "todo"]
        ),
        // Core Data code as Apple-platform apps write it (docs/Deviations.md lists what Linux
        // still forces): it must compile warning-free in Swift 6 mode, and — the same files,
        // linked into the second target — in Swift 5 mode.
        .testTarget(
            name: "CompatibilityCorpusTests",
            dependencies: ["OpenCoreData"],
            resources: [.copy("Resources/Corpus.xcdatamodeld")]
        ),
        .testTarget(
            name: "CompatibilityCorpusSwift5Tests",
            dependencies: ["OpenCoreData"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The code-generation sample (Examples/GeneratedModel, a package of its own that uses the
        // plugin as an app does) and the benchmark tool (Benchmarks/, a package of its own for
        // release runs) are also targets here, over the same source folders: the main build
        // compiles and tests them, so CI does not build every dependency twice more for them.
        // Each package builds on its own as before (these targets are unreachable from them).
        .target(
            name: "TodoModel",
            dependencies: ["OpenCoreData"],
            path: "Examples/GeneratedModel/Sources/TodoModel",
            resources: [.copy("Todo.xcdatamodeld")],
            plugins: ["OpenCoreDataModelPlugin"]
        ),
        .target(
            name: "RecipeModel",
            dependencies: ["OpenCoreData"],
            path: "Examples/GeneratedModel/Sources/RecipeModel",
            resources: [.copy("Recipes.xcdatamodeld")],
            plugins: ["OpenCoreDataModelPlugin"]
        ),
        .testTarget(
            name: "GeneratedModelTests",
            dependencies: ["TodoModel", "RecipeModel"],
            path: "Examples/GeneratedModel/Tests/GeneratedModelTests"
        ),
        .executableTarget(
            name: "ocd-bench-check",
            dependencies: [
                "OpenCoreData",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Benchmarks/Sources/ocd-bench"
        ),
        // Model lookup in a multi-target package (issue 38): executables that each link other
        // models, built into one folder with every other target's resource bundle.
        .target(name: "ModelLookupProbe", dependencies: ["OpenCoreData"], path: "Tests/ModelLookupFixtures/Probe"),
        .target(name: "LookupModelsA", path: "Tests/ModelLookupFixtures/ModelsA", resources: [.copy("Trips.xcdatamodeld")]),
        .target(name: "LookupModelsB", path: "Tests/ModelLookupFixtures/ModelsB", resources: [.copy("Trips.xcdatamodeld")]),
        .executableTarget(name: "lookup-trips-a", dependencies: ["ModelLookupProbe", "LookupModelsA"], path: "Tests/ModelLookupFixtures/TripsA"),
        .executableTarget(name: "lookup-trips-b", dependencies: ["ModelLookupProbe", "LookupModelsB"], path: "Tests/ModelLookupFixtures/TripsB"),
        .executableTarget(name: "lookup-both", dependencies: ["ModelLookupProbe", "LookupModelsA", "LookupModelsB"], path: "Tests/ModelLookupFixtures/Both"),
        .executableTarget(name: "lookup-none", dependencies: ["ModelLookupProbe"], path: "Tests/ModelLookupFixtures/NoModel"),
        .executableTarget(name: "lookup-own-todo", dependencies: ["ModelLookupProbe", "OpenCoreData"], path: "Tests/ModelLookupFixtures/OwnTodo",
                          resources: [.copy("Todo.xcdatamodeld")], plugins: ["OpenCoreDataModelPlugin"]),
        .testTarget(
            name: "ModelLookupTests",
            dependencies: ["lookup-trips-a", "lookup-trips-b", "lookup-both", "lookup-none", "lookup-own-todo"]
        ),
        .testTarget(
            name: "OpenCoreDataMacrosTests",
            dependencies: [
                "OpenCoreDataMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
    ]
)
