import Foundation
import OpenCoreData

/// An error the tool reports as one clean line on standard error (no stack trace), with an exit code.
public struct ToolError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the file, entity, key or record.
    public var message: String
    /// Further lines printed under the message (a caret under a predicate, a hint).
    public var details: [String]
    /// The process's exit code.
    public var exitCode: Int32

    /// Exit code for an error that stopped the command (file, model, store, input).
    public static let failureExitCode: Int32 = 2

    public init(_ message: String, details: [String] = [], exitCode: Int32 = ToolError.failureExitCode) {
        self.message = message
        self.details = details
        self.exitCode = exitCode
    }

    public var description: String { ([message] + details).joined(separator: "\n") }

    /// A tool error for any error: messages of `NSError`s, predicate errors and tool errors as they are.
    public static func wrapping(_ error: any Error, context: String? = nil) -> ToolError {
        if let error = error as? ToolError {
            guard let context else { return error }
            return ToolError("\(context): \(error.message)", details: error.details, exitCode: error.exitCode)
        }
        let text = describe(error)
        return ToolError(context.map { "\($0): \(text)" } ?? text)
    }

    /// One line for an error: the `NSError` description Core Data gave, or the error's own text.
    public static func describe(_ error: any Error) -> String {
        if let error = error as? ToolError { return error.message }
        if let error = error as? PredicateFormatError { return "\(error.message) (at offset \(error.offset))" }
        let nsError = error as NSError
        if let description = nsError.userInfo[NSLocalizedDescriptionKey] as? String, !description.isEmpty {
            return description
        }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
            return "\(nsError.domain) error \(nsError.code): \(describe(underlying))"
        }
        let text = String(describing: error)
        return text.isEmpty ? "\(nsError.domain) error \(nsError.code)" : text
    }
}
