import Foundation

/// The `bundleID` and `processID` persistent history records for this process.
///
/// Apple records the app's bundle identifier and its process name (an XCTest run wrote
/// 'com.apple.dt.xctest.tool' and 'xctest'). Linux programs rarely have a bundle identifier, so
/// the bundle ID falls back to the executable's name; the process ID is the process name, as
/// on Apple platforms (docs/History.md).
package enum HistoryProcessIdentity {
    /// `Bundle.main.bundleIdentifier`, else the executable's file name, else the process name.
    package static let bundleID: String = {
        if let identifier = Bundle.main.bundleIdentifier, !identifier.isEmpty { return identifier }
        if let executable = Bundle.main.executableURL?.lastPathComponent, !executable.isEmpty { return executable }
        return ProcessInfo.processInfo.processName
    }()

    /// `ProcessInfo.processInfo.processName`.
    package static let processID: String = ProcessInfo.processInfo.processName
}
