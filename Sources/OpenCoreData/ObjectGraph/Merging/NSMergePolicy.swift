import Foundation

/// The built-in merge policy kinds.
public enum NSMergePolicyType: UInt, Sendable {
    /// Report conflicts as errors (the default).
    case errorMergePolicyType = 0
    /// Per property, the store's changes win over the object's.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Per property, the object's changes win over the store's.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// The object's state replaces the store's entirely.
    case overwriteMergePolicyType = 3
    /// The store's state replaces the object's changes.
    case rollbackMergePolicyType = 4
}

/// How a context resolves conflicts between its changes and the store on save.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmergepolicy>.
open class NSMergePolicy: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.

    /// The policy's kind.
    public let mergeType: NSMergePolicyType

    /// Creates a policy of a kind.
    public init(merge type: NSMergePolicyType) {
        mergeType = type
        super.init()
    }

    /// Reports conflicts as `NSManagedObjectMergeError` / `NSManagedObjectConstraintMergeError`.
    public static let error = NSMergePolicy(merge: .errorMergePolicyType)
    /// Per property, the store wins.
    public static let mergeByPropertyStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// Per property, the object wins.
    public static let mergeByPropertyObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// The object wins entirely.
    public static let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
    /// The store wins entirely.
    public static let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)

    /// Resolves optimistic-locking conflicts, or throws when the policy reports them.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        if mergeType == .errorMergePolicyType {
            throw CoreDataError.make(NSManagedObjectMergeError,
                                     "Could not merge changes: \(list.count) object(s) changed in the store since they were read (\(list.map { $0.sourceObject.objectID.uriRepresentation().absoluteString }.joined(separator: ", "))).",
                                     userInfo: [NSPersistentStoreSaveConflictsErrorKey: list])
        }
        for conflict in list { apply(conflict) }
    }

    /// Resolves conflicts of either kind, as Apple's `resolve(mergeConflicts:)`.
    open func resolve(mergeConflicts list: [Any]) throws {
        try resolve(optimisticLockingConflicts: list.compactMap { $0 as? NSMergeConflict })
        try resolve(constraintConflicts: list.compactMap { $0 as? NSConstraintConflict })
    }

    /// Resolves uniqueness-constraint conflicts, or throws when the policy reports them.
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        guard !list.isEmpty else { return }
        if mergeType == .errorMergePolicyType {
            let description = list.map { conflict in
                "constraint (\(conflict.constraint.joined(separator: ", "))) on \(conflict.conflictingObjects.first?.entity.name ?? "?")"
            }.joined(separator: "; ")
            throw CoreDataError.make(NSManagedObjectConstraintMergeError, "Uniqueness constraint violated: \(description).",
                                     userInfo: [NSPersistentStoreSaveConflictsErrorKey: list])
        }
        for conflict in list { apply(conflict) }
    }

    // MARK: - Optimistic locking

    private func apply(_ conflict: NSMergeConflict) {
        let object = conflict.sourceObject
        guard let context = object.managedObjectContext else { return }
        guard let current = conflict.storeSnapshot else {
            // The row was deleted in the store: the object's changes cannot be saved.
            context.updated[ObjectIdentifier(object)] = nil
            if object.deletedFlag { context.deleted[ObjectIdentifier(object)] = nil }
            object.committed = nil
            object.inaccessible = true
            return
        }
        let previous = object.committed
        object.fireFaultIfNeeded()
        let layout = object.layout
        switch mergeType {
        case .errorMergePolicyType:
            return
        case .overwriteMergePolicyType:
            // Every value that differs from the store's row is written on the retry.
            object.committed = current
        case .rollbackMergePolicyType:
            object.committed = current
            object.loadSlots()
            context.updated[ObjectIdentifier(object)] = nil
            if object.deletedFlag {
                object.deletedFlag = false
                context.deleted[ObjectIdentifier(object)] = nil
            }
        case .mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType:
            let storeTrumps = mergeType == .mergeByPropertyStoreTrumpMergePolicyType
            var objectChanged = Set<Int>()
            for index in 0..<layout.slotCount where layout.properties[index].isStored && object.slotDiffersFromCommitted(index) {
                objectChanged.insert(index)
            }
            let saved = object.slots
            object.committed = current
            object.loadSlots()
            for index in objectChanged {
                let storeChanged = previous.map { index < $0.values.count && $0.values[index] != current.values[index] } ?? true
                if storeTrumps && storeChanged && !layout.isRelationship[index] { continue }
                object.slots[index] = saved[index]
            }
        }
    }

    // MARK: - Constraints

    private func apply(_ conflict: NSConstraintConflict) {
        guard let context = conflict.conflictingObjects.first?.managedObjectContext else { return }
        let objectWins = mergeType == .mergeByPropertyObjectTrumpMergePolicyType || mergeType == .overwriteMergePolicyType
        if let databaseSnapshot = conflict.storeSnapshot {
            // An insert that collides with a stored row becomes an update of that row.
            for object in conflict.conflictingObjects where object.insertedFlag {
                let values = object.slots
                context.inserted[ObjectIdentifier(object)] = nil
                context.insertionOrder.removeAll { $0 === object }
                object.insertedFlag = false
                if let existing = context.registeredObject(for: databaseSnapshot.objectID), existing !== object {
                    context.unregister(existing)
                }
                context.assignPermanentID(databaseSnapshot.objectID, to: object)
                object.committed = databaseSnapshot
                object.loadSlots()
                if objectWins {
                    for index in 0..<object.layout.slotCount where object.layout.properties[index].isStored {
                        if case .toMany(let storage) = values[index], storage.objects.isEmpty { continue }
                        object.slots[index] = values[index]
                    }
                } else {
                    // The store's values win; keep the object's values only where the store has none.
                    for index in 0..<object.layout.slotCount where object.layout.properties[index].isStored {
                        if case .value(.null) = object.slots[index], case .value(let mine) = values[index], !mine.isNull {
                            object.slots[index] = values[index]
                        }
                    }
                }
                context.noteUpdated(object)
            }
            return
        }
        // Several inserted objects share a key: keep one, fold the others into it.
        let inserted = conflict.conflictingObjects.filter(\.insertedFlag)
        guard let survivor = objectWins ? inserted.last : inserted.first else { return }
        for object in inserted where object !== survivor {
            context.delete(object)
        }
    }
}

