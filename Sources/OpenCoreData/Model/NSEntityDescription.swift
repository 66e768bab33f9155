import Foundation
import Synchronization

/// An entity: a kind of object in the model, with its properties and its place in the inheritance tree.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsentitydescription>.
/// `properties` and the `…ByName` dictionaries include inherited properties, as Apple's do.
///
/// `@unchecked Sendable`: mutation happens only before the owning model is frozen (Apple calls a
/// model "editable until it is used by an object graph manager"); once frozen, every stored
/// property is read-only and the cached `layout` is immutable.
open class NSEntityDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The entity's name, unique in the model.
    open var name: String? { willSet { checkMutable("name") } }

    /// The name of the class that represents the entity; defaults to `NSManagedObject`.
    open var managedObjectClassName: String! { willSet { checkMutable("managedObjectClassName") } }

    /// Whether the entity is abstract: it has no instances of its own, only of its subentities.
    open var isAbstract: Bool = false { willSet { checkMutable("isAbstract") } }

    /// The uniqueness constraints: each inner array lists property names (or descriptions) unique together.
    open var uniquenessConstraints: [[Any]] = [] { willSet { checkMutable("uniquenessConstraints") } }

    /// The fetch indexes the store creates for this entity.
    open var indexes: [NSFetchIndexDescription] = [] {
        willSet { checkMutable("indexes") }
        didSet { for index in indexes { index.entity = self } }
    }

    /// The user info dictionary from the model editor.
    open var userInfo: [AnyHashable: Any]? = nil

    /// A string mixed into the version hash to force a new version.
    open var versionHashModifier: String? = nil { willSet { checkMutable("versionHashModifier") } }

    /// The identifier used by migration to recognise a renamed entity.
    open var renamingIdentifier: String? = nil

    /// The compound indexes (deprecated by Apple in favour of `indexes`): each inner array lists
    /// property names (or descriptions) indexed together.
    open var compoundIndexes: [[Any]] = [] { willSet { checkMutable("compoundIndexes") } }

    /// The model editor's code generation setting (`class`, `category`, or nil for manual).
    package var codeGenerationType: String?

    /// The entity's own properties, in the order they were set.
    package private(set) var ownProperties: [NSPropertyDescription] = []

    /// The parent entity, or nil for a root entity.
    // unowned, not weak: see NSPropertyDescription.entity.
    open private(set) unowned var superentity: NSEntityDescription?

    /// The direct subentities.
    open var subentities: [NSEntityDescription] = [] {
        willSet { checkMutable("subentities") }
        didSet {
            for old in oldValue where !subentities.contains(where: { $0 === old }) { old.superentity = nil }
            for sub in subentities { sub.superentity = self }
        }
    }

    /// The model the entity belongs to.
    open internal(set) weak var managedObjectModel: NSManagedObjectModel!

    /// Set once the owning model is frozen; from then on `layout` is cached.
    package private(set) var isFrozen = false
    private var frozenLayout: EntityLayout?

    /// The Swift class ClassRegistry learned for the entity, as a metatype's bit pattern (0: none).
    private let registeredClassBits = Atomic<UInt>(0)

    /// The Swift class ClassRegistry learned for the entity; read on every object's init, hence lock-free.
    package var registeredClass: NSManagedObject.Type? {
        get {
            let bits = registeredClassBits.load(ordering: .acquiring)
            guard bits != 0, let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
            return unsafeBitCast(pointer, to: NSManagedObject.Type.self)
        }
        set {
            let bits = newValue.map { UInt(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
            registeredClassBits.store(bits, ordering: .releasing)
        }
    }

    /// The entity's position in its model, following Apple's `Z_ENT` order (1-based); 0 until frozen.
    package internal(set) var entityNumber: Int = 0

    public override init() {
        super.init()
    }

    // MARK: - Properties

    /// All properties, inherited ones first.
    open var properties: [NSPropertyDescription] {
        get {
            if let layout = frozenLayout { return layout.properties }
            guard let superentity else { return ownProperties }
            // Collected root-first along the chain in one pass: recursing through each
            // superentity's `properties` copied the inherited list at every level (quadratic
            // in the depth, cubic once every entity of a long chain asked).
            var chain: [NSEntityDescription] = [self]
            var current: NSEntityDescription? = superentity
            var count = ownProperties.count
            while let entity = current {
                // A frozen ancestor already holds its full list.
                if let layout = entity.frozenLayout {
                    var result = layout.properties
                    result.reserveCapacity(result.count + count)
                    for entity in chain.reversed() { result += entity.ownProperties }
                    return result
                }
                chain.append(entity)
                count += entity.ownProperties.count
                current = entity.superentity
            }
            var result: [NSPropertyDescription] = []
            result.reserveCapacity(count)
            for entity in chain.reversed() { result += entity.ownProperties }
            return result
        }
        set {
            checkMutable("properties")
            let inherited = Set((superentity?.properties ?? []).map(ObjectIdentifier.init))
            ownProperties = newValue.filter { !inherited.contains(ObjectIdentifier($0)) }
            for property in ownProperties {
                property.entity = self
                (property as? NSCompositeAttributeDescription)?.adoptElements(entity: self, freeze: false)
            }
        }
    }

    /// All properties by name, inherited ones included.
    open var propertiesByName: [String: NSPropertyDescription] {
        if let layout = frozenLayout { return layout.propertiesByName }
        return Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// All attributes by name, inherited ones included.
    open var attributesByName: [String: NSAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? NSAttributeDescription }
    }

    /// All relationships by name, inherited ones included.
    open var relationshipsByName: [String: NSRelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? NSRelationshipDescription }
    }

    /// The relationships whose destination is `entity`.
    open func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.destinationEntity === entity }
    }

    /// Whether this entity is `entity` or one of its subentities.
    open func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// The entity at the top of this entity's inheritance tree; its table holds the whole tree.
    package var rootEntity: NSEntityDescription {
        var current = self
        while let parent = current.superentity { current = parent }
        return current
    }

    /// This entity and all its subentities, depth-first (preorder).
    ///
    /// - Complexity: O(descendants), with a stack of its own: concatenating each subentity's
    ///   list copied it once per level (quadratic over a deep chain) and recursed once per level.
    package var selfAndDescendants: [NSEntityDescription] {
        var result: [NSEntityDescription] = []
        var stack: [NSEntityDescription] = [self]
        while let entity = stack.popLast() {
            result.append(entity)
            stack.append(contentsOf: entity.subentities.reversed())
        }
        return result
    }

    /// The entity's version hash (Apple's algorithm; see `docs/StoreFormat.md`).
    open var versionHash: Data { VersionHasher.hash(of: self) }

    // MARK: - Freezing

    /// The immutable, index-based view the object graph and stores use on hot paths.
    package var layout: EntityLayout {
        if let layout = frozenLayout { return layout }
        return EntityLayout(entity: self)
    }

    package func freeze() {
        guard !isFrozen else { return }
        for property in ownProperties {
            property.isFrozen = true
            (property as? NSCompositeAttributeDescription)?.adoptElements(entity: self, freeze: true)
        }
        isFrozen = true
        frozenLayout = EntityLayout(entity: self)
    }

    package func checkMutable(_ key: String) {
        if isFrozen {
            fatalError("Can't modify an immutable model: entity '\(name ?? "?")' key '\(key)' was changed after the model was used by a coordinator.")
        }
    }

    // MARK: - NSCopying

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSEntityDescription()
        copy.name = name
        copy.managedObjectClassName = managedObjectClassName
        copy.isAbstract = isAbstract
        copy.uniquenessConstraints = uniquenessConstraints
        copy.userInfo = userInfo
        copy.versionHashModifier = versionHashModifier
        copy.renamingIdentifier = renamingIdentifier
        copy.compoundIndexes = compoundIndexes
        copy.codeGenerationType = codeGenerationType
        copy.properties = ownProperties.map { $0.copy() as! NSPropertyDescription }
        copy.indexes = indexes.map { $0.copy() as! NSFetchIndexDescription }
        return copy
    }

    open override var description: String {
        "(<NSEntityDescription> name \(name ?? "nil"), managedObjectClassName \(managedObjectClassName ?? "NSManagedObject"), superentity \(superentity?.name ?? "nil"), properties \(properties.map(\.name)))"
    }
}
