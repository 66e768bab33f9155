import Foundation

// MARK: - NSComparisonPredicate

/// A predicate that compares two expressions with an operator.
///
/// Mirrors <https://developer.apple.com/documentation/foundation/nscomparisonpredicate>.
///
/// ```swift
/// let predicate = NSComparisonPredicate(
///     leftExpression: NSExpression(forKeyPath: "age"),
///     rightExpression: NSExpression(forConstantValue: 21),
///     modifier: .direct, type: .greaterThanOrEqualTo)
/// ```
///
/// `@unchecked Sendable` is inherited from `NSPredicate`: immutable after initialization.
open class NSComparisonPredicate: NSPredicate, @unchecked Sendable {
    /// Wraps an internal comparison tree.
    package override init(node: PredicateNode) {
        super.init(node: node)
    }

    /// Creates a comparison of two expressions.
    public convenience init(
        leftExpression lhs: NSExpression,
        rightExpression rhs: NSExpression,
        modifier: NSComparisonPredicate.Modifier,
        type: NSComparisonPredicate.Operator,
        options: NSComparisonPredicate.Options = []
    ) {
        self.init(node: .comparison(ComparisonNode(
            left: lhs.node, right: rhs.node, operatorType: type, modifier: modifier, options: options)))
    }

    /// Creates a comparison that calls a selector; it parses and prints but cannot evaluate on Linux.
    public convenience init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, customSelector selector: Selector) {
        self.init(node: .comparison(ComparisonNode(
            left: lhs.node, right: rhs.node, operatorType: .customSelector,
            customSelector: NSSortDescriptor.selectorName(selector))))
    }

    // MARK: - Accessors

    private var comparison: ComparisonNode {
        guard case .comparison(let comparison) = node else {
            preconditionFailure("NSComparisonPredicate wraps a non-comparison node")
        }
        return comparison
    }

    /// The operator (`==`, `<`, `CONTAINS`, …).
    open var predicateOperatorType: NSComparisonPredicate.Operator { comparison.operatorType }

    /// `ANY`, `ALL` or neither.
    open var comparisonPredicateModifier: NSComparisonPredicate.Modifier { comparison.modifier }

    /// The left-hand expression.
    open var leftExpression: NSExpression { NSExpression(node: comparison.left) }

    /// The right-hand expression.
    open var rightExpression: NSExpression { NSExpression(node: comparison.right) }

    /// The string options (`[c]`, `[d]`, `[n]`).
    open var options: NSComparisonPredicate.Options { comparison.options }

    /// The selector of a custom-selector comparison, or `nil`.
    open var customSelector: Selector? {
        comparison.customSelector.map { Selector($0) }
    }
}

// MARK: - Operator, Modifier, Options

extension NSComparisonPredicate {
    /// Comparison operators; raw values match Apple's `NSPredicateOperatorType`.
    ///
    /// An enum, not a growable struct, because it mirrors a fixed Apple type case for case.
    public enum Operator: UInt, Sendable {
        /// `<`
        case lessThan = 0
        /// `<=`
        case lessThanOrEqualTo = 1
        /// `>`
        case greaterThan = 2
        /// `>=`
        case greaterThanOrEqualTo = 3
        /// `==`
        case equalTo = 4
        /// `!=`
        case notEqualTo = 5
        /// `MATCHES` (regular expression, whole string).
        case matches = 6
        /// `LIKE` (`*` and `?` wildcards).
        case like = 7
        /// `BEGINSWITH`
        case beginsWith = 8
        /// `ENDSWITH`
        case endsWith = 9
        /// `IN`
        case `in` = 10
        /// A comparison that calls a custom selector.
        case customSelector = 11
        /// `CONTAINS`
        case contains = 99
        /// `BETWEEN`
        case between = 100
    }

    /// Aggregate modifiers; raw values match Apple's `NSComparisonPredicateModifier`.
    public enum Modifier: UInt, Sendable {
        /// A plain comparison.
        case direct = 0
        /// `ALL`: every element of the left-hand collection must match.
        case all = 1
        /// `ANY`/`SOME`: at least one element must match.
        case any = 2
    }

    /// String comparison options; raw values match Apple's `NSComparisonPredicate.Options`.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bit mask.
        public let rawValue: UInt

        /// Creates options from a raw bit mask.
        public init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        /// `[c]`: case-insensitive.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritic-insensitive.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already normalized; compare them literally.
        public static let normalized = Options(rawValue: 4)
    }
}
