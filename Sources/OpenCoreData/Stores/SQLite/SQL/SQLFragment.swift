import Foundation
import GRDB

/// A piece of SQL text and the values bound to its `?` placeholders.
///
/// Values never enter the text: every value is a bound argument, and identifiers go through
/// `SQLIdentifier.quote(_:)`, the one place that quotes them. Predicate lowering appends
/// fragments the same way.
package struct SQLFragment: Equatable, CustomStringConvertible {
    /// The SQL text, with one `?` per argument.
    package private(set) var text: String
    /// The bound values, in placeholder order.
    package private(set) var arguments: [DatabaseValue]

    package init(_ text: String = "", arguments: [DatabaseValue] = []) {
        self.text = text
        self.arguments = arguments
    }

    /// A quoted identifier (table, column, index or alias name).
    package static func identifier(_ name: String) -> SQLFragment {
        SQLFragment(SQLIdentifier.quote(name))
    }

    /// A qualified column reference, `alias.column`.
    package static func column(_ name: String, of alias: String) -> SQLFragment {
        SQLFragment(SQLIdentifier.quote(alias) + "." + SQLIdentifier.quote(name))
    }

    /// One bound value.
    package static func parameter(_ value: DatabaseValue) -> SQLFragment {
        if let bytes = textWithNUL(value) { return SQLFragment("CAST(? AS TEXT)", arguments: [bytes]) }
        return SQLFragment("?", arguments: [value])
    }

    /// A parenthesised list of bound values, `(?, ?, ?)`.
    package static func parameterList(_ values: [DatabaseValue]) -> SQLFragment {
        if values.contains(where: { textWithNUL($0) != nil }) {
            var list = SQLFragment("(")
            for (offset, value) in values.enumerated() {
                if offset > 0 { list.append(SQLFragment(", ")) }
                list.append(parameter(value))
            }
            list.append(SQLFragment(")"))
            return list
        }
        return SQLFragment("(" + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")", arguments: values)
    }

    /// GRDB binds text as a C string, which ends at the first U+0000; such text is bound as its
    /// UTF-8 bytes and cast back to TEXT in SQL, which keeps every byte (as the store saves it).
    private static func textWithNUL(_ value: DatabaseValue) -> DatabaseValue? {
        guard case .string(let string) = value.storage, string.utf8.contains(0) else { return nil }
        return Data(string.utf8).databaseValue
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

    package var statementArguments: StatementArguments { StatementArguments(arguments) }

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

/// Quotes SQL identifiers; the only place that does.
package enum SQLIdentifier {
    /// The identifier as written in SQL: bare when it is a plain name (as Apple writes its
    /// schema), double-quoted otherwise, with embedded quotes doubled.
    package static func quote(_ name: String) -> String {
        if isPlain(name) { return name }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func isPlain(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first) else { return false }
        for byte in name.utf8 where !isLetter(byte) && !isDigit(byte) && byte != UInt8(ascii: "_") {
            return false
        }
        return !reserved.contains(name.uppercased())
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// SQL keywords that cannot be bare identifiers (Apple's Z-prefixed names never are).
    private static let reserved: Set<String> = [
        "ABORT", "ALL", "AND", "AS", "ASC", "BETWEEN", "BY", "CASE", "CHECK", "COLLATE", "COLUMN", "CONSTRAINT",
        "CREATE", "DEFAULT", "DELETE", "DESC", "DISTINCT", "DROP", "ELSE", "END", "ESCAPE", "EXCEPT", "EXISTS",
        "FOREIGN", "FROM", "GROUP", "HAVING", "IN", "INDEX", "INSERT", "INTERSECT", "INTO", "IS", "ISNULL", "JOIN",
        "LEFT", "LIKE", "LIMIT", "NOT", "NOTNULL", "NULL", "OFFSET", "ON", "OR", "ORDER", "PRIMARY", "REFERENCES",
        "SELECT", "SET", "TABLE", "THEN", "TO", "TRANSACTION", "UNION", "UNIQUE", "UPDATE", "USING", "VALUES",
        "WHEN", "WHERE", "WITH",
    ]
}
