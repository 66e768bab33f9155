import Foundation

// MARK: - Throwing parser entry points

extension NSPredicate {
    /// Parses a predicate format string, throwing instead of stopping on malformed input.
    ///
    /// Use this for format strings that come from outside the program (user input, files).
    /// The result is an `NSComparisonPredicate`, an `NSCompoundPredicate` or a plain
    /// `NSPredicate` (`TRUEPREDICATE`), as with Apple's class cluster.
    ///
    /// ```swift
    /// let predicate = try NSPredicate.parse(format: "age > %d", arguments: [21])
    /// ```
    /// - Parameters:
    ///   - format: The format string; see `docs/Predicates.md` for the grammar.
    ///   - arguments: Values for `%@`, `%K`, `%d`, … in order of appearance.
    /// - Throws: `PredicateFormatError` with the character offset and a message.
    /// - Complexity: O(*n*) in the length of `format`.
    public static func parse(
        format: String, arguments: [Any] = []
    ) throws(PredicateFormatError) -> NSPredicate {
        var parser = try PredicateParser(format: format, arguments: arguments)
        return make(try parser.parsePredicateToEnd())
    }

    /// Parses a predicate format string with variadic arguments; see `parse(format:arguments:)`.
    public static func parse(format: String, _ arguments: Any...) throws(PredicateFormatError) -> NSPredicate {
        try parse(format: format, arguments: arguments)
    }
}

// MARK: - PredicateFormatInitializing

/// Lets `NSPredicate(format:)` return the matching subclass, as Apple's class cluster does.
///
/// Implementation detail of `NSPredicate`; do not conform other types.
public protocol _PredicateFormatInitializing {}

extension NSPredicate: _PredicateFormatInitializing {}

extension _PredicateFormatInitializing where Self: NSPredicate {
    /// Creates a predicate by parsing a format string with arguments (Apple's `init(format:_:)`).
    ///
    /// On Apple platforms the arguments are `CVarArg`; on Linux most Foundation types are not
    /// `CVarArg`, so any value is accepted (`Date`, `UUID`, arrays, `NSNumber`, …).
    /// A malformed format string is a programmer error and stops the program with a message
    /// naming the position, as Apple raises; use `NSPredicate.parse(format:arguments:)` for
    /// strings that come from outside.
    public init(format predicateFormat: String, _ args: Any...) {
        self.init(format: predicateFormat, argumentArray: args)
    }

    /// Creates a predicate by parsing a format string with an array of arguments.
    ///
    /// Stops with a message on a malformed format string; see `init(format:_:)`.
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        let predicate: NSPredicate
        do {
            predicate = try NSPredicate.parse(format: predicateFormat, arguments: arguments ?? [])
        } catch {
            fatalError("Unable to parse the format string \"\(predicateFormat)\": \(error)")
        }
        guard let typed = predicate as? Self else {
            fatalError("The format string \"\(predicateFormat)\" makes a \(type(of: predicate)), not a \(Self.self)")
        }
        self = typed
    }
}
