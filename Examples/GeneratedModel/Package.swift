// swift-tools-version: 6.0
import PackageDescription

// A package that uses OpenCoreData's build plugin the way an app would: the to-do model lives in
// Sources/TodoModel/Todo.xcdatamodeld, and the plugin turns its entities (Codegen "Class
// Definition") into TodoEntity, TagEntity and LocationEntity at build time. RecipeModel covers
// the rest: inheritance, an ordered to-many, every attribute type, "Category/Extension" and
// "Manual/None" entities.
let package = Package(
    name: "GeneratedModel",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(name: "OpenCoreData", path: "../.."),
    ],
    targets: [
        .target(
            name: "TodoModel",
            dependencies: [.product(name: "OpenCoreData", package: "OpenCoreData")],
            resources: [.copy("Todo.xcdatamodeld")],
            plugins: [.plugin(name: "OpenCoreDataModelPlugin", package: "OpenCoreData")]
        ),
        .target(
            name: "RecipeModel",
            dependencies: [.product(name: "OpenCoreData", package: "OpenCoreData")],
            resources: [.copy("Recipes.xcdatamodeld")],
            plugins: [.plugin(name: "OpenCoreDataModelPlugin", package: "OpenCoreData")]
        ),
        .testTarget(
            name: "GeneratedModelTests",
            dependencies: ["TodoModel", "RecipeModel"]
        ),
    ]
)
