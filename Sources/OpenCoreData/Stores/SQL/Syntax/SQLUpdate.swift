import Foundation

/// `UPDATE table SET column = value, … WHERE key = ? AND …`.
///
/// A value is a bound parameter unless an expression is given; the WHERE clause compares
/// columns with bound parameters. Parameters are bound in reading order: the assignments'
/// (those of their expressions included), then the WHERE columns'.
package struct SQLUpdate: Sendable {
    /// One `column = value` of the SET clause.
    package struct Assignment: Sendable {
        package var column: String
        /// nil: one bound parameter.
        package var expression: SQLFragment?
    }

    package var table: String
    package var assignments: [Assignment]
    /// Columns each compared with a bound parameter, joined with AND.
    package var keyColumns: [String]

    package init(_ table: String, set columns: [String], where keyColumns: [String]) {
        self.table = table
        self.assignments = columns.map { Assignment(column: $0, expression: nil) }
        self.keyColumns = keyColumns
    }

    /// Adds `column = expression`.
    package mutating func set(_ column: String, to expression: SQLFragment) {
        assignments.append(Assignment(column: column, expression: expression))
    }

    /// The statement text (the expressions' own bound values are not kept: pass them in order).
    package func sql(in dialect: any SQLDialect) -> String {
        let set = assignments.map { dialect.quote($0.column) + " = " + ($0.expression?.text ?? SQLFragment.placeholder) }
        let text = "UPDATE " + dialect.quote(table) + " SET " + set.joined(separator: ", ") + SQLDelete.whereClause(keyColumns, in: dialect)
        return SQLFragment.finish(text, in: dialect)
    }
}
