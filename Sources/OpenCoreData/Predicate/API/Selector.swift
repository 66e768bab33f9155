import Foundation

#if !canImport(ObjectiveC)

// MARK: - Selector

/// The name of a comparison method, standing in for Objective-C's `Selector` on Linux.
///
/// Linux has no Objective-C runtime and Foundation there defines no `Selector`, so
/// `#selector(NSString.caseInsensitiveCompare(_:))` cannot be written. Use the static members
/// or the selector's name instead:
///
/// ```swift
/// NSSortDescriptor(key: "title", ascending: true, selector: .caseInsensitiveCompare)
/// NSSortDescriptor(key: "title", ascending: true, selector: Selector("localizedStandardCompare:"))
/// ```
///
/// Only the comparison selectors below have an effect; any other name compares with `compare:`.
public struct Selector: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The selector's name, such as `"caseInsensitiveCompare:"`.
    public let name: String

    /// Creates a selector from its name, as `Selector("compare:")` does on Apple platforms.
    public init(_ name: String) {
        self.name = name
    }

    /// Creates a selector from a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The selector's name.
    public var description: String { name }

    /// `compare:`: numbers by value, strings literally, dates chronologically.
    public static let compare = Selector("compare:")
    /// `caseInsensitiveCompare:`.
    public static let caseInsensitiveCompare = Selector("caseInsensitiveCompare:")
    /// `localizedCompare:`: locale-aware string comparison.
    public static let localizedCompare = Selector("localizedCompare:")
    /// `localizedCaseInsensitiveCompare:`.
    public static let localizedCaseInsensitiveCompare = Selector("localizedCaseInsensitiveCompare:")
    /// `localizedStandardCompare:`: Finder-like ordering (case-insensitive, numbers by value).
    public static let localizedStandardCompare = Selector("localizedStandardCompare:")
}

#endif

// MARK: - Selector names

extension NSSortDescriptor {
    /// The name of a selector on any platform.
    package static func selectorName(_ selector: Selector) -> String {
        #if canImport(ObjectiveC)
        NSStringFromSelector(selector)
        #else
        selector.name
        #endif
    }
}
