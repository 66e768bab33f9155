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
}
