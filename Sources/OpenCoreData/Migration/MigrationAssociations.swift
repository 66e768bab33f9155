import Foundation

/// An object of a migration's source or destination store, without the object: its entity's
/// position in the model and its primary key. Sixteen bytes, so the associations of millions
/// of rows fit in memory where managed objects or their IDs would not.
///
/// Keys order by primary key first: the rows of an entity hierarchy share one table and one
/// key sequence, so rows read in primary-key order give ascending keys whatever their entity.
struct MigrationObjectKey: Hashable, Comparable {
    var entity: Int32
    var primaryKey: Int64

    static func < (lhs: MigrationObjectKey, rhs: MigrationObjectKey) -> Bool {
        (lhs.primaryKey, lhs.entity) < (rhs.primaryKey, rhs.entity)
    }
}

/// What a migration associated, per entity mapping: which destination instances were made from
/// which source instance, and back.
///
/// Destination instances not yet saved have temporary IDs, so they are held as objects until
/// ``settle(in:)`` gives them permanent IDs before a batch is saved; from then on only keys are kept.
final class MigrationAssociations {
    fileprivate final class Table {
        /// The settled associations, one row each, in the order the destinations were made
        /// (the order relationships are created in): two columns of keys and their indexes.
        var sources: [MigrationObjectKey] = []
        var destinations: [MigrationObjectKey] = []
        var sourceIndex = MigrationKeyIndex()
        var destinationIndex = MigrationKeyIndex()
        var pendingBySource: [MigrationObjectKey: [NSManagedObject]] = [:]
        var pendingSources: [ObjectIdentifier: MigrationObjectKey] = [:]
        var pending: [NSManagedObject] = []

        func append(source: MigrationObjectKey, destination: MigrationObjectKey) {
            sources.append(source)
            destinations.append(destination)
            sourceIndex.append(source, row: sources.count - 1, column: sources)
            destinationIndex.append(destination, row: destinations.count - 1, column: destinations)
        }
    }

    fileprivate var tables: [String: Table] = [:]
    private var entityIndexes: [ObjectIdentifier: [ObjectIdentifier: Int32]] = [:]

    /// Whether destinations are waiting for permanent IDs.
    var hasPending: Bool { tables.values.contains { !$0.pending.isEmpty } }

    // MARK: - Keys

    /// The key of an object ID of `model`'s store; nil for a temporary ID.
    func key(of objectID: NSManagedObjectID, in model: NSManagedObjectModel) -> MigrationObjectKey? {
        guard !objectID.isTemporaryID, let index = index(of: objectID.entity, in: model) else { return nil }
        return MigrationObjectKey(entity: index, primaryKey: objectID.primaryKey)
    }

    /// The object ID a key stands for in `store`.
    func objectID(for key: MigrationObjectKey, model: NSManagedObjectModel, store: NSPersistentStore?) -> NSManagedObjectID? {
        let entities = model.entities
        guard let store, key.entity >= 0, Int(key.entity) < entities.count else { return nil }
        return NSManagedObjectID(entity: entities[Int(key.entity)], primaryKey: key.primaryKey, store: store)
    }

    private func index(of entity: NSEntityDescription, in model: NSManagedObjectModel) -> Int32? {
        let modelID = ObjectIdentifier(model)
        if entityIndexes[modelID] == nil {
            var indexes: [ObjectIdentifier: Int32] = [:]
            for (position, candidate) in model.entities.enumerated() { indexes[ObjectIdentifier(candidate)] = Int32(position) }
            entityIndexes[modelID] = indexes
        }
        if let index = entityIndexes[modelID]?[ObjectIdentifier(entity)] { return index }
        // An entity description of an equal model (a copy): match by name.
        return entity.name.flatMap { name in model.entities.firstIndex { $0.name == name } }.map { Int32($0) }
    }

    // MARK: - Recording

    func associate(source: MigrationObjectKey, destination: NSManagedObject, mapping: String) {
        let table = tables[mapping] ?? { let made = Table(); tables[mapping] = made; return made }()
        table.pendingBySource[source, default: []].append(destination)
        table.pendingSources[ObjectIdentifier(destination)] = source
        table.pending.append(destination)
    }

    /// Gives every pending destination a permanent ID and keeps only keys from then on. Called
    /// before each batch of the destination is saved.
    func settle(in context: NSManagedObjectContext, model: NSManagedObjectModel) throws {
        let pending = tables.values.flatMap { $0.pending }.filter { !$0.isDeleted && $0.objectID.isTemporaryID }
        if !pending.isEmpty { try context.obtainPermanentIDs(for: pending) }
        for table in tables.values where !table.pending.isEmpty {
            for destination in table.pending {
                guard let source = table.pendingSources[ObjectIdentifier(destination)],
                      let key = key(of: destination.objectID, in: model) else { continue }
                table.append(source: source, destination: key)
            }
            table.pending.removeAll()
            table.pendingBySource.removeAll()
            table.pendingSources.removeAll()
        }
    }

    // MARK: - Looking up

    func destinations(of source: MigrationObjectKey, mapping: String, in context: NSManagedObjectContext,
                      model: NSManagedObjectModel) -> [NSManagedObject] {
        guard let table = tables[mapping] else { return [] }
        var found: [NSManagedObject] = []
        let store = context.persistentStoreCoordinator?.persistentStores.first
        for row in table.sourceIndex.rows(of: source, in: table.sources) {
            if let id = objectID(for: table.destinations[row], model: model, store: store) { found.append(context.object(with: id)) }
        }
        return found + (table.pendingBySource[source] ?? [])
    }

    func sourceKey(of destination: NSManagedObject, mapping: String, model: NSManagedObjectModel) -> MigrationObjectKey? {
        guard let table = tables[mapping] else { return nil }
        if let source = table.pendingSources[ObjectIdentifier(destination)] { return source }
        guard let key = key(of: destination.objectID, in: model),
              let row = table.destinationIndex.rows(of: key, in: table.destinations).first else { return nil }
        return table.sources[row]
    }

    /// The settled (source, destination) pairs of a mapping, in the order the destinations were made.
    func settledPairs(mapping: String) -> (sources: [MigrationObjectKey], destinations: [MigrationObjectKey]) {
        guard let table = tables[mapping] else { return ([], []) }
        return (table.sources, table.destinations)
    }
}
