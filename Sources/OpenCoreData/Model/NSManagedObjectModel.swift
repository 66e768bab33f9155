import Foundation
import Synchronization

/// A schema: the entities, their configurations and fetch request templates.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel>.
/// The model is editable until a coordinator uses it; then it is frozen and becomes immutable,
/// which is what makes it safe to share between threads.
///
/// `@unchecked Sendable`: all mutation happens before `freeze()`, which a coordinator calls
/// under `freezeLock` before it shares the model; afterwards every setter stops with a message.
open class NSManagedObjectModel: NSObject, NSCopying, @unchecked Sendable {
    private var _entities: [NSEntityDescription] = []
    private var configurationEntities: [String: [String]] = [:]
    private var templates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
    private let freezeLock = Mutex(false)

    /// Identifiers of the model version (from the model editor's "Identifier" field).
    open var versionIdentifiers: Set<AnyHashable> = [] { willSet { checkMutable("versionIdentifiers") } }

    /// Strings for localizing entity and property names in error messages.
    open var localizationDictionary: [String: String]?

    /// The versioned bundle (`.momd` or `.xcdatamodeld`) the model was loaded from, whose other
    /// versions are the source models automatic migration tries.
    package var versionBundleURL: URL?

    /// Creates an empty model.
    public override init() {
        super.init()
    }

    // MARK: - Entities

    /// All entities, roots and subentities.
    open var entities: [NSEntityDescription] {
        get { _entities }
        set {
            checkMutable("entities")
            _entities = newValue
            for entity in newValue { entity.managedObjectModel = self }
        }
    }

    /// The entities keyed by name.
    ///
    /// Built once when the model is frozen (every fetch by entity name asks); an editable model
    /// builds it per call, since its entities and their names may still change.
    open var entitiesByName: [String: NSEntityDescription] {
        if let frozen = frozenEntitiesByName.withLock({ $0 }) { return frozen }
        return Self.index(_entities)
    }

    private let frozenEntitiesByName = Mutex<[String: NSEntityDescription]?>(nil)

    private static func index(_ entities: [NSEntityDescription]) -> [String: NSEntityDescription] {
        Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The names of the model's configurations.
    open var configurations: [String] { configurationEntities.keys.sorted() }

    /// The entities of a configuration; nil or "Default" (or "PF_DEFAULT_CONFIGURATION_NAME") gives all entities.
    open func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, !Self.isDefaultConfiguration(configuration) else { return _entities }
        guard let names = configurationEntities[configuration] else { return nil }
        let byName = entitiesByName
        return names.compactMap { byName[$0] }
    }

