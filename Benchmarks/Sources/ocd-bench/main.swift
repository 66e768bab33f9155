import Foundation

// ocd-bench: OpenCoreData against raw SQLite and GRDB, side by side in one run.
// See BENCHMARKS.md at the repository root and shared/docs/performance.md.

/// The workloads, in report order, with the cases each one contributes.
let workloads: [(name: String, cases: [String], make: (Bench) throws -> [BenchCase])] = [
    ("W1", ["W1-insert", "W1-fetch"], W1.cases),
    ("W2", ["W2-insert", "W2-fetch", "W2-rename", "W2-delete"], W2.cases),
    ("W3", ["W3-insert", "W3-walk"], W3.cases),
    ("W4", ["W4"], W4.cases),
    ("W5", ["W5-indexed", "W5-unindexed", "W5-prefix"], W5.cases),
    ("W6", ["W6-objects", "W6-batch"], W6.cases),
    ("W7", ["W7"], W7.cases),
    ("W8", ["W8"], W8.cases),
    ("W9", ["W9-batch0", "W9-batch20", "W9-batch500"], W9.cases),
    ("W10", ["W10"], W10.cases),
    ("W11", ["W11"], W11.cases),
    ("W12", ["W12"], W12.cases),
    ("W13", ["W13-median", "W13-p99"], W13.cases),
    ("W14", ["W14-edit", "W14-refetch"], W14.cases),
    ("W15", ["W15-root", "W15-child"], W15.cases),
]

@MainActor
func main() -> Int32 {
    if let status = W13.runWriterIfAsked() { return status }
    let options: Options
    do {
        options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
    } catch {
        Progress.note("ocd-bench: \(error)")
        return 2
    }
    if let reports = options.chartFrom {
        guard let path = options.svgPath else {
            Progress.note("ocd-bench: --chart-from needs --svg PATH")
            return 2
        }
        do {
            let results = try reports.flatMap { try ReportParser.ratios(inMarkdownAt: $0) }
            try SVGChart.render(results).write(toFile: path, atomically: true, encoding: .utf8)
            Progress.note("wrote \(path) from \(results.count) cases")
            return 0
        } catch {
            Progress.note("ocd-bench: \(error)")
            return 1
        }
    }
    if options.listOnly {
        for workload in workloads {
            print(workload.cases.filter(options.selects).joined(separator: "\n"))
        }
        return 0
    }
    do {
        let bench = try Bench(options: options)
        defer { if !options.keepData { bench.removeDirectory() } }
        var cases: [BenchCase] = []
        for workload in workloads where options.selectsWorkload(workload.name) {
            cases += try workload.make(bench)
        }
        if let caseID = options.childCase, let comparator = options.childComparator {
            try Runner.runChild(caseID: caseID, comparator: comparator, cases: cases)
            return 0
        }
        guard !cases.isEmpty else {
            Progress.note("ocd-bench: --filter selected no workload\n\(Options.usage)")
            return 2
        }
        let started = Date()
        let results = try Runner(options: options).run(cases) { partial in
            if let path = options.markdownPath {
                let report = Report.full(partial, options: options, started: started, elapsed: Date().timeIntervalSince(started))
                try (report + "\n(partial: \(partial.count) of \(cases.count) cases so far)\n").write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        let report = Report.full(results, options: options, started: started, elapsed: elapsed)
        print(report)
        if let path = options.markdownPath {
            try report.write(toFile: path, atomically: true, encoding: .utf8)
        }
        if let path = options.svgPath {
            try SVGChart.render(results).write(toFile: path, atomically: true, encoding: .utf8)
            Progress.note("wrote \(path)")
        }
        return 0
    } catch {
        Progress.note("ocd-bench: \(error)")
        return 1
    }
}

exit(main())
