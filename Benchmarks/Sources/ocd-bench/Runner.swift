import Foundation

/// Runs cases: a warm-up, then the measured iterations, with the comparators interleaved
/// (the starting comparator rotates each iteration so no library always runs first or last).
struct Runner {
    let options: Options

    /// Runs every case; `progress` sees the results so far after each one (a long run's report
    /// is then written as it goes, not only at the end).
    func run(_ cases: [BenchCase], progress: ([CaseResult]) throws -> Void = { _ in }) throws -> [CaseResult] {
        var results: [CaseResult] = []
        for benchCase in cases {
            results.append(try run(benchCase))
            try progress(results)
        }
        return results
    }

    private func run(_ benchCase: BenchCase) throws -> CaseResult {
        var measurements: [Comparator: Measurement] = [:]
        let runnable = Comparator.allCases.filter { comparator in
            if let chosen = options.comparators, !chosen.contains(comparator) {
                measurements[comparator] = Measurement(notAvailable: "not selected (--comparators)")
                return false
            }
            switch benchCase.variants[comparator] {
            case .run?: return true
            case .notAvailable(let reason)?:
                measurements[comparator] = Measurement(notAvailable: reason)
                return false
            case nil:
                measurements[comparator] = Measurement(notAvailable: "not part of this workload")
                return false
            }
        }
        let total = options.warmups + options.iterations
        Progress.note("\(benchCase.id): \(options.warmups) warm-up + \(options.iterations) iterations × \(runnable.count) comparators")
        for iteration in 0..<total {
            let shift = runnable.isEmpty ? 0 : iteration % runnable.count
            let order = Array(runnable[shift...] + runnable[..<shift])
            for comparator in order where measurements[comparator]?.notAvailable == nil {
                let (seconds, peak): (Double, Int?)
                do {
                    if benchCase.isolated {
                        (seconds, peak) = try ChildProcess.run(caseID: benchCase.id, comparator: comparator, options: options)
                    } else {
                        guard case .run(let body)? = benchCase.variants[comparator] else { continue }
                        seconds = try autoreleasepool { try body() }
                        peak = nil
                    }
                } catch let error as NotAvailable {
                    measurements[comparator] = Measurement(notAvailable: error.reason)
                    Progress.note("  \(comparator.key): n/a — \(error.reason)")
                    continue
                }
                guard iteration >= options.warmups else { continue }
                measurements[comparator, default: Measurement()].seconds.append(seconds)
                if let peak { measurements[comparator, default: Measurement()].peakRSS.append(peak) }
            }
        }
        let result = CaseResult(benchCase: benchCase, measurements: measurements)
        Progress.note(Report.progressLine(result))
        return result
    }
}

#if !canImport(ObjectiveC)
/// Linux has no autorelease pool; keeps the call sites the same as on Darwin.
@inline(__always)
func autoreleasepool<T>(invoking body: () throws -> T) rethrows -> T { try body() }
#endif

extension Runner {
    /// The child-process side of an isolated case: run one comparator once and report.
    static func runChild(caseID: String, comparator: Comparator, cases: [BenchCase]) throws {
        guard let benchCase = cases.first(where: { $0.id == caseID }) else {
            throw BenchError("child: unknown case \(caseID)")
        }
        guard case .run(let body)? = benchCase.variants[comparator] else {
            throw BenchError("child: \(caseID) has no runnable \(comparator.key) variant")
        }
        let seconds: Double
        do {
            seconds = try body()
        } catch let error as NotAvailable {
            print("\(ChildProcess.marker) unavailable=\(error.reason.replacingOccurrences(of: " ", with: "_"))")
            return
        }
        let peak = Memory.peakRSS() ?? -1
        print("\(ChildProcess.marker) seconds=\(seconds) peak=\(peak)")
    }
}

/// Progress lines go to stderr so stdout holds only the report.
enum Progress {
    static func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
