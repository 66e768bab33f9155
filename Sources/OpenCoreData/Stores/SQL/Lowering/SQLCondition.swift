import Foundation

// MARK: - SQLCondition

/// A lowered predicate, kept as a small tree so `NOT` can be pushed down to the leaves.
///
/// In memory a predicate is true or false; in SQL a comparison with NULL is NULL, and `NOT NULL`
/// is NULL again, so `NOT (x == 1)` would drop the rows where `x` is NULL that memory keeps.
/// A leaf that may be NULL is therefore negated as `(leaf) IS NOT TRUE` (the dialect spells it) unless it knows an exact
/// negated form (`x IS NOT ?` for `x = ?`); AND and OR are negated with De Morgan's laws, which
/// hold because every negated leaf is true or false. Positive NULLs are harmless: WHERE, CASE
/// WHEN, AND and OR all treat NULL like false there.
package indirect enum SQLCondition {
    case constant(Bool)
    case atom(Atom)
    case and([SQLCondition])
    case or([SQLCondition])

    /// One SQL boolean expression.
    package struct Atom {
        package var sql: SQLFragment
        /// Whether it can evaluate to NULL.
        package var isNullable: Bool
        /// An exact negation, when one reads better than the generic form.
        package var negated: SQLFragment?
        package var negatedIsNullable: Bool
    }

    /// A leaf condition.
    package static func sql(_ sql: SQLFragment, nullable: Bool, negated: SQLFragment? = nil, negatedNullable: Bool = false) -> SQLCondition {
        .atom(Atom(sql: sql, isNullable: nullable, negated: negated, negatedIsNullable: negatedNullable))
    }

    /// `AND` of the conditions, with constants folded.
    package static func all(_ conditions: [SQLCondition]) -> SQLCondition {
        var kept: [SQLCondition] = []
        for condition in conditions {
            switch condition {
            case .constant(true): continue
            case .constant(false): return .constant(false)
            case .and(let inner): kept += inner
            default: kept.append(condition)
            }
        }
        if kept.isEmpty { return .constant(true) }
        return kept.count == 1 ? kept[0] : .and(kept)
    }

    /// `OR` of the conditions, with constants folded.
    package static func any(_ conditions: [SQLCondition]) -> SQLCondition {
        var kept: [SQLCondition] = []
        for condition in conditions {
            switch condition {
            case .constant(false): continue
            case .constant(true): return .constant(true)
            case .or(let inner): kept += inner
            default: kept.append(condition)
            }
        }
        if kept.isEmpty { return .constant(false) }
        return kept.count == 1 ? kept[0] : .or(kept)
    }

    /// The two-valued negation (`IS NOT TRUE` spelled by the dialect).
    package func negated(in dialect: any SQLDialect) -> SQLCondition {
        switch self {
        case .constant(let value):
            return .constant(!value)
        case .and(let children):
            return .any(children.map { $0.negated(in: dialect) })
        case .or(let children):
            return .all(children.map { $0.negated(in: dialect) })
        case .atom(let atom):
            if let negated = atom.negated {
                return .sql(negated, nullable: atom.negatedIsNullable, negated: atom.sql, negatedNullable: atom.isNullable)
            }
            if atom.isNullable {
                return .sql(dialect.isNotTrue(atom.sql), nullable: false, negated: atom.sql, negatedNullable: true)
            }
            return .sql("NOT (" + atom.sql + ")", nullable: false, negated: atom.sql, negatedNullable: false)
        }
    }

    /// Whether the condition can evaluate to NULL.
    package var isNullable: Bool {
        switch self {
        case .constant: false
        case .atom(let atom): atom.isNullable
        case .and(let children), .or(let children): children.contains(where: \.isNullable)
        }
    }

    /// The SQL text.
    package func fragment(in dialect: any SQLDialect) -> SQLFragment {
        switch self {
        case .constant(let value):
            return dialect.boolean(value)
        case .atom(let atom):
            return atom.sql
        case .and(let children):
            return Self.balanced(children.map { $0.parenthesized(in: dialect) }[...], separator: " AND ")
        case .or(let children):
            return Self.balanced(children.map { $0.parenthesized(in: dialect) }[...], separator: " OR ")
        }
    }

    /// How many operands one `AND`/`OR` run may have before it is split into groups.
    private static let runLimit = 64

    /// The operands joined by `separator`; a long run is split into parenthesized halves,
    /// because SQLite parses `a AND b AND c …` into a tree as deep as the run and refuses
    /// trees deeper than 1000. Halving keeps the depth logarithmic and the text linear × log.
    private static func balanced(_ parts: ArraySlice<SQLFragment>, separator: String) -> SQLFragment {
        guard parts.count > runLimit else { return Array(parts).joined(separator: separator) }
        let middle = parts.startIndex + parts.count / 2
        return "(" + balanced(parts[..<middle], separator: separator) + ")" + separator
            + "(" + balanced(parts[middle...], separator: separator) + ")"
    }

    /// The SQL text, in parentheses when it is a compound.
    private func parenthesized(in dialect: any SQLDialect) -> SQLFragment {
        switch self {
        case .and, .or: "(" + fragment(in: dialect) + ")"
        case .constant, .atom: fragment(in: dialect)
        }
    }
}
