import Foundation

// MARK: - NSPredicate

/// A definition of logical conditions for constraining a fetch or for in-memory filtering.
///
/// Mirrors <https://developer.apple.com/documentation/foundation/nspredicate>. On Linux,
/// Foundation marks `NSPredicate(format:)` unavailable; this class, declared by `OpenCoreData`,
/// shadows Foundation's in client code.
///
/// ```swift
/// let predicate = NSPredicate(format: "title CONTAINS[cd] %@", "milk")
/// predicate.evaluate(with: ["title": "Buy Milk"]) // true
/// ```
///
/// `@unchecked Sendable`: immutable after initialization. Every stored property is a `let`
/// holding a value tree that is never mutated; block predicates hold `@Sendable` closures.
/// Constant values are only read, never written, by the predicate.
open class NSPredicate: NSObject, NSCopying, @unchecked Sendable {
    /// The tree this predicate was built from. Entry point for SQL lowering.
    package let node: PredicateNode

    /// Wraps an internal tree. Use `NSPredicate.make(_:)` to get the matching subclass.
    package init(node: PredicateNode) {
        self.node = node
        super.init()
    }

    /// Creates a predicate that always evaluates to `value` (`TRUEPREDICATE`/`FALSEPREDICATE`).
    public convenience init(value: Bool) {
        self.init(node: .constant(value))
    }

    /// Creates a predicate that evaluates a closure with the object and the substitution variables.
    ///
    /// Block predicates evaluate in memory only; a SQL store cannot lower them.
    public convenience init(block: @escaping @Sendable (Any?, [String: Any]?) -> Bool) {
        self.init(node: .block(PredicateBlock(block)))
    }

    /// Returns an instance of the public class matching `node`'s shape (class-cluster style).
    package static func make(_ node: PredicateNode) -> NSPredicate {
        switch node {
        case .comparison: NSComparisonPredicate(node: node)
        case .compound: NSCompoundPredicate(node: node)
        case .constant, .block: NSPredicate(node: node)
        }
    }

    // MARK: - Format

    /// The format string of the predicate; it parses back to an equal predicate.
    open var predicateFormat: String {
        PredicateFormatter.format(node)
    }

    /// The predicate's format string.
    open override var description: String {
        predicateFormat
    }

    // MARK: - Substitution

    /// Returns a copy with `$name` variables replaced by the values in `variables`.
    ///
    /// Variables missing from the dictionary stay unresolved and evaluate to `nil`.
    open func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        let substituted = node.mapExpressions { expression in
            guard case .variable(let name) = expression, let value = variables[name] else {
                return expression
            }
            if let expression = value as? NSExpression { return expression.node }
            return .constant(PredicateValue.unwrap(value))
        }
        guard let result = NSPredicate.make(substituted) as? Self else {
            preconditionFailure(
                "withSubstitutionVariables(_:) is not supported on the subclass \(type(of: self))")
        }
        return result
    }

    // MARK: - Evaluation

    /// Returns whether `object` satisfies the predicate.
    ///
    /// `object` may be a `[String: Any]`, `NSDictionary`, a collection, any value that
    /// `OpenCoreData` can read keys from (managed objects), or any Swift value (read by
    /// reflection). Type mismatches evaluate to `false` rather than raising.
    open func evaluate(with object: Any?) -> Bool {
        evaluate(with: object, substitutionVariables: nil)
    }

    /// Returns whether `object` satisfies the predicate after substituting `bindings`.
    open func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        var context = EvaluationContext(bindings: bindings ?? [:])
        return PredicateEvaluator.evaluate(node, object: PredicateValue.unwrap(object), context: &context)
    }

    /// Allows a predicate decoded from an archive to be evaluated; a no-op here.
    ///
    /// Predicates in `OpenCoreData` are never archived with keyed coding, so every
    /// predicate is always evaluable.
    open func allowEvaluation() {}

    // MARK: - Equality

    /// Structural equality: two predicates are equal when their trees are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        if other === self { return true }
        return NodeEquality.equal(node.canonical, other.node.canonical)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        NodeEquality.hash(node.canonical, into: &hasher)
        return hasher.finalize()
    }

    // MARK: - NSCopying

    /// Returns `self`: predicates are immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }
}
