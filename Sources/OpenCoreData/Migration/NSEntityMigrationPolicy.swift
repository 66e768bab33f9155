import Foundation

/// Migrates the instances of one entity mapping; subclass it to customise a migration.
///
/// The migration manager calls, for each entity mapping: ``begin(_:with:)``,
/// ``createDestinationInstances(forSource:in:manager:)`` for every source instance, and
/// ``endInstanceCreation(forMapping:manager:)``; once every mapping has created its instances,
/// ``createRelationships(forDestination:in:manager:)`` for every destination instance and
/// ``endRelationshipCreation(forMapping:manager:)``; then ``performCustomValidation(forMapping:manager:)``
/// and ``end(_:manager:)``. A mapping names its policy by class name
/// (`entityMigrationPolicyClassName`); the manager finds the class through the Swift runtime,
/// or through ``register()`` when the name's module does not exist on this platform.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsentitymigrationpolicy>.
open class NSEntityMigrationPolicy: NSObject, ExpressionFunctionTarget {
    /// Creates a policy; the manager makes one per entity mapping and migration.
    public required override init() {
        super.init()
    }

    // MARK: - The migration's steps

    /// Called before the mapping's instances are created. Does nothing by default.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination instance of one source instance: inserts an object of the
    /// destination entity, sets each attribute mapping's value expression, and associates the two.
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                         manager: NSMigrationManager) throws {
        guard let entity = manager.destinationEntity(for: mapping) else { return }
        let destination = NSManagedObject(entity: entity, insertInto: manager.destinationContext)
        try manager.applyPropertyMappings(mapping.attributeMappings, of: mapping, policy: self,
                                          source: sInstance, destination: destination)
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called once every instance of the mapping is created. Does nothing by default.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets the relationships of one destination instance from the mapping's relationship
    /// mappings, evaluated against the source instance it was created from.
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping,
                                  manager: NSMigrationManager) throws {
        let source = manager.sourceInstances(forEntityMappingName: mapping.name ?? "", destinationInstances: [dInstance]).first
        try manager.applyPropertyMappings(mapping.relationshipMappings, of: mapping, policy: self,
                                          source: source, destination: dInstance)
    }

    /// Called once every relationship of the mapping is set. Does nothing by default.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Validates what the mapping made, beyond the model's own rules (which the manager checks
    /// for every destination instance). Does nothing by default.
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called when the mapping is finished. Does nothing by default.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    // MARK: - FUNCTION($entityPolicy, …)

    /// Answers `FUNCTION($entityPolicy, "selector:", …)` in the mapping's expressions; nil by
    /// default. Override it where Apple's code would add an `@objc` method for the selector.
    open func performExpressionFunction(_ selector: String, arguments: [Any?]) -> Any? {
        nil
    }

    // MARK: - Finding policy classes

    /// Makes the class findable by its bare name, whatever module a mapping model names
    /// (`REPLACE_AT_RUNTIME.MyPolicy`, or an Xcode app module absent on Linux).
    public class func register() {
        MigrationPolicyRegistry.shared.register(self)
    }
}
