import Logging

/// Loggers for OpenCoreData's subsystems (set `LOG_LEVEL`-style handlers with swift-log's bootstrap).
package enum Log {
    /// Object graph events: faults that cannot be fulfilled, merge problems.
    package static let objectGraph = Logger(label: "OpenCoreData.ObjectGraph")
    /// Store events: metadata, files.
    package static let store = Logger(label: "OpenCoreData.Store")
    /// Every SQL statement at `.debug` level, like Apple's `-com.apple.CoreData.SQLDebug 1`.
    package static let sql = Logger(label: "OpenCoreData.SQL")
}
