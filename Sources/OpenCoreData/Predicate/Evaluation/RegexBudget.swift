import Foundation

// MARK: - RegexBudget

/// The step and time bound on one `MATCHES` evaluation.
///
/// ICU's backtracking matcher can take exponential time (`(a*)*b` against a run of `a`s); a
/// pattern from outside must not hang a fetch. Each match may take `baseSteps` plus
/// `stepsPerCharacter` for each UTF-16 unit of the string (counted in ICU's progress callbacks,
/// one per 10,000 steps of its engine), and at most `timeLimit`; past either the match is
/// abandoned and counts as no match. Inside `enforce(_:)` (every fetch and count) the
/// first abandoned match makes the rest of the scope's matches fail at once and the scope
/// throws an `NSError`. Apple has no such limit (docs/Deviations.md).
package enum RegexBudget {
    /// How long one match may run.
    package static let timeLimit: TimeInterval = 1
    /// ICU matcher steps any match may take (about 0.2 s).
    package static let baseSteps = 10_000_000
    /// Further steps for each UTF-16 unit of the string, so linear scans of long strings pass.
    package static let stepsPerCharacter = 100
    /// Steps between two of ICU's progress callbacks.
    private static let stepsPerCallback = 10_000

    /// Records an abandoned match for the enclosing `enforce(_:)`.
    ///
    /// `@unchecked Sendable`: one scope belongs to one synchronous `enforce` call and is only
    /// touched on that call's thread (task-local values are not shared across threads here).
    package final class Scope: @unchecked Sendable {
        fileprivate var abandonedPattern: String?
    }

    @TaskLocal private static var scope: Scope?

    /// Runs `body`; throws `NSCoreDataError` if a `MATCHES` in it ran past its bound.
    package static func enforce<T>(_ body: () throws -> T) throws -> T {
        if scope != nil { return try body() }  // the outer scope reports
        let current = Scope()
        let result = try $scope.withValue(current) { try body() }
        if let pattern = current.abandonedPattern {
            throw CoreDataError.make(NSCoreDataError, "The regular expression '\(pattern.prefix(200))' of a MATCHES comparison ran past its step or time bound on one value (catastrophic backtracking?) and was abandoned (OpenCoreData bounds regular expressions; see docs/Deviations.md).")
        }
        return result
    }

    /// Whether a match in this scope was already abandoned (the scope will throw anyway).
    package static var isExhausted: Bool {
        scope?.abandonedPattern != nil
    }

    /// Whether `regex` matches within `range` of `text` (anchoring per `options`), giving up
    /// past the step or time bound (then `false`). With `spanning`, the first match must cover exactly that range.
    package static func firstMatch(_ regex: NSRegularExpression, in text: String, options: NSRegularExpression.MatchingOptions,
                                   range: NSRange, pattern: String, spanning: NSRange? = nil) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeLimit)
        let allowedCallbacks = (baseSteps + stepsPerCharacter * range.length) / stepsPerCallback
        var callbacks = 0
        var found = false
        var abandoned = false
        regex.enumerateMatches(in: text, options: options.union(.reportProgress), range: range) { result, _, stop in
            if let result {
                found = spanning.map { result.range == $0 } ?? true
                stop.pointee = true
                return
            }
            callbacks += 1
            if callbacks > allowedCallbacks || (callbacks % 16 == 0 && Date() > deadline) {
                abandoned = true
                stop.pointee = true
            }
        }
        if abandoned && !found {
            if let scope, scope.abandonedPattern == nil { scope.abandonedPattern = pattern }
            return false
        }
        return found
    }
}
