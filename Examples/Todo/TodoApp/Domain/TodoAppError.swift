import OpenCoreData

/// An error the user can act on; its description is the whole message `todo` prints.
public struct TodoAppError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The message, naming the record, id or file at fault.
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
    public var errorDescription: String? { message }

    static func notFound(_ kind: String, _ key: String) -> TodoAppError {
        TodoAppError("no \(kind) matches '\(key)'")
    }

    static func ambiguous(_ kind: String, _ key: String, _ candidates: [String]) -> TodoAppError {
        TodoAppError("'\(key)' matches \(candidates.count) \(kind)s (\(candidates.prefix(5).joined(separator: ", "))); give more of the id")
    }

    /// A save the model's validation refused: what was not saved, then Core Data's message and
    /// error code for each broken rule.
    static func notSaved(_ error: NSError, what: String) -> TodoAppError {
        let details = (error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [error]
        let reasons = details.map { "\($0.localizedDescription) (\($0.domain) \($0.code))" }
        return TodoAppError("\(what): \(reasons.joined(separator: "; "))")
    }
}

extension NSError {
    /// Whether this is one of Core Data's validation errors: `NSCocoaErrorDomain`, codes from
    /// Foundation's `NSValidationErrorMinimum` (1024) to `NSValidationErrorMaximum` (2047), which
    /// swift-corelibs-foundation does not declare.
    var isValidationError: Bool {
        domain == NSCocoaErrorDomain && (1024...2047).contains(code)
    }
}
