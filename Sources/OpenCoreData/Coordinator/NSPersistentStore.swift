import Foundation
import Synchronization

/// The SQLite store type.
public let NSSQLiteStoreType = "SQLite"
/// The in-memory store type.
public let NSInMemoryStoreType = "InMemory"
/// The binary store type (not supported on Linux).
public let NSBinaryStoreType = "Binary"
/// The XML store type (macOS only at Apple; not supported).
public let NSXMLStoreType = "XML"

/// Metadata key: the store's type.
public let NSStoreTypeKey = "NSStoreType"
/// Metadata key: the store's UUID.
public let NSStoreUUIDKey = "NSStoreUUID"
/// Metadata key: the entity version hashes of the model that wrote the store.
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// Metadata key: the model's version identifiers.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
/// Metadata key: the framework version that wrote the store.
public let NSPersistenceFrameworkVersionKey = "NSPersistenceFrameworkVersion"
/// Metadata key: the hash-algorithm version.
public let NSStoreModelVersionHashesVersionKey = "NSStoreModelVersionHashesVersion"
/// Metadata key: the model's version checksum.
public let NSStoreModelVersionChecksumKey = "NSStoreModelVersionChecksumKey"

/// Option: open the store read-only.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// Option: SQLite pragmas to set, as a dictionary of name to value.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option: file protection (ignored on Linux).
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"
/// Option: migrate automatically.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option: infer the mapping model.
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// Option: track persistent history.
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"
/// Option: post remote change notifications.
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"
/// Option: the SQLite busy timeout in seconds.
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// Option: the SQLite analyze flag.
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// Option: SQLite manual vacuum.
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"

