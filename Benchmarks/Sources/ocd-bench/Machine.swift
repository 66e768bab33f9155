import Foundation
import GRDBSQLite

/// What the report says about the machine.
enum Machine {
    static var cpuModel: String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown CPU"
    }

    static var memory: String {
        String(format: "%.1f GiB", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
    }

    static var summary: String {
        "\(ProcessInfo.processInfo.activeProcessorCount) cores (nproc), \(cpuModel), \(memory) RAM"
    }

    static var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }
}
