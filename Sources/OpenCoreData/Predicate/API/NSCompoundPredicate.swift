import Foundation

// MARK: - NSCompoundPredicate

/// A predicate that combines other predicates with `AND`, `OR` or `NOT`.
///
/// Mirrors <https://developer.apple.com/documentation/foundation/nscompoundpredicate>.
/// `AND` of no predicates is true, `OR` of none is false.
///
/// `@unchecked Sendable` is inherited from `NSPredicate`: immutable after initialization.
open class NSCompoundPredicate: NSPredicate, @unchecked Sendable {
    /// Wraps an internal compound tree.
    package override init(node: PredicateNode) {
        super.init(node: node)
    }

    /// Creates a compound predicate of the given type.
    ///
    /// A `.not` predicate uses only the first subpredicate, as Apple's does.
    public convenience init(type: NSCompoundPredicate.LogicalType, subpredicates: [NSPredicate]) {
        let kind = CompoundKind(rawValue: type.rawValue) ?? .and
        var children = subpredicates.map(\.node)
        if kind == .not {
            children = Array(children.prefix(1))
            if children.isEmpty { children = [.constant(true)] }
        }
        self.init(node: .compound(kind, children))
    }

    /// Creates an `AND` of the subpredicates.
    public convenience init(andPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .and, subpredicates: subpredicates)
    }

    /// Creates an `OR` of the subpredicates.
    public convenience init(orPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .or, subpredicates: subpredicates)
    }

    /// Creates the negation of a predicate.
    public convenience init(notPredicateWithSubpredicate predicate: NSPredicate) {
        self.init(type: .not, subpredicates: [predicate])
    }

    // MARK: - Accessors

    /// `AND`, `OR` or `NOT`.
    open var compoundPredicateType: NSCompoundPredicate.LogicalType {
        guard case .compound(let kind, _) = node else { return .and }
        return LogicalType(rawValue: kind.rawValue) ?? .and
    }

    /// The combined predicates, as `NSPredicate` instances.
    open var subpredicates: [Any] {
        guard case .compound(_, let children) = node else { return [] }
        return children.map { NSPredicate.make($0) }
    }
}

// MARK: - LogicalType

extension NSCompoundPredicate {
    /// The connective of a compound predicate; raw values match Apple's.
    public enum LogicalType: UInt, Sendable {
        /// `NOT`
        case not = 0
        /// `AND`
        case and = 1
        /// `OR`
        case or = 2
    }
}
