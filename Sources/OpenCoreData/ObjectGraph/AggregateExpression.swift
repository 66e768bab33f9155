import Foundation

/// Reads an aggregate function expression (`count:(price)`) into its function name and key path.
enum AggregateExpression {
    /// Until the predicate engine's `NSExpression` lands, no expression is recognised and
    /// dictionary fetches with expression descriptions throw a clear error.
    static func parse(_ expression: NSExpression) -> (function: String, keyPath: String)? {
        nil
    }
}
