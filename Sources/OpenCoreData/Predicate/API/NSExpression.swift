import Foundation

// MARK: - NSExpression

/// An expression for use in a comparison predicate.
///
/// Mirrors <https://developer.apple.com/documentation/foundation/nsexpression>.
///
/// ```swift
/// NSExpression(format: "4 + 5 - 2**3").expressionValue(with: nil, context: nil) // 1
/// ```
///
/// `@unchecked Sendable`: immutable after initialization. The only stored property is a `let`
/// value tree; block expressions hold `@Sendable` closures; constants are only read.
open class NSExpression: NSObject, NSCopying, @unchecked Sendable {
    /// The tree this expression was built from. Entry point for SQL lowering.
    package let node: ExpressionNode

    /// Wraps an internal tree.
    package init(node: ExpressionNode) {
        self.node = node
        super.init()
    }

    /// Creates an expression that evaluates to a constant (`nil` is `NULL`).
    public convenience init(forConstantValue obj: Any?) {
        self.init(node: .constant(PredicateValue.unwrap(obj)))
    }

    /// Creates a key-path expression such as `"location.placeName"` or `"tags.@count"`.
    public convenience init(forKeyPath keyPath: String) {
        self.init(node: KeyPathName.expression(forKeyPath: keyPath))
    }

    /// Creates a key-path expression from a Swift key path such as `\Todo.title`.
    ///
    /// The name is read from the key path's description; computed properties and subscripts
    /// have no name and stop with a message (a programmer error, as Apple's is). A `@Managed`
    /// property whose model is not loaded yet is named when a fetch runs.
    public convenience init<Root, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        guard let name = KeyPathName.name(of: keyPath) else {
            guard Root.self is any KeyPathNameProviding.Type else {
                preconditionFailure("The key path \(keyPath) has no key-value coding name")
            }
            self.init(node: LateKeyPathName(keyPath).expression(on: .evaluatedObject))
            return
        }
        self.init(forKeyPath: name)
    }

    /// Creates a `$variable` expression.
    public convenience init(forVariable string: String) {
        self.init(node: .variable(string))
    }

    /// Returns the `SELF` expression.
    open class func expressionForEvaluatedObject() -> NSExpression {
        NSExpression(node: .evaluatedObject)
    }

    /// Returns the `ANYKEY` expression (matches any key; evaluates to `nil` in memory).
    open class func expressionForAnyKey() -> NSExpression {
        NSExpression(node: .anyKey)
    }

    /// Creates a call to one of Apple's predefined functions, such as `"sum:"` or `"add:to:"`.
    ///
    /// `parameters` holds `NSExpression`s; other values become constants.
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(node: .function(name, parameters.map(NSExpression.node(from:))))
    }

    /// Creates `FUNCTION(target, 'selector', arguments…)`; on Linux it calls only receivers that are an `ExpressionFunctionTarget`, and is `nil` for any other.
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        self.init(node: .customFunction(target.node, name, (parameters ?? []).map(NSExpression.node(from:))))
    }

    /// Creates an aggregate expression `{a, b, c}`.
    public convenience init(forAggregate subexpressions: [NSExpression]) {
        self.init(node: .aggregate(subexpressions.map(\.node)))
    }

    /// Creates `left UNION right`.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(node: .set(.union, left.node, right.node))
    }

    /// Creates `left INTERSECT right`.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(node: .set(.intersect, left.node, right.node))
    }

    /// Creates `left MINUS right`.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(node: .set(.minus, left.node, right.node))
    }

    /// Creates `SUBQUERY(collection, $variable, predicate)`.
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: NSPredicate) {
        self.init(node: .subquery(expression.node, variable, predicate.node))
    }

    /// Creates `TERNARY(predicate, trueExpression, falseExpression)`.
    public convenience init(forConditional predicate: NSPredicate, trueExpression: NSExpression, falseExpression: NSExpression) {
        self.init(node: .conditional(predicate.node, trueExpression.node, falseExpression.node))
    }

    /// Creates an expression that calls a closure with the object, the evaluated arguments and the context.
    public convenience init(
        block: @escaping @Sendable (Any?, [Any], NSMutableDictionary?) -> Any,
        arguments: [NSExpression]?
    ) {
        self.init(node: .block(ExpressionBlock(block), (arguments ?? []).map(\.node)))
    }

    private static func node(from parameter: Any) -> ExpressionNode {
        if let expression = parameter as? NSExpression { return expression.node }
        return .constant(PredicateValue.unwrap(parameter))
    }

    // MARK: - Format

    /// Creates an expression by parsing a format string such as `"4 + 5"` or `"sum:(scores)"`.
    ///
    /// Stops with a message on malformed input; use `parse(format:arguments:)` for outside input.
    public convenience init(format expressionFormat: String, _ args: Any...) {
        self.init(format: expressionFormat, argumentArray: args)
    }

    /// Creates an expression by parsing a format string with an array of arguments.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        do {
            self.init(node: try NSExpression.parse(format: expressionFormat, arguments: arguments).node)
        } catch {
            fatalError("Unable to parse the expression format \"\(expressionFormat)\": \(error)")
        }
    }

    /// Parses an expression format string, throwing on malformed input.
    /// - Throws: `PredicateFormatError` with the character offset and a message.
    public static func parse(format: String, arguments: [Any] = []) throws(PredicateFormatError) -> NSExpression {
        var parser = try PredicateParser(format: format, arguments: arguments)
        return NSExpression(node: try parser.parseExpressionToEnd())
    }

    /// The expression's format string.
    open override var description: String {
        PredicateFormatter.format(node)
    }

    // MARK: - Evaluation

    /// Evaluates the expression with `object` as `SELF` and variables from `context`.
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var bindings: [String: Any] = [:]
        if let context {
            for (key, value) in context {
                if let name = key as? String { bindings[name] = value }
            }
        }
        var evaluation = EvaluationContext(bindings: bindings, mutableContext: context)
        return ExpressionEvaluator.value(of: node, object: PredicateValue.unwrap(object), context: &evaluation)
    }

    /// Allows an archived expression to be evaluated; a no-op here.
    open func allowEvaluation() {}

    // MARK: - Equality

    /// Structural equality.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSExpression else { return false }
        return other === self || NodeEquality.equal(node.canonical, other.node.canonical)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        NodeEquality.hash(node.canonical, into: &hasher)
        return hasher.finalize()
    }

    /// Returns `self`: expressions are immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }
}
