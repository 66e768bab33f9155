import Foundation

/// How an entity mapping migrates instances between a source and a destination model.
///
/// Raw values match Apple's, so they can be read from compiled mapping models (`NSMappingType`).
/// Mirrors <https://developer.apple.com/documentation/coredata/nsentitymappingtype>.
public enum NSEntityMappingType: UInt, Sendable, CaseIterable {
    /// The mapping type is not set.
    case undefinedEntityMappingType = 0
    /// A custom mapping: an `NSEntityMigrationPolicy` subclass named by the entity mapping does the work.
    case customEntityMappingType = 1
    /// The entity is new in the destination model; instances exist only in the destination.
    case addEntityMappingType = 2
    /// The entity is not in the destination model; its instances are not migrated.
    case removeEntityMappingType = 3
    /// Source instances are migrated as they are.
    case copyEntityMappingType = 4
    /// The entity exists in both models and its instances are transformed by the property mappings.
    case transformEntityMappingType = 5
}
