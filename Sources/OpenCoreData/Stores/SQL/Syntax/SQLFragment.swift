import Foundation

/// A piece of SQL text and the values bound to its parameter placeholders.
///
/// Values never enter the text: every value is a bound argument (`SQLDialect.parameter(_:)`),
/// and identifiers go through `SQLDialect.quote(_:)`, the one place that quotes them.
/// Predicate lowering appends fragments the same way.
///
/// A parameter is written as the placeholder `?` while fragments are put together: its position
/// is known only once the statement is finished, when `sql(in:)` gives each placeholder the
/// dialect's marker for its position (`?` for SQLite, `$1`, `$2`, … for a numbering database).
package struct SQLFragment: Equatable, Sendable, CustomStringConvertible {
    /// The text of every bound parameter while a statement is built.
    package static let placeholder = "?"
    /// One parameter whose value is bound by position when the statement runs (written
    /// statements: `SQLInsert`, `SQLUpdate`, the bookkeeping statements).
    package static let unboundParameter = SQLFragment(placeholder)

    /// The SQL text, with one placeholder per parameter (`arguments` holds the values of those
    /// bound in the fragment, in order).
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

    // MARK: - Finishing a statement

    /// The finished statement's text in a dialect: each placeholder replaced by the dialect's
    /// marker for its 1-based position. Done once per statement, never per row.
    package func sql(in dialect: any SQLDialect) -> String {
        Self.finish(text, in: dialect)
    }

    /// A statement's text with its placeholders replaced by the dialect's markers, in reading
    /// order. Placeholders are found outside quoted identifiers and string literals (a quoted
    /// name may hold a `?`); a dialect that does not number its parameters keeps the text as is.
    package static func finish(_ text: String, in dialect: any SQLDialect) -> String {
        guard dialect.numbersParameters else { return text }
        let quote = dialect.identifierQuote.asciiValue ?? UInt8(ascii: "\"")
        let marker = UInt8(ascii: "?"), apostrophe = UInt8(ascii: "'")
        let bytes = text.utf8
        var result = ""
        result.reserveCapacity(bytes.count + 8)
        var copied = bytes.startIndex
        var position = 0
        var closing: UInt8?  // the quote that ends the identifier or literal being read
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if let end = closing {
                // A doubled quote closes and reopens: the same state either way.
                if byte == end { closing = nil }
            } else if byte == quote || byte == apostrophe {
                closing = byte
            } else if byte == marker {
                position += 1
                result += text[copied..<index]
                result += dialect.parameterMarker(at: position)
                copied = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        result += text[copied...]
        return result
    }
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
