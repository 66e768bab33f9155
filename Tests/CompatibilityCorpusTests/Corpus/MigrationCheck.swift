// The checks apps run before opening a store: is it compatible with the current model, and if
// not, which bundled model version wrote it; then a manual migration with a mapping model and
// a custom entity policy.
import Foundation
import OpenCoreData

enum MigrationCheck {
    /// Whether the store at `url` needs migrating to `model`.
    static func requiresMigration(at url: URL, to model: NSManagedObjectModel) throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: url, options: nil)
        return !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
    }

    /// The model among `candidates` that the store's metadata matches.
    static func sourceModel(at url: URL, among candidates: [NSManagedObjectModel]) throws -> NSManagedObjectModel? {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: url, options: nil)
        return candidates.first { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }
    }

    /// Migrates with an explicit mapping model (inferred when none is bundled) into a new file.
    static func migrate(from sourceURL: URL, source: NSManagedObjectModel, to destination: NSManagedObjectModel,
                        into destinationURL: URL, itemPolicy: String? = nil) throws {
        let mapping = try NSMappingModel(from: nil, forSourceModel: source, destinationModel: destination)
            ?? NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        if let itemPolicy {
            for entityMapping in mapping.entityMappings where entityMapping.sourceEntityName == "Item" {
                entityMapping.entityMigrationPolicyClassName = itemPolicy
                entityMapping.mappingType = .customEntityMappingType
            }
        }
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        try manager.migrateStore(from: sourceURL, sourceType: NSSQLiteStoreType, options: nil,
                                 with: mapping, toDestinationURL: destinationURL,
                                 destinationType: NSSQLiteStoreType, destinationOptions: nil)
    }
}

/// Upper-cases titles on the way, as a custom migration policy would.
final class UppercaseTitlePolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject,
                                             in mapping: NSEntityMapping,
                                             manager: NSMigrationManager) throws {
        let destination = NSEntityDescription.insertNewObject(forEntityName: mapping.destinationEntityName!,
                                                              into: manager.destinationContext)
        for key in destination.entity.attributesByName.keys where sInstance.entity.attributesByName[key] != nil {
            destination.setValue(sInstance.value(forKey: key), forKey: key)
        }
        if let title = sInstance.value(forKey: "title") as? String {
            destination.setValue(title.uppercased(), forKey: "title")
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }
}
