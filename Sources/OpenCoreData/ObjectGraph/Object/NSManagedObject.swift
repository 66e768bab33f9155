import Foundation
import OrderedCollections

/// The type of the values a fetch request can return: managed objects, object IDs, counts or dictionaries.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsfetchrequestresult>.
public protocol NSFetchRequestResult: AnyObject {}

extension NSNumber: NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}
extension NSManagedObjectID: NSFetchRequestResult {}

/// The ordered, identity-hashed set that holds a loaded to-many relationship.
package typealias OrderedSetStorage = OrderedSet<NSManagedObject>

/// One value slot of a managed object, indexed by the entity's `EntityLayout`.
package enum ObjectSlot {
    /// An attribute value in store form, or an unresolved to-one (`.objectID` / `.null`).
    case value(StoreValue)
    /// A transformable or undefined-type attribute value, kept as the object the user set.
    case custom(Any?)
    /// A to-one relationship resolved to an object (or nil).
    case toOne(NSManagedObject?)
    /// A to-many relationship whose destinations are loaded.
    case toMany(RelationshipStorage)
    /// A to-many relationship not loaded yet: a relationship fault.
    case unloadedToMany
}

/// The destinations of a loaded to-many relationship, in order (ordered relationships keep it meaningful).
package final class RelationshipStorage {
    package var objects: OrderedSetStorage {
        // No `oldValue`: an edit in place stays in place.
        didSet { if !mirrors.isEmpty { updateMirrors() } }
    }
    /// The destination IDs as last saved or fetched; nil for a new object. Used to compute join-table changes.
    package var committedIDs: [NSManagedObjectID]?
    /// The `mutableOrderedSetValue(forKey:)` sets alive over this relationship, told of every
    /// change so that their inherited storage stays equal to it.
    var mirrors: [WeakOrderedSetMirror] = []

    private func updateMirrors() {
        mirrors.removeAll { $0.set == nil }
        for mirror in mirrors { mirror.set?.syncMirror() }
    }

    package init(objects: OrderedSetStorage, committedIDs: [NSManagedObjectID]?) {
        self.objects = objects
        self.committedIDs = committedIDs
    }
}

/// A managed object: an instance of an entity, living in a context that tracks its changes.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobject>.
/// Subclasses declare typed properties with `@Managed` (in place of `@NSManaged`).
/// Managed objects are bound to their context's queue and are not `Sendable`; pass
/// `objectID` between threads instead.
open class NSManagedObject: NSObject, NSFetchRequestResult {
    /// The entity the object is an instance of.
    public final let entity: NSEntityDescription
    package final let layout: EntityLayout
    /// The object's ID; a temporary one is made on first use, so fetched objects never pay for one.
    package final var _objectID: NSManagedObjectID {
        get {
            if let id = objectIDStorage { return id }
            let id = NSManagedObjectID(temporaryFor: entity)
            objectIDStorage = id
            return id
        }
        set { objectIDStorage = newValue }
    }
    // Hot fields are exempt from dynamic exclusivity checks: an object is confined to its
    // context's queue, and the checks (a thread-local lookup per access) dominated fetches.
    @exclusivity(unchecked) private final var objectIDStorage: NSManagedObjectID?
    /// The context; not retained and not weak (a weak reference costs a side-table operation per
    /// object). The context clears it when it unregisters the object or is freed, so it is never dangling.
    package final var _context: NSManagedObjectContext? {
        @inline(__always) get { contextReference?.takeUnretainedValue() }
        @inline(__always) set { contextReference = newValue.map { Unmanaged.passUnretained($0) } }
    }
    /// `_context` as stored: `deinit` calls the context through it without retaining it, which
    /// matters because contexts are also referenced weakly (by their coordinator), and retaining
    /// an object with weak references takes the runtime's slow path.
    @exclusivity(unchecked) private final var contextReference: Unmanaged<NSManagedObjectContext>?

    /// Calls `body` with the object's context without retaining it; nil when there is none. For
    /// the library's own per-value paths: the object is used on the context's queue and the
    /// context keeps itself alive while it works, so it outlives the call.
    @inline(__always)
    package final func withContext<Result>(_ body: (NSManagedObjectContext) throws -> Result) rethrows -> Result? {
        guard let contextReference else { return nil }
        return try contextReference._withUnsafeGuaranteedRef(body)
    }

    /// Current values; empty while the object is a fault or reads its committed values.
    @exclusivity(unchecked) package final var storedSlots: ContiguousArray<ObjectSlot> = []

