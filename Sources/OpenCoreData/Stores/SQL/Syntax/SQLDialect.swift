import Foundation

/// What differs between SQL databases, and nothing else: how identifiers are quoted, how a bound
/// parameter is written, the type names of `CREATE TABLE`, the conflict clauses of `INSERT`,
/// paging, boolean literals, and the names of the collations and functions the predicate
/// lowering calls.
///
/// Every statement and fragment is built with a dialect: the statement builders
/// (`SQLInsert`, `SQLUpdate`, `SQLDelete`, `SQLCreateTable`, `SQLCreateIndex`, `SQLSelect`) and
/// the lowering (`SQLTranslationState.dialect`) ask it for each dialect-specific piece of text,
/// so a second database plugs in as a second conforming type (docs/SQLLayer.md).
package protocol SQLDialect: Sendable {
    /// The character that opens and closes a quoted identifier (`"` in standard SQL).
    var identifierQuote: Character { get }
    /// Keywords that must be quoted when used as identifiers (upper case).
    var reservedWords: Set<String> { get }
    /// The marker of the bound parameter at a 1-based position in a finished statement
    /// (`SQLFragment.sql(in:)`): `?` in SQLite, `$1`, `$2`, … in PostgreSQL.
    func parameterMarker(at position: Int) -> String
    /// Whether markers are numbered; when false every marker is `?`, the placeholder fragments
    /// are built with, and finishing a statement keeps its text as it is.
    var numbersParameters: Bool { get }

    /// The declared type of a column.
    func typeName(of type: SQLColumnType, length: Int?) -> String
    /// The literal of a boolean constant.
    func booleanLiteral(_ value: Bool) -> String
    /// The clause that pages a SELECT (empty when there is no limit and no offset).
    func pagingClause(limit: Int, offset: Int) -> SQLFragment
    /// `INSERT INTO`, or its spelling that ignores or replaces a conflicting row.
    func insertVerb(_ conflict: SQLConflictResolution) -> String
    /// The clause after `VALUES (…)` that resolves a conflict (empty when the verb already does).
    func conflictClause(_ conflict: SQLConflictResolution) -> String
    /// The larger of two values (`MAX(a, b)` in SQLite, `GREATEST(a, b)` elsewhere).
    func greatest(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment
    /// A bound value, with whatever the driver needs to keep it exact (an empty BLOB is not
    /// NULL, text with U+0000 keeps every byte).
    func parameter(_ value: SQLValue) -> SQLFragment
    /// Whether `parameter(value)` is the bare marker bound to the value (lists of such values,
    /// such as the keys of a `Z_PK IN (…)` read, are then built in one step).
    func bindsPlainly(_ value: SQLValue) -> Bool

    /// The name of a collation (`COLLATE <name>`).
    func collationName(_ collation: SQLCollation) -> String
    /// A call of one of the functions that evaluate predicates as memory does.
    func call(_ function: SQLFunction, _ arguments: [SQLFragment]) -> SQLFragment
    /// Whether the database can evaluate an `NSExpression` builtin function (by selector and arity) exactly.
    func evaluatesBuiltin(_ selector: String, arity: Int) -> Bool
    /// Null-safe equality: true when both are NULL or both equal, never NULL.
    func isNotDistinct(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment
    /// Null-safe inequality: the negation of `isNotDistinct`.
    func isDistinct(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment
    /// `x IS NOT TRUE` for a condition that may be NULL: true when it is false or NULL.
    func isNotTrue(_ condition: SQLFragment) -> SQLFragment
    /// A number as a floating-point value, for division.
    func castToReal(_ value: SQLFragment) -> SQLFragment
    /// The sum of a column as a floating-point value, 0.0 over no rows.
    func total(_ value: SQLFragment) -> SQLFragment
    /// Whether plain `=` against this value gives exactly Swift's `==` (else the compare collation is used).
    func plainEqualityMatchesMemory(_ value: SQLValue) -> Bool
}

// MARK: - Identifiers: the one place that quotes them

extension SQLDialect {
    /// The identifier as written in SQL: bare when it is a plain name (as Apple writes its
    /// schema), quoted otherwise, with embedded quote characters doubled.
    ///
    /// Not a protocol requirement: every dialect quotes through this one function, with its own
    /// quote character and keywords.
    package func quote(_ name: String) -> String {
        if isPlain(name) { return name }
        let quote = String(identifierQuote)
        return quote + name.replacingOccurrences(of: quote, with: quote + quote) + quote
    }

    /// A string constant written into SQL text, quotes doubled. Only for statements that
    /// cannot bind parameters, such as trigger bodies in DDL; everything else binds values.
    package func stringLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A quoted identifier (table, column, index or alias name).
    package func identifier(_ name: String) -> SQLFragment {
        SQLFragment(quote(name))
    }

    /// A qualified column reference, `alias.column`.
    package func column(_ name: String, of alias: String) -> SQLFragment {
        SQLFragment(quote(alias) + "." + quote(name))
    }

    /// `column = <parameter>`, for the conditions of statements whose values are bound later.
    package func equalsParameter(_ column: String) -> SQLFragment {
        SQLFragment(quote(column) + " = " + SQLFragment.placeholder)
    }

    /// A parenthesised list of bound values, `(?, ?, ?)`.
    package func parameterList(_ values: [SQLValue]) -> SQLFragment {
        if values.allSatisfy(bindsPlainly) {
            return SQLFragment("(" + Array(repeating: SQLFragment.placeholder, count: values.count).joined(separator: ", ") + ")", arguments: values)
        }
        var list = SQLFragment("(")
        for (offset, value) in values.enumerated() {
            if offset > 0 { list.append(", ") }
            list.append(parameter(value))
        }
        list.append(")")
        return list
    }

    /// `expression COLLATE name`.
    package func collate(_ expression: SQLFragment, _ collation: SQLCollation) -> SQLFragment {
        expression + " COLLATE " + collationName(collation)
    }

    /// A boolean constant as a fragment.
    package func boolean(_ value: Bool) -> SQLFragment {
        SQLFragment(booleanLiteral(value))
    }

    private func isPlain(_ name: String) -> Bool {
        guard let first = name.utf8.first, !Self.isDigit(first) else { return false }
        for byte in name.utf8 where !Self.isLetter(byte) && !Self.isDigit(byte) && byte != UInt8(ascii: "_") {
            return false
        }
        return !reservedWords.contains(name.uppercased())
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

// MARK: - Shared vocabulary

/// SQL keywords that cannot be bare identifiers in standard SQL (Apple's Z-prefixed names never are).
package let standardSQLReservedWords: Set<String> = [
    "ABORT", "ALL", "AND", "AS", "ASC", "BETWEEN", "BY", "CASE", "CHECK", "COLLATE", "COLUMN", "CONSTRAINT",
    "CREATE", "DEFAULT", "DELETE", "DESC", "DISTINCT", "DROP", "ELSE", "END", "ESCAPE", "EXCEPT", "EXISTS",
    "FOREIGN", "FROM", "GROUP", "HAVING", "IN", "INDEX", "INSERT", "INTERSECT", "INTO", "IS", "ISNULL", "JOIN",
    "LEFT", "LIKE", "LIMIT", "NOT", "NOTNULL", "NULL", "OFFSET", "ON", "OR", "ORDER", "PRIMARY", "REFERENCES",
    "SELECT", "SET", "TABLE", "THEN", "TO", "TRANSACTION", "UNION", "UNIQUE", "UPDATE", "USING", "VALUES",
    "WHEN", "WHERE", "WITH",
]

/// How an INSERT treats a row whose key is already there.
package enum SQLConflictResolution: Equatable, Sendable {
    /// The statement fails.
    case abort
    /// The new row is dropped.
    case ignore
    /// The existing row (found by `key`) gets the new values of `update`.
    case upsert(key: [String], update: [String])
}

/// The collations the stores use, named by what they compare; the dialect names them.
package enum SQLCollation: Equatable, Sendable {
    /// Bytewise order (used by Apple's uniqueness and fetch indexes).
    case binary
    /// Swift's `String` order, `compare:`'s order for strings.
    case compare
    /// The order of a sort selector (`caseInsensitiveCompare:`, `localizedCompare:`, …).
    case sortSelector(String)
}

/// The functions the predicate lowering calls so that SQL evaluates exactly as memory does.
package enum SQLFunction: Equatable, Sendable {
    /// `[c]`/`[d]` folding of text (text, options).
    case fold
    /// `BEGINSWITH` (subject, prefix, options) → 0 or 1.
    case beginsWith
    /// `ENDSWITH` (subject, suffix, options) → 0 or 1.
    case endsWith
    /// Substring `CONTAINS` (string, substring, options) → 0 or 1.
    case contains
    /// `LIKE` with memory's wildcards (subject, pattern, options) → 0 or 1.
    case like
    /// `MATCHES` (subject, pattern, options) → 0 or 1.
    case matches
    /// The UTF-16 length of text, as `NSString.length`.
    case utf16Length
    /// A Double in [0, 1), drawn per row.
    case random
    /// `CAST(x, 'NSString')` of an integer.
    case integerString
    /// A float attribute's value as memory sees it.
    case float
    /// An `NSExpression` builtin by selector (`abs:`, `raise:toPower:`, …).
    case builtin(String)
}
