import Foundation

/// Reads an aggregate function expression (`count:(price)`) into its function name and key path.
enum AggregateExpression {
    /// The function name and key path of `function(keyPath)`, or nil for any other shape.
    static func parse(_ expression: NSExpression) -> (function: String, keyPath: String)? {
        guard case .function(let name, let arguments) = expression.node, arguments.count == 1,
              let keyPath = arguments[0].selfKeyPath else { return nil }
        return (name, keyPath)
    }
}
