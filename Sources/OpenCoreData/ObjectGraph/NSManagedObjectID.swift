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
    /// The primary key (`Z_PK`) of a permanent ID; for a temporary ID, a process-unique counter.
    package let primaryKey: Int64
    /// Whether the ID is temporary (the object has not been saved).
    public let isTemporaryID: Bool
    /// The identifier of the store that holds the object; empty for temporary IDs.
    package let storeIdentifier: String
    private let storeReference: StoreReference?
    /// The root of the entity's hierarchy, which equality compares: resolved once.
    private let rootEntity: NSEntityDescription
    /// `hash`, computed once: IDs are dictionary keys in every registry and cache.
    private let hashCache: Int

    private static let temporaryCounter = Atomic<Int64>(0)

    package convenience init(entity: NSEntityDescription, primaryKey: Int64, store: NSPersistentStore) {
        self.init(entity: entity, primaryKey: primaryKey, reference: StoreReference(store))
    }

    /// A permanent ID sharing `reference` with the other IDs of one fetch or save: reading the
    /// store's identifier and making a weak reference once, not once per row.
    package init(entity: NSEntityDescription, primaryKey: Int64, reference: StoreReference) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.isTemporaryID = false
        self.storeIdentifier = reference.identifier
        self.storeReference = reference
        self.rootEntity = entity.rootEntity
        self.hashCache = Self.hash(primaryKey: primaryKey, root: rootEntity)
    }

    package init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.primaryKey = Self.temporaryCounter.add(1, ordering: .relaxed).newValue
        self.isTemporaryID = true
        self.storeIdentifier = ""
        self.storeReference = nil
        self.rootEntity = entity.rootEntity
        self.hashCache = Self.hash(primaryKey: primaryKey, root: rootEntity)
    }

    /// A cheap mix of the key and the hierarchy; the dictionary hashes it again with its seed.
    private static func hash(primaryKey: Int64, root: NSEntityDescription) -> Int {
        Int(truncatingIfNeeded: primaryKey) &+ 31 &* Int(bitPattern: ObjectIdentifier(root))
    }

    /// The store that holds the object, or nil for a temporary ID or a removed store.
    public var persistentStore: NSPersistentStore? { storeReference?.store }

    /// A URI that identifies the object: `x-coredata://<store UUID>/<Entity>/p<primary key>`.
    ///
    /// Temporary IDs give `x-coredata:///<Entity>/t<number>`, which no coordinator resolves after the process ends.
    public func uriRepresentation() -> URL {
        let entityName = entity.name ?? "?"
        if isTemporaryID {
            return URL(string: "x-coredata:///\(entityName)/t\(primaryKey)")!
        }
        return URL(string: "x-coredata://\(storeIdentifier)/\(entityName)/p\(primaryKey)")
            ?? URL(string: "x-coredata://invalid/\(primaryKey)")!
    }

    // MARK: - Equality

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        if other === self { return true }
        return primaryKey == other.primaryKey && isTemporaryID == other.isTemporaryID
            && rootEntity === other.rootEntity && storeIdentifier == other.storeIdentifier
    }

    public override var hash: Int { hashCache }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String {
        "<NSManagedObjectID> \(uriRepresentation().absoluteString)"
    }
}

/// Holds a store weakly so an ID does not keep a removed store alive, with the store's identifier
/// as it was when the reference was made. Many IDs share one.
package final class StoreReference: Sendable {
    // The reference never changes after init; `weak let` is not allowed, so a Mutex guards it.
    private let storage: Mutex<WeakBox>
    package let identifier: String
    package init(_ store: NSPersistentStore) {
        storage = Mutex(WeakBox(store: store))
        identifier = store.identifier
    }
    var store: NSPersistentStore? { storage.withLock { $0.store } }
    struct WeakBox: @unchecked Sendable {
        // @unchecked: NSPersistentStore is Sendable; the box only exists to hold it weakly.
        weak var store: NSPersistentStore?
    }
}