/// The merge policy that reports conflicts (Apple's default).
nonisolated(unsafe) public let NSErrorMergePolicy: Any = NSMergePolicy.error
/// Per property, the store's changes win.
nonisolated(unsafe) public let NSMergeByPropertyStoreTrumpMergePolicy: Any = NSMergePolicy.mergeByPropertyStoreTrump
/// Per property, the object's changes win.
nonisolated(unsafe) public let NSMergeByPropertyObjectTrumpMergePolicy: Any = NSMergePolicy.mergeByPropertyObjectTrump
/// The object's state overwrites the store's.
nonisolated(unsafe) public let NSOverwriteMergePolicy: Any = NSMergePolicy.overwrite
/// The store's state replaces the object's changes.
nonisolated(unsafe) public let NSRollbackMergePolicy: Any = NSMergePolicy.rollback

/// An optimistic-locking conflict: the object's row changed in the store since the object read it.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsmergeconflict>.
open class NSMergeConflict: NSObject {
    /// The object whose save conflicted.
    public let sourceObject: NSManagedObject
    /// The object's own values at save time.
    public let objectSnapshot: [String: Any]?
    /// The values the object last read from the store.
    public let cachedSnapshot: [String: Any]?
    /// The values now in the store (nil when the row was deleted).
    public let persistedSnapshot: [String: Any]?
    /// The row's version in the store.
    public let newVersionNumber: Int
    /// The version the object read.
    public let oldVersionNumber: Int
    package let storeSnapshot: RowSnapshot?

    package init(source: NSManagedObject, newVersion: Int, oldVersion: Int, cachedSnapshot: [String: Any]?,
                 persistedSnapshot: [String: Any]?, storeSnapshot: RowSnapshot?) {
        self.sourceObject = source
        self.objectSnapshot = source.publicValues(of: RowSnapshot(objectID: source.objectID, version: 0, values: source.currentStoreValues()))
        self.cachedSnapshot = cachedSnapshot
        self.persistedSnapshot = persistedSnapshot
        self.newVersionNumber = newVersion
        self.oldVersionNumber = oldVersion
        self.storeSnapshot = storeSnapshot
        super.init()
    }
}

/// A uniqueness-constraint conflict found on save.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsconstraintconflict>.
open class NSConstraintConflict: NSObject {
    /// The property names of the violated constraint.
    public let constraint: [String]
    /// The stored object that holds the key, when the conflict is with the store.
    public let databaseObject: NSManagedObject?
    /// The stored object's values.
    public let databaseSnapshot: [String: Any]?
    /// The context's objects that violate the constraint.
    public let conflictingObjects: [NSManagedObject]
    /// The conflicting objects' last saved values.
    public let conflictingSnapshots: [[String: Any]]
    /// The values the constraint found, keyed by property name.
    public var constraintValues: [String: Any] {
        guard let object = conflictingObjects.first else { return [:] }
        return object.dictionaryWithValues(forKeys: constraint)
    }
    package let storeSnapshot: RowSnapshot?

    package init(constraint: [String], databaseObject: NSManagedObject?, databaseSnapshot: [String: Any]?,
                 conflictingObjects: [NSManagedObject], conflictingSnapshots: [[String: Any]], storeSnapshot: RowSnapshot?) {
        self.constraint = constraint
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots
        self.storeSnapshot = storeSnapshot
        super.init()
    }
}
