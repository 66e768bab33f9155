import Foundation

/// Reads the ratio table back from a `--markdown` report, so runs made separately can share one chart.
enum ReportParser {
    static func ratios(inMarkdownAt path: String) throws -> [CaseResult] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let start = text.range(of: "## Ratios to raw SQLite") else {
            throw BenchError("\(path) has no ratio table")
        }
        let columns: [Comparator] = [.grdbRows, .grdbRecords, .ocdKVC, .ocdTyped]
        var results: [CaseResult] = []
        for line in text[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2 + columns.count, cells[0].hasPrefix("W"), cells[0] != "Workload" else { continue }
            // The chart needs ratios only: raw counts as 1, the others as their ratio.
            var measurements: [Comparator: Measurement] = [.raw: Measurement(seconds: [1])]
            for (offset, comparator) in columns.enumerated() {
                let cell = cells[2 + offset].replacingOccurrences(of: "×", with: "")
                if let ratio = Double(cell) {
                    measurements[comparator] = Measurement(seconds: [ratio])
                } else {
                    measurements[comparator] = Measurement(notAvailable: cells[2 + offset])
                }
            }
            let benchCase = BenchCase(id: cells[0], summary: "", variants: [:])
            results.append(CaseResult(benchCase: benchCase, measurements: measurements))
        }
        return results
    }
}
