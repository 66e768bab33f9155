import Foundation

/// The column rules of a `.dictionaryResultType` fetch that the context (computing rows in
/// memory) and a store (computing them in SQL) must share, so both give the same rows.
package enum DictionaryColumns {
    /// Keys that stand for the object itself; its ID is the column's value.
    package static let objectKeys: Set<String> = ["objectID", "self", "SELF"]

    /// The key path of an expression description that reads a value per object: `SELF`
    /// (the object, so its ID) or a key path; nil for functions.
    package static func plainKeyPath(_ expression: NSExpression) -> String? {
        switch expression.node {
        case .evaluatedObject: "self"
        case .keyPath(.evaluatedObject, let path): path
        default: nil
        }
    }
}
