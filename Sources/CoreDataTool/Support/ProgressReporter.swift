import Foundation

/// A progress line on standard error for long imports and exports.
///
/// Silent for the first `delay` (two seconds), so quick runs print nothing. On a terminal the
/// line is redrawn in place a few times a second; with `--progress` and no terminal, a line is
/// written about once a second. Never on standard output, so piped results stay clean.
final class ProgressReporter {
    private let console: Console
    private let enabled: Bool
    private let verb: String
    private let total: Int
    private let delay: Duration
    private let showsCounts: Bool
    private let start = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var done = 0
    private var drewInPlace = false
    private var lastDetail = ""

    /// - Parameters:
    ///   - forced: `--progress`: report even when standard error is not a terminal.
    ///   - delay: how long to stay silent (tests pass zero).
    ///   - showsCounts: print `done of total objects`; otherwise only the percentage (for work
    ///     counted in passes, as an import's).
    init(console: Console, forced: Bool, verb: String, total: Int, showsCounts: Bool = true, delay: Duration = .seconds(2)) {
        self.showsCounts = showsCounts
        self.console = console
        self.enabled = forced || console.errorIsTerminal
        self.verb = verb
        self.total = total
        self.delay = delay
    }

    /// Counts `count` more objects done, drawing the line when it is due.
    func advance(by count: Int, detail: String) {
        done += count
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - start >= delay else { return }
        let interval: Duration = console.errorIsTerminal ? .milliseconds(250) : .seconds(1)
        // A new phase (`saving`) is shown at once; the same phase at most every interval.
        if let lastDraw, now - lastDraw < interval, detail == lastDetail { return }
        lastDetail = detail
        lastDraw = now
        draw(detail: detail)
    }

    /// Ends the line (if one was drawn).
    func finish() {
        guard enabled, lastDraw != nil else { return }
        draw(detail: "done")
        if drewInPlace { try? console.err.write("\n") }
        try? console.err.flush()
    }

    private func draw(detail: String) {
        let percent = total > 0 ? " (\(min(100, done * 100 / total))%)" : ""
        let text = showsCounts ? "\(verb) \(done) of \(total) objects\(percent), \(detail)"
            : "\(verb)\(percent), \(detail)"
        if console.errorIsTerminal {
            try? console.err.write("\r\u{1B}[K" + text)
            drewInPlace = true
        } else {
            try? console.err.line(text)
        }
        try? console.err.flush()
    }
}
