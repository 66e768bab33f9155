import Foundation

/// How to map the instances of one entity from a source to a destination managed object model.
///
/// An entity mapping names its entities rather than pointing to entity descriptions; the
/// version hashes say which versions of them it was made for, and
/// `NSMappingModel(from:forSourceModel:destinationModel:)` matches them against the models.
/// An add mapping has no source entity, a remove mapping no destination entity.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsentitymapping>.
open class NSEntityMapping: NSObject {
    /// The name of the entity mapping (`CarToCar`), used by
    /// `destinationInstancesForEntityMappingNamed:sourceInstances:` and `entityMappingsByName`.
    open var name: String!

    /// The kind of mapping.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType

    // MARK: - Source

    /// The name of the source entity; nil for an add mapping.
    open var sourceEntityName: String?

    /// The version hash of the source entity the mapping was made for.
    open var sourceEntityVersionHash: Data?

    /// The expression that yields the source instances to migrate, usually
    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)`.
    open var sourceExpression: NSExpression?

    // MARK: - Destination

    /// The name of the destination entity; nil for a remove mapping.
    open var destinationEntityName: String?

    /// The version hash of the destination entity the mapping was made for.
    open var destinationEntityVersionHash: Data?

    // MARK: - Property mappings

    /// The attribute mappings, in the order a migration processes them.
    open var attributeMappings: [NSPropertyMapping]?

    /// The relationship mappings, in the order a migration processes them.
    open var relationshipMappings: [NSPropertyMapping]?

    // MARK: - Policy

    /// The class name of the `NSEntityMigrationPolicy` subclass that migrates the instances
    /// (module-qualified for Swift classes); nil means `NSEntityMigrationPolicy` itself.
    open var entityMigrationPolicyClassName: String?

    /// The user info of the entity mapping.
    open var userInfo: [AnyHashable: Any]?

    /// Creates an empty entity mapping.
    public override init() {
        super.init()
    }

    /// `CarToCar (custom): Car -> Car`, for logs and the command-line tool.
    open override var description: String {
        let kind: String
        switch mappingType {
        case .undefinedEntityMappingType: kind = "undefined"
        case .customEntityMappingType: kind = "custom"
        case .addEntityMappingType: kind = "add"
        case .removeEntityMappingType: kind = "remove"
        case .copyEntityMappingType: kind = "copy"
        case .transformEntityMappingType: kind = "transform"
        }
        return "\(name ?? "<unnamed>") (\(kind)): \(sourceEntityName ?? "-") -> \(destinationEntityName ?? "-")"
    }
}
