import Foundation

// The variables a mapping model's expressions read, as Apple's `NSEntityMigrationPolicy.h`
// names them; Xcode's mapping model editor writes them as `$manager`, `$source`, ….

/// The variable holding the migration manager (`$manager`).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationmanagerkey>.
public let NSMigrationManagerKey = "manager"

/// The variable holding the source instance being migrated (`$source`).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationsourceobjectkey>.
public let NSMigrationSourceObjectKey = "source"

/// The variable holding the destination instance being filled in (`$destination`).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationdestinationobjectkey>.
public let NSMigrationDestinationObjectKey = "destination"

/// The variable holding the current entity mapping (`$entityMapping`).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationentitymappingkey>.
public let NSMigrationEntityMappingKey = "entityMapping"

/// The variable holding the current property mapping (`$propertyMapping`).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationpropertymappingkey>.
public let NSMigrationPropertyMappingKey = "propertyMapping"

/// The variable holding the current entity migration policy (`$entityPolicy`).
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationentitypolicykey>.
public let NSMigrationEntityPolicyKey = "entityPolicy"
