import Foundation

/// An error that stops a benchmark: a failed check or an SQLite failure. Never swallowed.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Thrown by a variant that finds, while running, that it cannot produce a number in reasonable
/// time (for example a query the store cannot run in SQL yet); the reason is reported as "n/a".
struct NotAvailable: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Gives up with `NotAvailable` once `elapsed` seconds of a run of `total` steps, `done` of them
/// finished, project past `budget` seconds.
struct Budget {
    let seconds: Double
    let start = DispatchTime.now().uptimeNanoseconds

    func check(done: Int, total: Int, what: String) throws {
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        // A projection from the first few milliseconds is noise (one slow first query stopped
        // W10 once, projecting 89 s from 9 ms): judge only after a second.
        guard done > 0, elapsed >= 1 else { return }
        let projected = elapsed / Double(done) * Double(total)
        if projected > seconds {
            throw NotAvailable(String(format: "stopped: %@ would take about %.0f s per iteration (%d of %d done in %.1f s)", what, projected, done, total, elapsed))
        }
    }
}

/// Throws unless `condition` holds: every workload checks its result, so a broken comparator
/// cannot produce a fast, meaningless number.
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw BenchError("check failed: \(message())") }
}

/// The libraries compared in one run, in column order.
enum Comparator: Int, CaseIterable, Sendable {
    case raw, grdbRows, grdbRecords, ocdKVC, ocdTyped

    var title: String {
        switch self {
        case .raw: return "raw SQLite"
        case .grdbRows: return "GRDB rows"
        case .grdbRecords: return "GRDB records"
        case .ocdKVC: return "OCD KVC"
        case .ocdTyped: return "OCD @Managed"
        }
    }

    var key: String {
        switch self {
        case .raw: return "raw"
        case .grdbRows: return "grdb-rows"
        case .grdbRecords: return "grdb-records"
        case .ocdKVC: return "ocd-kvc"
        case .ocdTyped: return "ocd-typed"
        }
    }
}

/// One comparator's implementation of a benchmark case.
enum Variant {
    /// Does its own untimed setup, then returns the seconds of its timed part.
    case run(() throws -> Double)
    /// The comparator cannot do this yet; the reason is printed instead of a number.
    case notAvailable(String)
}

/// One row of the table: a workload (or one phase of it) run by every comparator.
struct BenchCase {
    let id: String
    /// What is timed, in a few words (printed under the table).
    let summary: String
    /// Whether each run happens in a fresh child process and reports peak RSS.
    var isolated = false
    var variants: [Comparator: Variant]
}

/// Wall-clock time of `body`, in seconds.
@inline(never)
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// What one comparator measured for one case.
struct Measurement {
    var seconds: [Double] = []
    /// Peak RSS (VmHWM) in bytes, one value per child-process run.
    var peakRSS: [Int] = []
    var notAvailable: String?

    var median: Double? { Statistics.median(seconds) }
    var minimum: Double? { seconds.min() }
    var maximum: Double? { seconds.max() }
}

enum Statistics {
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// The results of one case, by comparator.
struct CaseResult {
    let benchCase: BenchCase
    var measurements: [Comparator: Measurement]

    func ratio(_ comparator: Comparator) -> Double? {
        guard let raw = measurements[.raw]?.median, raw > 0, let value = measurements[comparator]?.median else { return nil }
        return value / raw
    }
}
