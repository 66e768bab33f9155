import Foundation

/// How to compute one property of a destination instance during a migration.
///
/// The value expression is evaluated with the variables `$source`, `$destination`, `$manager`,
/// `$entityMapping`, `$propertyMapping` and `$entityPolicy` (see `NSMigrationSourceObjectKey`
/// and its siblings), for example `$source.title` or
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson", $source.owner)`.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspropertymapping>.
open class NSPropertyMapping: NSObject {
    /// The name of the property in the destination entity.
    open var name: String?

    /// The expression whose value the destination property gets; nil leaves the property unset.
    open var valueExpression: NSExpression?

    /// The user info of the property mapping.
    open var userInfo: [AnyHashable: Any]?

    /// Creates an empty property mapping.
    public override init() {
        super.init()
    }

    /// `name = valueExpression`, for logs and the command-line tool.
    open override var description: String {
        "\(name ?? "<unnamed>") = \(valueExpression.map { $0.description } ?? "nil")"
    }
}
