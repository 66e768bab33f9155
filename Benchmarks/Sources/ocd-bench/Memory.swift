import Foundation

/// Peak memory, read from the kernel.
enum Memory {
    /// The process's peak resident set size (`VmHWM` in /proc/self/status), in bytes.
    static func peakRSS() -> Int? { statusField("VmHWM:") }

    /// The current resident set size (`VmRSS`), in bytes.
    static func currentRSS() -> Int? { statusField("VmRSS:") }

    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }
}

/// Runs one measurement of an isolated case in a fresh process of this same binary, so that
/// each peak RSS belongs to exactly one comparator and one run.
enum ChildProcess {
    static let marker = "OCDBENCH-CHILD-RESULT"

    static func run(caseID: String, comparator: Comparator, options: Options) throws -> (seconds: Double, peakRSS: Int?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var arguments = ["--child", caseID, "--filter", caseID, "--comparator", comparator.key, "--data-dir", options.dataDirectory.path]
        if options.quick { arguments.append("--quick") }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
              let line = text.split(separator: "\n").last(where: { $0.hasPrefix(marker) }) else {
            throw BenchError("child process for \(caseID) / \(comparator.key) failed (status \(process.terminationStatus)): \(text)")
        }
        var seconds: Double?
        var peak: Int?
        for field in line.split(separator: " ").dropFirst() {
            let parts = field.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            if parts[0] == "unavailable" { throw NotAvailable(parts[1].replacingOccurrences(of: "_", with: " ")) }
            if parts[0] == "seconds" { seconds = Double(parts[1]) }
            if parts[0] == "peak" { peak = Int(parts[1]).flatMap { $0 >= 0 ? $0 : nil } }
        }
        guard let seconds else { throw BenchError("child process for \(caseID) printed no time: \(line)") }
        return (seconds, peak)
    }
}
