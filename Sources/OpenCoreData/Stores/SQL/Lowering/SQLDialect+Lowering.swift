import Foundation

// MARK: - Helpers the lowering uses

extension SQLDialect {
    /// A text value with the compare collation (Swift's `String` order); other values unchanged.
    package func collatedIfText(_ scalar: SQLScalar) -> SQLFragment {
        scalar.kind.isText ? collate(scalar.sql, .compare) : scalar.sql
    }
}
