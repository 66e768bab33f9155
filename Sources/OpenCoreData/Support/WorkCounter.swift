import Synchronization

// MARK: - WorkCounter

/// Counts the steps of the loops whose cost must stay linear in their input (issue 30), so tests
/// can double an input and check that the work does not quadruple, without timing anything.
///
/// A test measures with ``measure(_:)``; the count is kept in a task-local tally, so tests that
/// run in parallel never add to each other's counts, and code outside a measurement counts
/// nothing. Counting is compiled in debug builds only (the tests); release builds pay nothing.
package enum WorkCounter {
    /// The steps counted in one measurement.
    package final class Tally: Sendable {
        fileprivate let steps = Atomic<Int>(0)
        /// The steps counted so far.
        package var count: Int { steps.load(ordering: .relaxed) }
    }

    @TaskLocal fileprivate static var current: Tally?

    /// Counts `steps` steps of work in the current measurement, if any.
    @inline(__always)
    package static func count(_ steps: Int = 1) {
        #if DEBUG
        current?.steps.add(steps, ordering: .relaxed)
        #endif
    }

    /// Runs `body` synchronously on the caller's task and returns the steps it counted.
    package static func measure(_ body: () throws -> Void) rethrows -> Int {
        let tally = Tally()
        try $current.withValue(tally) { try body() }
        return tally.count
    }
}
