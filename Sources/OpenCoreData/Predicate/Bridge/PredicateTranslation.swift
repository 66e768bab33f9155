import Foundation

// MARK: - PredicateTranslationError

/// A `#Predicate` that cannot be expressed as an `NSPredicate`.
///
/// `nodeType` names the `PredicateExpressions` node (or captured value type) that stopped
/// the translation, such as `TypeCheck<Variable<Todo>, Chore>`.
public struct PredicateTranslationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The type of the node that could not be translated.
    public let nodeType: String
    /// Why it could not be translated.
    public let message: String

    /// Creates an error.
    public init(nodeType: String, message: String) {
        self.nodeType = nodeType
        self.message = message
    }

    /// The node type and the message.
    public var description: String {
        "\(nodeType): \(message)"
    }

    static func unsupported(_ node: Any) -> PredicateTranslationError {
        PredicateTranslationError(
            nodeType: String(describing: type(of: node)),
            message: "this predicate expression has no NSPredicate equivalent")
    }
}

// MARK: - NSPredicate entry points

extension NSPredicate {
    /// Translates a Swift `#Predicate` into an `NSPredicate`, throwing when a node has no equivalent.
    ///
    /// ```swift
    /// let predicate = try NSPredicate.translate(#Predicate<Todo> { $0.title.contains("milk") })
    /// predicate.predicateFormat // title CONTAINS "milk"
    /// ```
    /// - Throws: `PredicateTranslationError` naming the unsupported node.
    public static func translate<Input>(_ predicate: Predicate<Input>) throws(PredicateTranslationError) -> NSPredicate {
        var state = PredicateTranslation()
        state.bindings[predicate.variable.key] = .evaluatedObject
        return make(try state.predicate(predicate.expression))
    }
}

extension _PredicateFormatInitializing where Self: NSPredicate {
    /// Creates a predicate by converting a Swift `#Predicate`; `nil` if a node has no equivalent.
    ///
    /// Mirrors Apple's `init?(_:)` (which requires `Input: NSObject`; any input type works here).
    /// Use `NSPredicate.translate(_:)` to learn which node failed.
    public init?<Input>(_ predicate: Predicate<Input>) {
        guard let translated = try? NSPredicate.translate(predicate), let typed = translated as? Self else { return nil }
        self = typed
    }
}

// MARK: - NSPredicateTranslatable

/// One `PredicateExpressions` node that knows its `NSPredicate` equivalent.
///
/// Every supported node conforms; translation walks the tree through this single protocol,
/// with the shared state passed `inout`. A node that does not conform stops the walk with a
/// `PredicateTranslationError` naming its type.
package protocol NSPredicateTranslatable {
    /// This node's equivalent, translating children through `state`.
    func translate(_ state: inout PredicateTranslation) throws(PredicateTranslationError) -> TranslatedTerm
}

/// A translated node: a value-producing expression or a Boolean predicate.
package enum TranslatedTerm {
    case expression(ExpressionNode)
    case predicate(PredicateNode)

    /// The term as an expression (a predicate becomes `TERNARY(p, 1, 0)`).
    package var expression: ExpressionNode {
        switch self {
        case .expression(let expression): expression
        case .predicate(let predicate): .conditional(predicate, .constant(true), .constant(false))
        }
    }

    /// The term as a predicate (a Boolean expression `e` becomes `e == 1`).
    package var predicate: PredicateNode {
        switch self {
        case .predicate(let predicate): predicate
        case .expression(.constant(let value as Bool)): .constant(value)
        case .expression(let expression):
            .comparison(ComparisonNode(left: expression, right: .constant(true), operatorType: .equalTo))
        }
    }

    /// Whether the term is Boolean (a predicate or a `Bool` constant).
    package var isBoolean: Bool {
        switch self {
        case .predicate, .expression(.constant(_ as Bool)): true
        case .expression: false
        }
    }
}

// MARK: - PredicateTranslation

/// The state of one translation: what each `Variable` stands for, and fresh `$` names.
package struct PredicateTranslation {
    /// The expression each Swift predicate variable stands for (`SELF`, a `$x`, or an optional's value).
    package var bindings: [PredicateExpressions.VariableID: ExpressionNode] = [:]
    private var variableCount = 0

    package init() {}

    /// Translates any child node.
    package mutating func translate(_ node: Any) throws(PredicateTranslationError) -> TranslatedTerm {
        guard let translatable = node as? any NSPredicateTranslatable else { throw .unsupported(node) }
        return try translatable.translate(&self)
    }

    /// Translates a child that must produce a value.
    package mutating func expression(_ node: Any) throws(PredicateTranslationError) -> ExpressionNode {
        try translate(node).expression
    }

    /// Translates a child that must produce a Boolean.
    package mutating func predicate(_ node: Any) throws(PredicateTranslationError) -> PredicateNode {
        try translate(node).predicate
    }

    /// A fresh subquery variable name: `x`, `x2`, `x3`, …
    package mutating func makeVariableName() -> String {
        variableCount += 1
        return variableCount == 1 ? "x" : "x\(variableCount)"
    }

    /// Translates `body` with `variable` bound to `expression`, restoring the previous binding after.
    package mutating func with<T>(
        _ variable: PredicateExpressions.VariableID, boundTo expression: ExpressionNode,
        _ body: (inout PredicateTranslation) throws(PredicateTranslationError) -> T
    ) throws(PredicateTranslationError) -> T {
        let saved = bindings[variable]
        bindings[variable] = expression
        defer { bindings[variable] = saved }
        return try body(&self)
    }
}

// MARK: - CustomNSError

extension PredicateTranslationError: CustomNSError {
    /// `NSCocoaErrorDomain`, as every error OpenCoreData throws.
    public static var errorDomain: String { NSCocoaErrorDomain }

    /// `NSFormattingError` (2048): the predicate has no format-string form.
    public var errorCode: Int { CocoaError.formatting.rawValue }

    /// The node type and the message, under `NSDebugDescriptionErrorKey` and `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] {
        [NSDebugDescriptionErrorKey: description, NSLocalizedDescriptionKey: description]
    }
}