    /// Sets the entities of a named configuration.
    open func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        checkMutable("configurations")
        configurationEntities[configuration] = entities.compactMap(\.name)
    }

    static func isDefaultConfiguration(_ name: String) -> Bool {
        name == "Default" || name == "PF_DEFAULT_CONFIGURATION_NAME"
    }

    // MARK: - Fetch request templates

    /// The fetch request templates keyed by name.
    open var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] { templates }

    /// The fetch request template with a name, or nil.
    open func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        templates[name]
    }

    /// Stores a fetch request template under a name.
    open func setFetchRequestTemplate(_ fetchRequest: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        checkMutable("fetchRequestTemplates")
        templates[name] = fetchRequest
    }

    // MARK: - Version hashes

    /// Each entity's version hash by entity name.
    ///
    /// Every store open compares these with the store's metadata, and hashing an entity (SHA-256
    /// over its properties) costs more than the rest of an open's model work: a frozen model,
    /// whose entities can no longer change, hashes them once; an editable one per call.
    open var entityVersionHashesByName: [String: Data] {
        if let cached = frozenVersionHashes.withLock({ $0 }) { return cached }
        // Read before hashing: only hashes of entities that were already immutable are kept.
        let frozen = isFrozen
        var memo = VersionHasher.Memo()
        let hashes = VersionHasher.hashes(of: _entities, memo: &memo)
        if frozen { frozenVersionHashes.withLock { $0 = hashes } }
        return hashes
    }

    private let frozenVersionHashes = Mutex<[String: Data]?>(nil)

    // MARK: - Freezing

    /// Whether a coordinator has frozen the model.
    package var isFrozen: Bool { freezeLock.withLock { $0 } }

    /// Links relationships by name, numbers the entities in Apple's `Z_ENT` order and makes the model immutable.
    package func freeze() {
        freezeLock.withLock { frozen in
            guard !frozen else { return }
            link()
            var number = 1
            for root in orderedEntities() {
                root.entityNumber = number
                number += 1
            }
            for entity in _entities { entity.freeze() }
            let index = Self.index(_entities)
            frozenEntitiesByName.withLock { $0 = index }
            frozen = true
        }
    }

    /// Resolves relationship destinations, inverses and index elements given by name.
    package func link() {
        let byName = entitiesByName
        for entity in _entities {
            entity.managedObjectModel = self
            for property in entity.ownProperties {
                property.entity = entity
                (property as? NSCompositeAttributeDescription)?.adoptElements(entity: entity, freeze: false)
                guard let relationship = property as? NSRelationshipDescription else { continue }
                if relationship.destinationEntity == nil, let name = relationship.destinationEntityName {
                    relationship.destinationEntity = byName[name]
                }
                if relationship.inverseRelationship == nil, let name = relationship.inverseRelationshipName,
                   let destination = relationship.destinationEntity {
                    relationship.inverseRelationship = destination.relationshipsByName[name]
                }
            }
            for index in entity.indexes {
                index.entity = entity
                for element in index.elements where element.property == nil {
                    if let name = element.propertyName { element.property = entity.propertiesByName[name] }
                }
            }
        }
    }

    /// Entities in Apple's `Z_ENT` order: roots alphabetically, each followed by its subentities depth-first.
    package func orderedEntities() -> [NSEntityDescription] {
        func sorted(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
            entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        }
        func walk(_ entity: NSEntityDescription) -> [NSEntityDescription] {
            [entity] + sorted(entity.subentities).flatMap(walk)
        }
        return sorted(_entities.filter { $0.superentity == nil }).flatMap(walk)
    }

    package func checkMutable(_ key: String) {
        if isFrozen {
            fatalError("Can't modify an immutable model: key '\(key)' was changed after the model was used by a coordinator.")
        }
    }

    // MARK: - Merging

    /// A model containing the entities of several models.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        self.init()
        var seen = Set<String>()
        var entities: [NSEntityDescription] = []
        // Merge copies, so the source models keep their own entities.
        for model in (models ?? []).map({ $0.copy() as! NSManagedObjectModel }) {
            for entity in model.entities {
                guard let name = entity.name, seen.insert(name).inserted else {
                    if let name = entity.name, seen.contains(name) { return nil }
                    continue
                }
                entities.append(entity)
            }
            for (name, template) in model.templates { templates[name] = template }
            for (name, entityNames) in model.configurationEntities { configurationEntities[name, default: []] += entityNames }
        }
        self.entities = entities
        link()
    }

    // MARK: - NSCopying

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSManagedObjectModel()
        let copies = _entities.map { ($0, $0.copy() as! NSEntityDescription) }
        let map = Dictionary(uniqueKeysWithValues: copies.map { (ObjectIdentifier($0.0), $0.1) })
        for (original, entityCopy) in copies {
            entityCopy.subentities = original.subentities.compactMap { map[ObjectIdentifier($0)] }
            // Constraints and index elements name properties of the copy, not of the original.
            entityCopy.uniquenessConstraints = original.uniquenessConstraintNames
            for index in entityCopy.indexes {
                for element in index.elements {
                    element.propertyName = element.propertyName ?? element.property?.name
                    element.property = nil
                }
            }
            for property in entityCopy.ownProperties {
                guard let relationship = property as? NSRelationshipDescription else { continue }
                relationship.destinationEntityName = relationship.destinationEntity?.name ?? relationship.destinationEntityName
                relationship.inverseRelationshipName = relationship.inverseRelationship?.name ?? relationship.inverseRelationshipName
                relationship.destinationEntity = nil
                relationship.inverseRelationship = nil
            }
        }
        copy.entities = copies.map(\.1)
        copy.configurationEntities = configurationEntities
        copy.templates = templates
        copy.versionIdentifiers = versionIdentifiers
        copy.versionBundleURL = versionBundleURL
        copy.link()
        return copy
    }
}
