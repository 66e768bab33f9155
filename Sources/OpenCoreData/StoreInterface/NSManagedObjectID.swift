import Foundation
import Synchronization

/// A compact, universal identifier for a managed object; safe to pass between threads.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmanagedobjectid>.
/// An object inserted but not yet saved has a temporary ID; saving (or `obtainPermanentIDs(for:)`)
/// gives it a permanent one built from its store and primary key.
public final class NSManagedObjectID: NSObject, NSCopying, Sendable {
    /// The entity of the object.
    public let entity: NSEntityDescription
    /// The root of the entity's hierarchy: one primary-key sequence is shared per root.
    package let rootEntity: NSEntityDescription
    /// The primary key (`Z_PK`) of a permanent ID; for a temporary ID, a process-unique counter.
    package let primaryKey: Int64
    /// Whether the ID is temporary (the object has not been saved).
    public let isTemporaryID: Bool
    /// The store's shared handle; nil for temporary IDs.
    package let storeHandle: StoreHandle?
    /// A value-type key for dictionaries: hashing and comparing it needs no dynamic dispatch.
    /// Computed, not stored: it repeats the fields above, and an ID is allocated per fetched row.
    package var key: ObjectKey {
        @inline(__always) get { ObjectKey(primaryKey: primaryKey, root: rootEntity, handle: storeHandle) }
    }
    private var cachedHash: Int { key.hashBits }

    private static let temporaryCounter = Atomic<Int64>(0)

    package convenience init(entity: NSEntityDescription, primaryKey: Int64, store: NSPersistentStore) {
        self.init(entity: entity, primaryKey: primaryKey, handle: store.handle)
    }

    /// A permanent ID of the store that owns `handle`.
    package convenience init(entity: NSEntityDescription, primaryKey: Int64, handle: StoreHandle) {
        self.init(entity: entity, root: entity.rootEntity, primaryKey: primaryKey, handle: handle)
    }

    /// A permanent ID, given the entity's root (`entity.rootEntity`), which walks the hierarchy.
    package init(entity: NSEntityDescription, root: NSEntityDescription, primaryKey: Int64, handle: StoreHandle) {
        self.entity = entity
        self.rootEntity = root
        self.primaryKey = primaryKey
        self.isTemporaryID = false
        self.storeHandle = handle
    }

    package init(temporaryFor entity: NSEntityDescription) {
        let key = Self.temporaryCounter.add(1, ordering: .relaxed).newValue
        self.entity = entity
        self.rootEntity = entity.rootEntity
        self.primaryKey = key
        self.isTemporaryID = true
        self.storeHandle = nil
    }

    /// The identifier of the store that holds the object; empty for temporary IDs.
    package var storeIdentifier: String { storeHandle?.identifier ?? "" }

    /// The store that holds the object, or nil for a temporary ID or a removed store.
    public var persistentStore: NSPersistentStore? { storeHandle?.store }

    /// A URI that identifies the object: `x-coredata://<store UUID>/<Entity>/p<primary key>`.
    ///
    /// Temporary IDs give `x-coredata:///<Entity>/t<number>`, which no coordinator resolves after the process ends.
    public func uriRepresentation() -> URL {
        let entityName = entity.name ?? "?"
        if isTemporaryID {
            return URL(string: "x-coredata:///\(entityName)/t\(primaryKey)")!
        }
        // IDs of custom stores carry the store's reference object (Apple's `newObjectID(for:referenceObject:)`).
        if let store = storeHandle?.store, let reference = store.uriReferenceComponent(for: self),
           let url = URL(string: "x-coredata://\(storeIdentifier)/\(entityName)/p\(reference)") {
            return url
        }
        return URL(string: "x-coredata://\(storeIdentifier)/\(entityName)/p\(primaryKey)")
            ?? URL(string: "x-coredata://invalid/\(primaryKey)")!
    }

    // MARK: - Equality

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        if other === self { return true }
        guard primaryKey == other.primaryKey, isTemporaryID == other.isTemporaryID, rootEntity === other.rootEntity else {
            return false
        }
        return storeHandle === other.storeHandle || storeIdentifier == other.storeIdentifier
    }

    public override var hash: Int { cachedHash }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String {
        "<NSManagedObjectID> \(uriRepresentation().absoluteString)"
    }
}

/// An object ID as a plain value: primary key, hierarchy root and store (nil for temporary IDs).
///
/// IDs of one coordinator share the store's handle, so two IDs naming the same row have equal keys.
package struct ObjectKey: Hashable, Sendable {
    package let primaryKey: Int64
    let root: ObjectIdentifier
    /// The store handle's address; 0 for a temporary ID. Not an `ObjectIdentifier?`, whose
    /// extra tag byte would make the key, and each identity-map entry, a word larger.
    let store: UInt

    init(primaryKey: Int64, root: NSEntityDescription, handle: StoreHandle?) {
        self.primaryKey = primaryKey
        self.root = ObjectIdentifier(root)
        self.store = handle.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
    }

    private init(primaryKey: Int64, root: ObjectIdentifier, store: UInt) {
        self.primaryKey = primaryKey
        self.root = root
        self.store = store
    }

    /// A placeholder for empty slots of `IdentityMap`.
    static let empty = ObjectKey(primaryKey: 0, root: ObjectIdentifier(ObjectKey.self), store: 0)

    package func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
        hasher.combine(root)
    }

    /// What sets and dictionaries of keys (the row cache, a context's pins) hash with: a
    /// seeded mix of the same fields as `hash(into:)`, instead of a full SipHash per lookup.
    /// The mix is a bijection of the seeded input, so distinct keys of one hierarchy never
    /// share a full hash, and the table's per-instance seed keeps bucket collisions unpredictable.
    package func _rawHashValue(seed: Int) -> Int {
        var x = UInt64(bitPattern: primaryKey) ^ (UInt64(UInt(bitPattern: root)) &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(UInt(bitPattern: seed))
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 31))
    }

    /// A cheap mix for `NSObject.hash`.
    var hashBits: Int {
        Int(truncatingIfNeeded: primaryKey &* -7_046_029_254_386_353_131) ^ root.hashValue ^ (store == 0 ? 0x5bd1e995 : 0)
    }
}

/// What every object ID of one store shares: the store (held weakly) and its identifier.
///
/// One handle per store means creating an ID allocates nothing for its store reference.
package final class StoreHandle: @unchecked Sendable {
    // @unchecked Sendable: `store` is written once, in NSPersistentStore.init, before the handle
    // is shared (weak loads are atomic in the Swift runtime); `identifier` is behind its Mutex.
    package private(set) weak var store: NSPersistentStore?
    private let identifierState: Mutex<String>

    init(identifier: String) {
        identifierState = Mutex(identifier)
    }

    func attach(_ store: NSPersistentStore) { self.store = store }

    /// The store's UUID string.
    package var identifier: String {
        get { identifierState.withLock { $0 } }
        set { identifierState.withLock { $0 = newValue } }
    }
}