/// A store that holds the rows of a coordinator's objects.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstore>.
///
/// `@unchecked Sendable`: the mutable state, `metadata`, is guarded by `state`; `typeName` is
/// written only by the coordinator while it adds the store, before the store is shared; the
/// backend is `Sendable`.
open class NSPersistentStore: NSObject, @unchecked Sendable {
    /// The kinds of built-in store (Apple's `NSPersistentStore.StoreType`, iOS 15).
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The SQLite store.
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        /// The in-memory store.
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        /// The binary store (not supported on Linux).
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
    }

    private struct State {
        var metadata: [String: Any]
        /// Bumped by every assignment of `metadata`; the store writes it with its next save.
        var metadataGeneration = 0
        var savedMetadataGeneration = 0
    }
    private let state: Mutex<UncheckedBox<State>>

    /// The type string this store was created with (or registered under, for custom stores).
    private var typeName: String
    /// The store's type string (`"SQLite"`, `"InMemory"`); custom stores override it, as Apple asks.
    open var type: String { typeName }
    /// The store's file URL.
    open var url: URL?
    /// The options the store was added with.
    public let options: [AnyHashable: Any]?
    /// The configuration the store holds; "PF_DEFAULT_CONFIGURATION_NAME" for all entities.
    public let configurationName: String
    /// Whether the store refuses writes.
    public let isReadOnly: Bool
    /// The coordinator the store belongs to.
    open internal(set) weak var persistentStoreCoordinator: NSPersistentStoreCoordinator?
    package let backend: any PersistentStoreBackend
    /// Shared by all object IDs of this store.
    package let handle: StoreHandle

    package init(type: String, url: URL?, options: [AnyHashable: Any]?, configurationName: String?,
                 identifier: String, metadata: [String: Any], backend: any PersistentStoreBackend) {
        self.typeName = type
        self.url = url
        self.options = options
        self.configurationName = configurationName ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        self.backend = backend
        self.handle = StoreHandle(identifier: identifier)
        self.state = Mutex(UncheckedBox(State(metadata: metadata)))
        super.init()
        handle.attach(self)
    }

    /// Apple's designated initializer (`required` here, see docs/Deviations.md), which custom stores (`NSIncrementalStore`, `NSAtomicStore`
    /// subclasses) call; the coordinator calls it for a type registered with
    /// `NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:)`.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstore/init(persistentstorecoordinator:configurationname:at:options:)>.
    public required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                at url: URL, options: [AnyHashable: Any]? = nil) {
        self.typeName = "\(Self.self)"
        self.url = url
        self.options = options
        self.configurationName = name ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        self.backend = Self.makeCustomStoreBackend()
        self.handle = StoreHandle(identifier: UUID().uuidString)
        self.state = Mutex(UncheckedBox(State(metadata: [:])))
        super.init()
        handle.attach(self)
        persistentStoreCoordinator = root
    }

    /// The adapter through which the coordinator talks to a custom store class; overridden by
    /// `NSIncrementalStore` and `NSAtomicStore`. A direct subclass of `NSPersistentStore` holds nothing.
    package class func makeCustomStoreBackend() -> any PersistentStoreBackend { UnsupportedStoreBackend() }

    /// Loads the store's metadata; custom stores override it and set `metadata`, which must hold
    /// `NSStoreTypeKey` and `NSStoreUUIDKey`. Built-in stores load theirs when they open.
    ///
    /// Mirrors <https://developer.apple.com/documentation/coredata/nspersistentstore/loadmetadata()>.
    open func loadMetadata() throws {}

    /// Records the type string a registered store class was added under (before the store is shared).
    package func adoptRegisteredType(_ type: String) { typeName = type }

    /// The text after `p` in the URI of one of this store's object IDs; nil for a primary key.
    /// Stores whose IDs carry reference objects (`NSIncrementalStore`, `NSAtomicStore`) override it.
    package func uriReferenceComponent(for objectID: NSManagedObjectID) -> String? { nil }

    /// The object ID a URI's `p…` component names in this store, for stores with reference objects.
    package func objectID(forURIReference component: String, entity: NSEntityDescription) -> NSManagedObjectID? { nil }

    /// The store's unique identifier (its UUID); part of every permanent object ID.
    open var identifier: String! {
        get { handle.identifier }
        set { if let newValue { handle.identifier = newValue } }
    }

    /// The store's metadata: type, UUID, model version hashes and any keys set by the app.
    ///
    /// An assigned dictionary is written to the store with the next save that reaches it, in
    /// that save's transaction, as Apple documents; until then the file keeps the old one.
    open var metadata: [String: Any]! {
        get { state.withLock { $0.value.metadata } }
        set {
            state.withLock { box in
                var s = box.value
                s.metadata = newValue ?? [:]
                s.metadataGeneration += 1
                box = UncheckedBox(s)
            }
        }
    }

    /// Changes the metadata to match what the store itself just wrote to its file, without
    /// scheduling a write (an app's own unsaved assignment stays pending).
    package func storeDidWriteMetadata(_ transform: (inout [String: Any]) -> Void) {
        state.withLock { box in
            var s = box.value
            transform(&s.metadata)
            box = UncheckedBox(s)
        }
    }

    /// The metadata to write with the next save, and its generation; nil when it is written.
    package func pendingMetadata() -> (metadata: [String: Any], generation: Int)? {
        state.withLock { box in
            box.value.metadataGeneration == box.value.savedMetadataGeneration ? nil : (box.value.metadata, box.value.metadataGeneration)
        }
    }

    /// Records that a save wrote the metadata of `generation`.
    package func metadataWasSaved(generation: Int) {
        state.withLock { box in
            var s = box.value
            s.savedMetadataGeneration = max(s.savedMetadataGeneration, generation)
            box = UncheckedBox(s)
        }
    }

    /// The entities this store holds.
    package func entities(in model: NSManagedObjectModel) -> [NSEntityDescription] {
        model.entities(forConfigurationName: configurationName) ?? model.entities
    }

    open override var description: String {
        "<NSPersistentStore: \(type) \(url?.path ?? "(no URL)") \(identifier ?? "")>"
    }
}
