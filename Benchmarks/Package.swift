// swift-tools-version: 6.0
// The benchmark suite lives in its own package so that users of OpenCoreData never build GRDB's
// comparators or this tool. Run it with:
//   swift run -c release --package-path Benchmarks ocd-bench [--filter W1,W5] [--quick]
import PackageDescription

let package = Package(
    name: "OpenCoreDataBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "OpenCoreData", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "ocd-bench",
            dependencies: [
                .product(name: "OpenCoreData", package: "OpenCoreData"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // The system SQLite C API, the same library GRDB and OpenCoreData link.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
    ]
)
