import Foundation

// MARK: - PredicateFormatError

/// A malformed predicate or expression format string, or arguments that do not fit it.
///
/// ```swift
/// do {
///     _ = try NSPredicate.parse(format: "age >")
/// } catch {
///     print(error.offset, error.message) // 5 "expected an expression, found the end of the format string"
/// }
/// ```
///
/// Bridged to `NSError` in `NSCocoaErrorDomain` with code 2048 (`NSFormattingError`).
public struct PredicateFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a growable set of codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case syntax, argument, unsupported, tooDeep
        }

        private let kind: Kind

        /// The format string does not follow the grammar.
        public static let syntax = Code(kind: .syntax)
        /// A format argument is missing or has the wrong type for its specifier.
        public static let argument = Code(kind: .argument)
        /// A construct of Apple's grammar that this implementation does not support.
        public static let unsupported = Code(kind: .unsupported)
        /// Parentheses or operators are nested more deeply than the parser allows.
        public static let tooDeep = Code(kind: .tooDeep)

        /// The code's name.
        public var description: String {
            switch kind {
            case .syntax: "syntax"
            case .argument: "argument"
            case .unsupported: "unsupported"
            case .tooDeep: "tooDeep"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The offset, in `Character`s from the start of the format string, where the problem is.
    public let offset: Int
    /// A human-readable explanation.
    public let message: String
    /// The format string that failed.
    public let format: String

    /// Creates an error.
    public init(code: Code, offset: Int, message: String, format: String) {
        self.code = code
        self.offset = offset
        self.message = message
        self.format = format
    }

    /// The message, the offset and the text around it.
    public var description: String {
        let characters = Array(format)
        let start = max(0, min(offset, characters.count))
        let excerpt = String(characters[start..<min(characters.count, start + 20)])
        let near = excerpt.isEmpty ? "at the end" : "near \"\(excerpt)\""
        return "\(message) (offset \(offset), \(near))"
    }
}

// MARK: - CustomNSError

extension PredicateFormatError: CustomNSError {
    /// `NSCocoaErrorDomain`.
    public static var errorDomain: String { NSCocoaErrorDomain }

    /// `NSFormattingError` (2048).
    public var errorCode: Int { CocoaError.formatting.rawValue }

    /// The description, under `NSDebugDescriptionErrorKey` and `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] {
        [NSDebugDescriptionErrorKey: description, NSLocalizedDescriptionKey: description]
    }
}
