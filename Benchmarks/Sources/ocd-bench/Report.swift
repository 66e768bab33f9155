import Foundation

/// Formats results as Markdown tables (readable in a terminal, pasteable into BENCHMARKS.md).
enum Report {
    static let shown: [Comparator] = Comparator.allCases

    static func duration(_ seconds: Double) -> String {
        if seconds >= 10 { return String(format: "%.1f s", seconds) }
        if seconds >= 1 { return String(format: "%.2f s", seconds) }
        if seconds >= 0.1 { return String(format: "%.0f ms", seconds * 1e3) }
        if seconds >= 0.01 { return String(format: "%.1f ms", seconds * 1e3) }
        if seconds >= 0.001 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.0f µs", seconds * 1e6)
    }

    static func ratio(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f×", value) : value >= 10 ? String(format: "%.1f×", value) : String(format: "%.2f×", value)
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.0f MB", Double(bytes) / 1_048_576)
    }

    static func progressLine(_ result: CaseResult) -> String {
        let parts = shown.map { comparator -> String in
            guard let measurement = result.measurements[comparator], let median = measurement.median else { return "\(comparator.key) n/a" }
            let ratioText = result.ratio(comparator).map { " (\(ratio($0)))" } ?? ""
            let spread = "[\(duration(measurement.minimum ?? median))–\(duration(measurement.maximum ?? median))]"
            let peak = measurement.peakRSS.max().map { " peak \(megabytes($0))" } ?? ""
            return "\(comparator.key) \(duration(median)) \(spread)\(ratioText)\(peak)"
        }
        return "  " + parts.joined(separator: ", ")
    }

    /// The detailed table: one line per workload and comparator.
    static func detailTable(_ results: [CaseResult]) -> String {
        let hasMemory = results.contains { $0.benchCase.isolated }
        var lines = ["| Workload | Comparator | Median | Spread (min–max) | × raw |" + (hasMemory ? " Peak RSS |" : "")]
        lines.append("|---|---|---:|---:|---:|" + (hasMemory ? "---:|" : ""))
        for result in results {
            for comparator in shown {
                let measurement = result.measurements[comparator] ?? Measurement(notAvailable: "not run")
                var cells = [result.benchCase.id, comparator.title]
                if let median = measurement.median, let low = measurement.minimum, let high = measurement.maximum {
                    cells.append(duration(median))
                    cells.append("\(duration(low)) – \(duration(high))")
                    cells.append(result.ratio(comparator).map(ratio) ?? "–")
                } else {
                    cells.append("n/a")
                    cells.append(measurement.notAvailable ?? "")
                    cells.append("–")
                }
                if hasMemory {
                    cells.append(measurement.peakRSS.max().map(megabytes) ?? "")
                }
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The compact table: the ratio to raw of every comparator, one line per workload.
    static func ratioTable(_ results: [CaseResult]) -> String {
        let columns = shown.filter { $0 != .raw }
        var lines = ["| Workload | raw SQLite (median) | " + columns.map(\.title).joined(separator: " | ") + " |"]
        lines.append("|---|---:|" + columns.map { _ in "---:|" }.joined())
        for result in results {
            var cells = [result.benchCase.id, result.measurements[.raw]?.median.map(duration) ?? "n/a"]
            for comparator in columns {
                if let value = result.ratio(comparator) {
                    cells.append(ratio(value))
                } else {
                    cells.append("n/a")
                }
            }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// Targets from performance.md, checked against this run.
    static func targets(_ results: [CaseResult]) -> String {
        func result(_ id: String) -> CaseResult? { results.first { $0.benchCase.id == id } }
        var lines: [String] = []
        func ratioTarget(_ id: String, _ limit: Double) {
            guard let result = result(id) else { return }
            for comparator in [Comparator.ocdKVC, .ocdTyped] {
                guard let value = result.ratio(comparator) else {
                    lines.append("- \(id) \(comparator.title) ≤ \(ratio(limit)): n/a")
                    continue
                }
                lines.append("- \(id) \(comparator.title) ≤ \(ratio(limit)): \(ratio(value)) — \(value <= limit ? "met" : "MISSED")")
            }
        }
        ratioTarget("W1-insert", 3)
        ratioTarget("W1-fetch", 3)
        for id in ["W5-indexed", "W5-unindexed", "W5-prefix"] { ratioTarget(id, 2) }
        func peakTarget(_ id: String, megabytes limitMB: Int) {
            guard let result = result(id) else { return }
            for comparator in [Comparator.ocdKVC, .ocdTyped] {
                if let peak = result.measurements[comparator]?.peakRSS.max() {
                    let limit = limitMB * 1_048_576
                    lines.append("- \(id) \(comparator.title) peak RSS ≤ \(limitMB) MB: \(megabytes(peak)) — \(peak <= limit ? "met" : "MISSED")")
                }
            }
        }
        peakTarget("W9-batch500", megabytes: 100)
        // Issue 16: a migration of a million rows stays under 300 MB.
        peakTarget("W11", megabytes: 300)
        // Issue 19: a fetched results controller reports one edit at least 50× cheaper than refetching.
        if let edit = result("W14-edit"), let refetch = result("W14-refetch") {
            for comparator in [Comparator.ocdKVC, .ocdTyped] {
                guard let editTime = edit.measurements[comparator]?.median, editTime > 0,
                      let refetchTime = refetch.measurements[comparator]?.median else { continue }
                let value = refetchTime / editTime
                lines.append("- W14-refetch ÷ W14-edit \(comparator.title) ≥ 50×: \(ratio(value)) — \(value >= 50 ? "met" : "MISSED")")
            }
        }
        // Issue 18: editing through a child context costs at most 1.3× editing in the root.
        if let root = result("W15-root"), let child = result("W15-child") {
            for comparator in [Comparator.ocdKVC, .ocdTyped] {
                guard let rootTime = root.measurements[comparator]?.median, rootTime > 0,
                      let childTime = child.measurements[comparator]?.median else { continue }
                let value = childTime / rootTime
                lines.append("- W15-child ÷ W15-root \(comparator.title) ≤ 1.30×: \(ratio(value)) — \(value <= 1.3 ? "met" : "MISSED")")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func notes(_ results: [CaseResult]) -> String {
        results.map { "- **\($0.benchCase.id)**: \($0.benchCase.summary)" }.joined(separator: "\n")
    }

    static func full(_ results: [CaseResult], options: Options, started: Date, elapsed: Double) -> String {
        let formatter = ISO8601DateFormatter()
        var text = """
        # ocd-bench \(options.quick ? "(--quick: small counts, times are not meaningful)" : "")

        Date: \(formatter.string(from: started)) · \(options.warmups) warm-up + \(options.iterations) measured iterations per comparator, interleaved · total \(String(format: "%.0f", elapsed)) s
        Machine: \(Machine.summary)
        SQLite: \(Machine.sqliteVersion) (WAL, synchronous=NORMAL for every comparator)

        ## Ratios to raw SQLite (median ÷ median, same run; lower is better)

        \(ratioTable(results))

        ## Details

        \(detailTable(results))

        ## What each case times

        \(notes(results))

        """
        let targetLines = targets(results)
        if !targetLines.isEmpty {
            text += "\n## Targets (performance.md)\n\n\(targetLines)\n"
        }
        return text
    }
}