    /// Current values, built from `committed` first if the object was reading those.
    package final var slots: ContiguousArray<ObjectSlot> {
        @inline(__always) get {
            if readsCommitted { materializeSlots() }
            return storedSlots
        }
        @inline(__always) set {
            readsCommitted = false
            storedSlots = newValue
        }
        @inline(__always) _modify {
            if readsCommitted { materializeSlots() }
            yield &storedSlots
        }
    }
    /// The values last read from or saved to the store; nil for a new object or an unfired fault.
    @exclusivity(unchecked) package final var committed: RowSnapshot?
    /// Whether the object's values have not been loaded.
    @exclusivity(unchecked) package final var faulted = false
    @exclusivity(unchecked) package final var insertedFlag = false
    @exclusivity(unchecked) package final var deletedFlag = false
    /// Set while an inserted object is listed for the next `ObjectsDidChange` (inserted in this
    /// pass, or changed since the last), so that further writes cost no lookup.
    @exclusivity(unchecked) package final var insertedChangeNoted = false
    /// Set while the slots of an object created outside a context still need their default values.
    @exclusivity(unchecked) package final var needsDefaults = false
    /// Set when the object's row could not be found while firing a fault.
    @exclusivity(unchecked) package final var inaccessible = false
    /// Set while a fired, unchanged object of a plain entity (attributes only, no transformables)
    /// reads its values straight from `committed`: firing a fault then copies nothing, and the
    /// slots are built only when something needs them (a write, a relationship, validation…).
    /// Declared with the other flags: stored properties are laid out in declaration order, and
    /// here it shares their padding, so an object is 104 bytes (a 112-byte allocation, not 128).
    @exclusivity(unchecked) package final var readsCommitted = false
    /// The batch this fault was fetched in; firing it loads the whole batch.
    @exclusivity(unchecked) package final var faultBatch: FaultBatch?
    /// Set while `NSManagedObject.keyName(for:)` probes a key path.
    @exclusivity(unchecked) package final var keyRecorder: KeyRecorder?

    // MARK: - Initializers

