import Foundation

/// Migrates a store through a mapping model: reads every source instance through a source
/// context, lets each entity mapping's `NSEntityMigrationPolicy` create destination instances
/// in a destination context, and saves them to the destination store.
///
/// The source store is read a page at a time and the destination saved in batches, so a store
/// of millions of rows migrates in bounded memory; what the migration has associated is kept as
/// primary keys, not objects. The destination is written to a temporary store and moved into
/// place only when everything succeeded: a failed or cancelled migration leaves the source and
/// an existing destination as they were.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmigrationmanager>.
open class NSMigrationManager: NSObject, ExpressionFunctionTarget, KeyValueReading {
    /// The model of the source store.
    public let sourceModel: NSManagedObjectModel
    /// The model of the destination store.
    public let destinationModel: NSManagedObjectModel
    /// The mapping model of the current (or last) migration.
    open internal(set) var mappingModel = NSMappingModel()
    /// The context the source instances are read through.
    open internal(set) var sourceContext: NSManagedObjectContext
    /// The context the destination instances are created in.
    open internal(set) var destinationContext: NSManagedObjectContext
    /// Whether the store type's own migration manager is used; SQLite's is this one.
    open var usesStoreSpecificMigrationManager = true
    /// Anything the app wants to keep with the migration.
    open var userInfo: [AnyHashable: Any]?

    /// The entity mapping being processed.
    open internal(set) var currentEntityMapping: NSEntityMapping = NSEntityMapping()
    /// How far the migration has come, from 0 to 1: each entity mapping is processed three
    /// times (instances, relationships, validation).
    open internal(set) var migrationProgress: Float = 0

    /// What was associated: per entity mapping, source and destination primary keys.
    var associations = MigrationAssociations()
    /// The error `cancelMigrationWithError(_:)` was given.
    var cancellation: Error?
    /// The first error a `FUNCTION($manager, …)` call met; expressions have no error channel.
    var expressionError: Error?

    /// Creates a manager for migrations between two models.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        sourceContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        destinationContext = NSManagedObjectContext(sharingQueueWith: sourceContext)
        super.init()
    }

    /// Forgets what the last migration associated and makes new contexts.
    open func reset() {
        associations = MigrationAssociations()
        cancellation = nil
        expressionError = nil
        migrationProgress = 0
        sourceContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        destinationContext = NSManagedObjectContext(sharingQueueWith: sourceContext)
    }

    /// Stops the migration: `migrateStore` throws `error` and writes no destination.
    open func cancelMigrationWithError(_ error: Error) {
        if cancellation == nil { cancellation = error }
    }

    // MARK: - Entities of a mapping

    /// The source entity of an entity mapping, in `sourceModel`.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination entity of an entity mapping, in `destinationModel`.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    // MARK: - Associations

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`.
    open func associate(sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject,
                        for entityMapping: NSEntityMapping) {
        guard let key = associations.key(of: sourceInstance.objectID, in: sourceModel) else { return }
        associations.associate(source: key, destination: destinationInstance, mapping: entityMapping.name ?? "")
    }

    /// The destination instances the named entity mapping made from the source instances.
    open func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        var found: [NSManagedObject] = []
        for source in sourceInstances ?? [] {
            guard let key = associations.key(of: source.objectID, in: sourceModel) else { continue }
            found += associations.destinations(of: key, mapping: mappingName, in: destinationContext, model: destinationModel)
        }
        return found
    }

    /// The source instances the named entity mapping made the destination instances from.
    open func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        var found: [NSManagedObject] = []
        for destination in destinationInstances ?? [] {
            guard let key = associations.sourceKey(of: destination, mapping: mappingName, model: destinationModel),
                  let id = associations.objectID(for: key, model: sourceModel, store: sourceContext.persistentStoreCoordinator?.persistentStores.first)
            else { continue }
            found.append(sourceContext.object(with: id))
        }
        return found
    }

    // MARK: - KeyValueReading ($manager.sourceContext in mapping expressions)

    /// The manager's properties by name, for key paths in mapping expressions.
    open func value(forKey key: String) -> Any? {
        switch key {
        case "sourceContext": sourceContext
        case "destinationContext": destinationContext
        case "sourceModel": sourceModel
        case "destinationModel": destinationModel
        case "mappingModel": mappingModel
        case "currentEntityMapping": currentEntityMapping
        case "migrationProgress": NSNumber(value: migrationProgress)
        case "userInfo": userInfo
        default: nil
        }
    }
}
