import Foundation

/// A piece of SQL text and the values bound to its `?` placeholders.
///
/// Values never enter the text: every value is a bound argument (`SQLDialect.parameter(_:)`),
/// and identifiers go through `SQLDialect.quote(_:)`, the one place that quotes them.
/// Predicate lowering appends fragments the same way.
package struct SQLFragment: Equatable, Sendable, CustomStringConvertible {
    /// The SQL text, with one `?` per argument.
    package private(set) var text: String
    /// The bound values, in placeholder order.
    package private(set) var arguments: [SQLValue]

    package init(_ text: String = "", arguments: [SQLValue] = []) {
        self.text = text
        self.arguments = arguments
    }

    package var isEmpty: Bool { text.isEmpty }

    package mutating func append(_ other: SQLFragment) {
        text += other.text
        arguments += other.arguments
    }

    package mutating func append(_ raw: String) {
        text += raw
    }

    package static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        var result = lhs
        result.append(rhs)
        return result
    }

    package static func + (lhs: SQLFragment, rhs: String) -> SQLFragment {
        var result = lhs
        result.append(rhs)
        return result
    }

    package static func + (lhs: String, rhs: SQLFragment) -> SQLFragment {
        var result = SQLFragment(lhs)
        result.append(rhs)
        return result
    }

    package var description: String { text }
}

extension Array where Element == SQLFragment {
    /// The fragments joined with a separator.
    package func joined(separator: String) -> SQLFragment {
        var result = SQLFragment()
        for (offset, fragment) in enumerated() {
            if offset > 0 { result.append(separator) }
            result.append(fragment)
        }
        return result
    }
}