    /// Creates an object of `entity` and inserts it into `context` (if not nil).
    ///
    /// Subclasses that declare an initializer must also implement this one: fetches create
    /// instances through it.
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        if context != nil && entity.isAbstract {
            CoreDataError.programmerError("Cannot create an instance of abstract entity '\(entity.name ?? "?")'.")
        }
        self.entity = entity
        self.layout = entity.layout
        super.init()
        if type(of: self) != NSManagedObject.self {
            ClassRegistry.shared.registerIfNeeded(type(of: self), for: entity)
        }
        if let context {
            slots = Self.initialSlots(layout: layout)
            context.insert(self)
        } else {
            // Defaults are filled in on first use; a fetch replaces them with the row instead.
            faulted = true
            needsDefaults = true
        }
    }

    /// Creates an object of the entity that names this class, and inserts it into `context`.
    ///
    /// `required`, so that class methods can write `Self(context: context)`.
    public required convenience init(context: NSManagedObjectContext) {
        guard let entity = Self.entity(in: context) else {
            CoreDataError.programmerError("No entity in the context's model has class '\(Self.className)'. Set managedObjectClassName or use init(entity:insertInto:).")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// Creates an object of this class's entity (``entity()``) that belongs to no context.
    ///
    /// Apple's objects inherit `init()` from `NSObject`. Insert the object with
    /// `context.insert(_:)` to save it.
    public override convenience init() {
        self.init(entity: Self.entity(), insertInto: nil)
    }

    deinit {
        withContext { $0.forget(self) }
    }

    static func initialSlots(layout: EntityLayout) -> ContiguousArray<ObjectSlot> {
        var slots = layout.initialSlotTemplate
        for index in layout.toManyIndices {
            slots[index] = .toMany(RelationshipStorage(objects: OrderedSetStorage(), committedIDs: nil))
        }
        return slots
    }

    // MARK: - Identity and state

    /// The object's ID: temporary until the object is saved.
    public final var objectID: NSManagedObjectID { _objectID }

    /// The context the object is registered with, or nil once it was deleted and saved or its context is gone.
    public final var managedObjectContext: NSManagedObjectContext? { _context }

    /// Identity, as `isEqual(_:)` is: the object's address. NSObject's default hashes the
    /// address with SipHash, and sets and dictionaries of objects then hash that hash again.
    open override var hash: Int { Int(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }

    /// Whether the object was inserted and not yet saved.
    public final var isInserted: Bool { insertedFlag }

    /// Whether the object will be deleted when the context saves.
    public final var isDeleted: Bool { deletedFlag }

    /// Whether the object has unsaved changes to its values.
    public final var isUpdated: Bool {
        guard let context = _context else { return false }
        return context.updated[ObjectIdentifier(self)] != nil
    }

    /// Whether the object is a fault: its values have not been loaded.
    public final var isFault: Bool { faulted && !needsDefaults }

    /// Whether the object is inserted, updated or deleted.
    public final var hasChanges: Bool { isInserted || isDeleted || isUpdated }

    /// Whether any persistent property differs from the last saved value.
    public final var hasPersistentChangedValues: Bool { !changedValues().isEmpty }

    /// The fault state: 0 when fully realized, 1 when a fault.
    public final var faultingState: Int { isFault ? 1 : 0 }

    // MARK: - Class and entity lookup

    /// The entity of this class in the models loaded so far.
    ///
    /// As on Apple platforms, a class that no loaded model claims gets an entity with no name
    /// and no properties (its `managedObjectClassName` is the class's name), not a failure.
    open class func entity() -> NSEntityDescription {
        if let entity = ClassRegistry.shared.entity(for: self) { return entity }
        let unnamed = NSEntityDescription()
        unnamed.managedObjectClassName = String(reflecting: self)
        return unnamed
    }

    /// A fetch request for this class's entity.
    ///
    /// Disfavored, so that `Todo.fetchRequest()` with no type annotation picks the typed
    /// `fetchRequest() -> NSFetchRequest<Todo>` that generated classes declare.
    @_disfavoredOverload
    open class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        NSFetchRequest<NSFetchRequestResult>(entityName: entity().name ?? className)
    }

    /// The class name used to match `managedObjectClassName` (without module).
    package static var className: String {
        let full = String(reflecting: self)
        return full.split(separator: ".").last.map(String.init) ?? full
    }

    static func entity(in context: NSManagedObjectContext) -> NSEntityDescription? {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else { return nil }
        return ClassRegistry.shared.entity(for: self, in: model)
    }


    // MARK: - Lifecycle hooks

    /// Called once when the object is first inserted into a context. Set defaults here.
    open func awakeFromInsert() {}

    /// Called when the object's values are loaded from the store.
    open func awakeFromFetch() {}

    /// Called before the object is saved.
    open func willSave() {}

    /// Called after the object was saved.
    open func didSave() {}

    /// Called when the object is about to be deleted, before delete rules are applied.
    open func prepareForDeletion() {}

    /// Called before the object becomes a fault.
    open func willTurnIntoFault() {}

    /// Called after the object became a fault.
    open func didTurnIntoFault() {}

    /// Called before a property is read; override to observe access (no effect by default).
    open func willAccessValue(forKey key: String?) {}

    /// Called after a property was read.
    open func didAccessValue(forKey key: String?) {}

    /// Called before a property changes; OpenCoreData calls it from every setter.
    open func willChangeValue(forKey key: String) {}

    /// Called after a property changed.
    open func didChangeValue(forKey key: String) {}

    // MARK: - Validation hooks

    /// Validates the object before it is inserted; throws one error or `NSValidationMultipleErrorsError`.
    /// Override to add rules, calling `super` first.
    open func validateForInsert() throws {
        try validateAllProperties()
    }

    /// Validates the object before its changes are saved. Override to add rules, calling `super`.
    open func validateForUpdate() throws {
        try validateAllProperties()
    }

    /// Validates that the object may be deleted: relationships with a Deny rule must be empty.
    open func validateForDelete() throws {
        try validateDenyRules()
    }

    // MARK: - Description

    open override var description: String {
        let name = entity.name ?? "?"
        if isFault { return "<\(Swift.type(of: self)): \(name)> (entity: \(name); id: \(objectID.uriRepresentation().absoluteString); data: <fault>)" }
        fireFaultIfNeeded()
        let values = layout.properties.map { "\($0.name) = \(describeSlot(named: $0.name))" }.joined(separator: "; ")
        return "<\(Swift.type(of: self)): \(name)> (entity: \(name); id: \(objectID.uriRepresentation().absoluteString); data: {\(values)})"
    }

    private func describeSlot(named key: String) -> String {
        guard let index = layout.index(forKey: key), index < slots.count else { return "nil" }
        switch slots[index] {
        case .value(let value): return "\(value)"
        case .custom(let value): return value.map { "\($0)" } ?? "nil"
        case .toOne(let object): return object.map { $0.objectID.uriRepresentation().absoluteString } ?? "nil"
        case .toMany(let storage): return "<relationship: \(storage.objects.count) objects>"
        case .unloadedToMany: return "<relationship fault>"
        }
    }
}

@available(*, unavailable, message: "Managed objects are bound to their context's queue; pass objectID between threads instead.")
extension NSManagedObject: @unchecked Sendable {}

/// A managed object used as a predicate constant stands for its stored row.
extension NSManagedObject: StoredObjectReference {}
