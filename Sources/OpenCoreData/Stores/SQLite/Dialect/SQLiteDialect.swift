import Foundation

/// SQLite's spelling of SQL: double-quoted identifiers, `?` parameters, Apple's declared column
/// types, `INSERT OR IGNORE`, `LIMIT ? OFFSET ?`, and the functions and collations
/// `SQLiteFunctions` registers on every connection of a store.
package struct SQLiteDialect: SQLDialect {
    package init() {}

    package var identifierQuote: Character { "\"" }
    /// SQLite's keywords (<https://www.sqlite.org/lang_keywords.html>): a name read from a store
    /// file (the `coredata` tool reads any table) is quoted when it is one. No keyword starts
    /// with Z, so Apple's table and column names stay bare.
    package var reservedWords: Set<String> { Self.keywords }

    private static let keywords: Set<String> = [
        "ABORT", "ACTION", "ADD", "AFTER", "ALL", "ALTER", "ALWAYS", "ANALYZE", "AND", "AS", "ASC", "ATTACH",
        "AUTOINCREMENT", "BEFORE", "BEGIN", "BETWEEN", "BY", "CASCADE", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN",
        "COMMIT", "CONFLICT", "CONSTRAINT", "CREATE", "CROSS", "CURRENT", "CURRENT_DATE", "CURRENT_TIME",
        "CURRENT_TIMESTAMP", "DATABASE", "DEFAULT", "DEFERRABLE", "DEFERRED", "DELETE", "DESC", "DETACH", "DISTINCT",
        "DO", "DROP", "EACH", "ELSE", "END", "ESCAPE", "EXCEPT", "EXCLUDE", "EXCLUSIVE", "EXISTS", "EXPLAIN", "FAIL",
        "FILTER", "FIRST", "FOLLOWING", "FOR", "FOREIGN", "FROM", "FULL", "GENERATED", "GLOB", "GROUP", "GROUPS",
        "HAVING", "IF", "IGNORE", "IMMEDIATE", "IN", "INDEX", "INDEXED", "INITIALLY", "INNER", "INSERT", "INSTEAD",
        "INTERSECT", "INTO", "IS", "ISNULL", "JOIN", "KEY", "LAST", "LEFT", "LIKE", "LIMIT", "MATCH", "MATERIALIZED",
        "NATURAL", "NO", "NOT", "NOTHING", "NOTNULL", "NULL", "NULLS", "OF", "OFFSET", "ON", "OR", "ORDER", "OTHERS",
        "OUTER", "OVER", "PARTITION", "PLAN", "PRAGMA", "PRECEDING", "PRIMARY", "QUERY", "RAISE", "RANGE",
        "RECURSIVE", "REFERENCES", "REGEXP", "REINDEX", "RELEASE", "RENAME", "REPLACE", "RESTRICT", "RETURNING",
        "RIGHT", "ROLLBACK", "ROW", "ROWS", "SAVEPOINT", "SELECT", "SET", "TABLE", "TEMP", "TEMPORARY", "THEN",
        "TIES", "TO", "TRANSACTION", "TRIGGER", "UNBOUNDED", "UNION", "UNIQUE", "UPDATE", "USING", "VACUUM",
        "VALUES", "VIEW", "VIRTUAL", "WHEN", "WHERE", "WINDOW", "WITH", "WITHOUT",
    ]
    /// SQLite's anonymous `?`, numbered by SQLite itself in reading order.
    package func parameterMarker(at position: Int) -> String { SQLFragment.placeholder }
    package var numbersParameters: Bool { false }

    package func typeName(of type: SQLColumnType, length: Int?) -> String {
        length.map { type.rawValue + "(\($0))" } ?? type.rawValue
    }

    package func booleanLiteral(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }

    /// `LIMIT ?` and `OFFSET ?` bound; SQLite needs a LIMIT before an OFFSET, -1 meaning none.
    package func pagingClause(limit: Int, offset: Int) -> SQLFragment {
        guard limit > 0 || offset > 0 else { return SQLFragment() }
        var clause = " LIMIT " + parameter(.integer(limit > 0 ? Int64(limit) : -1))
        if offset > 0 { clause.append(" OFFSET " + parameter(.integer(Int64(offset)))) }
        return clause
    }

    package func insertVerb(_ conflict: SQLConflictResolution) -> String {
        conflict == .ignore ? "INSERT OR IGNORE INTO" : "INSERT INTO"
    }

    package func conflictClause(_ conflict: SQLConflictResolution) -> String {
        guard case .upsert(let key, let update) = conflict else { return "" }
        let set = update.map { quote($0) + " = excluded." + quote($0) }.joined(separator: ", ")
        return "ON CONFLICT (" + key.map(quote).joined(separator: ", ") + ") DO UPDATE SET " + set
    }

    package func greatest(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment {
        "MAX(" + lhs + ", " + rhs + ")"
    }

    /// An empty BLOB binds as `zeroblob(0)`, because binding zero bytes binds NULL; GRDB binds
    /// text as a C string, which ends at the first U+0000, so such text is bound as its UTF-8
    /// bytes and cast back to TEXT in SQL, which keeps every byte (as the store saves it).
    package func parameter(_ value: SQLValue) -> SQLFragment {
        switch value {
        case .blob(let data) where data.isEmpty:
            return "zeroblob(" + SQLFragment(SQLFragment.placeholder, arguments: [.integer(0)]) + ")"
        case .text(let string) where string.utf8.contains(0):
            return SQLFragment("CAST(" + SQLFragment.placeholder + " AS TEXT)", arguments: [.blob(Data(string.utf8))])
        default:
            return SQLFragment(SQLFragment.placeholder, arguments: [value])
        }
    }

    package func bindsPlainly(_ value: SQLValue) -> Bool {
        switch value {
        case .blob(let data): !data.isEmpty
        case .text(let string): !string.utf8.contains(0)
        case .null, .integer, .real: true
        }
    }

    package func collationName(_ collation: SQLCollation) -> String {
        switch collation {
        case .binary: "BINARY"
        case .compare: SQLiteFunctions.compareCollation
        case .sortSelector(let selector): SQLiteFunctions.collation(forSelector: selector)
        }
    }

    package func call(_ function: SQLFunction, _ arguments: [SQLFragment]) -> SQLFragment {
        let name: String
        switch function {
        case .fold: name = SQLiteFunctions.Name.fold.rawValue
        case .beginsWith: name = SQLiteFunctions.Name.beginsWith.rawValue
        case .endsWith: name = SQLiteFunctions.Name.endsWith.rawValue
        case .contains: name = SQLiteFunctions.Name.contains.rawValue
        case .like: name = SQLiteFunctions.Name.like.rawValue
        case .matches: name = SQLiteFunctions.Name.matches.rawValue
        case .utf16Length: name = SQLiteFunctions.Name.utf16Length.rawValue
        case .random: name = SQLiteFunctions.Name.random.rawValue
        case .integerString: name = SQLiteFunctions.Name.integerString.rawValue
        case .float: name = SQLiteFunctions.Name.float.rawValue
        case .builtin(let selector): name = SQLiteFunctions.sqlName(ofBuiltin: selector)
        }
        return name + "(" + arguments.joined(separator: ", ") + ")"
    }

    package func evaluatesBuiltin(_ selector: String, arity: Int) -> Bool {
        SQLiteFunctions.builtinFunctions[selector] == arity
    }

    /// `a IS b`: SQLite's `IS` compares any two values null-safely.
    package func isNotDistinct(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment {
        lhs + " IS " + rhs
    }

    /// `a IS NOT b`.
    package func isDistinct(_ lhs: SQLFragment, _ rhs: SQLFragment) -> SQLFragment {
        lhs + " IS NOT " + rhs
    }

    /// `(x) IS NOT 1`: SQLite's booleans are the integers 0 and 1.
    package func isNotTrue(_ condition: SQLFragment) -> SQLFragment {
        "(" + condition + ") IS NOT 1"
    }

    package func castToReal(_ value: SQLFragment) -> SQLFragment {
        "CAST(" + value + " AS REAL)"
    }

    /// SQLite's `TOTAL`, a REAL sum that is 0.0 over no rows.
    package func total(_ value: SQLFragment) -> SQLFragment {
        "TOTAL(" + value + ")"
    }

    package func plainEqualityMatchesMemory(_ value: SQLValue) -> Bool {
        SQLiteFunctions.isBinarySafe(value)
    }
}
