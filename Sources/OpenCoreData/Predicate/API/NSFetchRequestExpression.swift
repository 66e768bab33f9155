import Foundation

/// The expression type of an `NSFetchRequestExpression` (50).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchrequestexpressiontype>.
public let NSFetchRequestExpressionType = NSExpression.ExpressionType.fetchRequest

// MARK: - NSFetchRequestExpression

/// An expression that evaluates to the result of a fetch request run in a managed object context.
///
/// Its format is `FETCH(request, context, countOnly)`. Mapping models use one as each entity
/// mapping's source expression:
/// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)`.
/// Evaluated in memory, it fetches when its operands evaluate to an
/// `NSFetchRequest<NSFetchRequestResult>` and an `NSManagedObjectContext`, and is nil otherwise;
/// it is never lowered to SQL.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchrequestexpression>.
///
/// `@unchecked Sendable`: inherited from `NSExpression`; this subclass adds no stored state.
open class NSFetchRequestExpression: NSExpression, @unchecked Sendable {
    /// Wraps a `.fetchRequest` tree.
    package override init(node: ExpressionNode) {
        super.init(node: node)
    }

    /// Returns an expression that evaluates to the result of running a fetch request in a context.
    ///
    /// - Parameters:
    ///   - fetch: An expression that evaluates to an `NSFetchRequest`.
    ///   - context: An expression that evaluates to an `NSManagedObjectContext`.
    ///   - countFlag: Whether evaluation returns the count of matching objects instead of the objects.
    open class func expression(forFetch fetch: NSExpression, context: NSExpression, countOnly countFlag: Bool) -> NSExpression {
        NSFetchRequestExpression(node: .fetchRequest(fetch.node, context.node, countOnly: countFlag))
    }

    /// The expression that evaluates to the fetch request.
    open var requestExpression: NSExpression {
        guard case .fetchRequest(let request, _, _) = node else { return NSExpression(node: .constant(nil)) }
        return NSExpression(node: request)
    }

    /// The expression that evaluates to the managed object context.
    open var contextExpression: NSExpression {
        guard case .fetchRequest(_, let context, _) = node else { return NSExpression(node: .constant(nil)) }
        return NSExpression(node: context)
    }

    /// Whether evaluation counts the matching objects rather than fetching them.
    open var isCountOnlyRequest: Bool {
        guard case .fetchRequest(_, _, let countOnly) = node else { return false }
        return countOnly
    }
}
