import Foundation

// MARK: - Undo values

/// One slot's value as undo keeps it: relationships resolved to objects, a to-many as a copy of
/// its members (the live `RelationshipStorage` keeps its identity and `committedIDs`).
package enum UndoSlotValue {
    case store(StoreValue)
    case custom(Any?)
    case toOne(NSManagedObject?)
    case toMany(OrderedSetStorage)

    /// Whether two values are the same (custom values are never compared: always "changed").
    func isSame(as other: UndoSlotValue) -> Bool {
        switch (self, other) {
        case (.store(let a), .store(let b)): return a == b
        case (.toOne(let a), .toOne(let b)): return a === b
        case (.toMany(let a), .toMany(let b)): return a.elements.elementsEqual(b.elements, by: ===)
        default: return false
        }
    }
}

// MARK: - Undo steps

/// One object's change in one undo step: its slots and whether it was in the graph, before and after.
struct UndoObjectChange {
    let object: NSManagedObject
    /// Whether the object was inserted or fetched and not deleted, before and after the step.
    let wasLive: Bool
    let isLive: Bool
    /// The changed slots, with their values before and after (same order).
    let indices: [Int]
    let before: [UndoSlotValue]
    let after: [UndoSlotValue]
}

/// The changes one `processPendingChanges()` made undoable; the undo and the redo action share it.
final class UndoStep {
    let changes: [UndoObjectChange]

    init(changes: [UndoObjectChange]) {
        self.changes = changes
    }
}

// MARK: - Tracker

/// The context's undo bookkeeping, present while `undoManager` is set: what each object changed
/// in the current batch looked like before it (captured at its first change), turned into one
/// `UndoStep` at `processPendingChanges()`.
///
/// Objects are held strongly until the step is taken, and then by the undo actions: a deleted
/// object must outlive its save for undo to bring it back.
package final class ContextUndoTracker {
    /// Values before the batch, for one object.
    final class Capture {
        let object: NSManagedObject
        let wasLive: Bool
        var before: [Int: UndoSlotValue] = [:]

        init(object: NSManagedObject, wasLive: Bool) {
            self.object = object
            self.wasLive = wasLive
        }
    }

    let manager: UndoManager
    private var observer: (any NSObjectProtocol)?
    private var captures: [ObjectIdentifier: Capture] = [:]
    /// Captures in the order objects first changed, so steps replay deterministically.
    private var order: [Capture] = []
    /// Set while the context processes changes because the manager posted a checkpoint: the
    /// manager is then closing (or about to read) a group itself, so the context must not close it.
    var isInCheckpoint = false

    init(manager: UndoManager, context: NSManagedObjectContext) {
        self.manager = manager
        // Apple's context processes its pending changes when its undo manager checkpoints, so
        // an undo, a redo or a closing group always sees the latest changes recorded first.
        observer = NotificationCenter.default.addObserver(forName: .NSUndoManagerCheckpoint, object: manager, queue: nil) { [weak context] _ in
            context?.processPendingChangesForUndoCheckpoint()
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    // MARK: - Capturing

    /// Keeps slot `index` of `object` as it was before the batch (the first time it changes).
    func willChange(_ object: NSManagedObject, slot index: Int, in context: NSManagedObjectContext) {
        guard manager.isUndoRegistrationEnabled else { return }
        let capture = self.capture(of: object, in: context)
        if capture.before[index] == nil {
            capture.before[index] = Self.value(of: object, at: index)
        }
    }

    /// Keeps whether `object` was in the graph before the batch (an insert or delete is coming).
    func willChangeMembership(of object: NSManagedObject, in context: NSManagedObjectContext) {
        guard manager.isUndoRegistrationEnabled else { return }
        _ = capture(of: object, in: context)
    }

    /// Prepares a delete: the object's to-many relationships are loaded now, so that an undo
    /// after the deletion was saved (the row is gone) still knows their members.
    func willDelete(_ object: NSManagedObject, in context: NSManagedObjectContext) {
        guard manager.isUndoRegistrationEnabled else { return }
        _ = capture(of: object, in: context)
        for index in object.layout.toManyIndices {
            _ = object.loadedToMany(at: index)
        }
    }

    private func capture(of object: NSManagedObject, in context: NSManagedObjectContext) -> Capture {
        let key = ObjectIdentifier(object)
        if let capture = captures[key] { return capture }
        let capture = Capture(object: object, wasLive: Self.isLive(object, in: context))
        captures[key] = capture
        order.append(capture)
        return capture
    }

    /// Forgets the batch's captures (rollback, reset, registration disabled).
    func discardCaptures() {
        captures = [:]
        order = []
    }

    // MARK: - Taking a step

    /// The batch's changes as one step (nil when nothing changed), and a fresh batch.
    func takeStep(in context: NSManagedObjectContext) -> UndoStep? {
        guard !order.isEmpty else { return nil }
        defer { discardCaptures() }
        var changes: [UndoObjectChange] = []
        for capture in order {
            let object = capture.object
            let isLive = Self.isLive(object, in: context)
            var indices: [Int] = []
            var before: [UndoSlotValue] = []
            var after: [UndoSlotValue] = []
            // A refresh that discarded the object's changes made them not undoable.
            if !object.faulted {
                for (index, old) in capture.before.sorted(by: { $0.key < $1.key }) {
                    let new = Self.value(of: object, at: index)
                    if old.isSame(as: new) { continue }
                    indices.append(index)
                    before.append(old)
                    after.append(new)
                }
            }
            if indices.isEmpty && capture.wasLive == isLive { continue }
            changes.append(UndoObjectChange(object: object, wasLive: capture.wasLive, isLive: isLive,
                                            indices: indices, before: before, after: after))
        }
        return changes.isEmpty ? nil : UndoStep(changes: changes)
    }

    // MARK: - Slot values

    /// Whether the object is in the context's graph: registered and not deleted.
    static func isLive(_ object: NSManagedObject, in context: NSManagedObjectContext) -> Bool {
        object._context === context && !object.deletedFlag
    }

    /// The current value of a slot of a fired object, relationship faults loaded.
    static func value(of object: NSManagedObject, at index: Int) -> UndoSlotValue {
        switch object.slots[index] {
        case .value(let value):
            if object.layout.isRelationship[index] { return .toOne(object.resolveToOne(at: index)) }
            return .store(value)
        case .custom(let value):
            return .custom(value)
        case .toOne(let destination):
            return .toOne(destination)
        case .toMany(let storage):
            return .toMany(storage.objects)
        case .unloadedToMany:
            return .toMany(object.loadedToMany(at: index).objects)
        }
    }

    /// Writes a slot back without inverse maintenance: the step holds both sides of every change.
    static func restore(_ value: UndoSlotValue, of object: NSManagedObject, at index: Int) {
        switch value {
        case .store(let value): object.slots[index] = .value(value)
        case .custom(let value): object.slots[index] = .custom(value)
        case .toOne(let destination): object.slots[index] = .toOne(destination)
        case .toMany(let members): object.loadedToMany(at: index).objects = members
        }
    }
}

// MARK: - Object hook

extension NSManagedObject {
    /// Tells the context's undo tracker that slot `index` is about to change; called by every
    /// setter before it writes, after the fault fired. With no undo manager it costs one check.
    @inline(__always)
    package func willChangeSlot(_ index: Int) {
        withContext { context in
            if let tracker = context.undoTracker { tracker.willChange(self, slot: index, in: context) }
        }
    }
}
