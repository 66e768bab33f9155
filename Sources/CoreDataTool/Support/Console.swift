import Foundation

/// The streams a command writes to: results on `out`, errors, warnings and progress on `err`.
public struct Console {
    /// Results.
    public let out: any TextSink
    /// Errors, warnings and progress.
    public let err: any TextSink
    /// Whether `err` is a terminal (progress lines are drawn in place only then).
    public let errorIsTerminal: Bool

    public init(out: any TextSink, err: any TextSink, errorIsTerminal: Bool = false) {
        self.out = out
        self.err = err
        self.errorIsTerminal = errorIsTerminal
    }

    /// Standard output and standard error.
    public static func standard() -> Console {
        let err = FileSink.standardError()
        return Console(out: FileSink.standardOutput(), err: err, errorIsTerminal: err.isTerminal)
    }

    /// Writes `coredata: warning: …` on the error stream at once.
    public func warn(_ message: String) {
        try? err.line("coredata: warning: \(message)")
        try? err.flush()
    }

    /// Writes an error and its detail lines on the error stream at once.
    public func report(_ error: ToolError) {
        try? out.flush()
        try? err.line("coredata: error: \(error.message)")
        for line in error.details { try? err.line(line) }
        try? err.flush()
    }
}
