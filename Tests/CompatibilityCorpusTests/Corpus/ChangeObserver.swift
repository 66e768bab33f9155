// Notification observers with the typed keys and the notification names apps use.
import Foundation
import OpenCoreData

/// Observation blocks are `@Sendable` (on Apple platforms too), so the counts sit behind a lock.
final class ChangeObserver: @unchecked Sendable {
    // @unchecked: `counts` is only touched while holding `lock`; `tokens` only by the owner.
    private let lock = NSLock()
    private var tokens: [NSObjectProtocol] = []
    private var counts = (inserted: 0, savedIDs: [NSManagedObjectID]())

    var insertedCount: Int { lock.withLock { counts.inserted } }
    var savedIDs: [NSManagedObjectID] { lock.withLock { counts.savedIDs } }

    func observe(_ context: NSManagedObjectContext) {
        let center = NotificationCenter.default
        tokens.append(center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { [weak self] note in
            guard let userInfo = note.userInfo else { return }
            if let inserted = userInfo[NSInsertedObjectsKey] as? Set<NSManagedObject> {
                self?.lock.withLock { self?.counts.inserted += inserted.count }
            }
            if let updated = userInfo[NSManagedObjectContext.NotificationKey.updatedObjects.rawValue] as? Set<NSManagedObject> {
                _ = updated.count
            }
            if userInfo[NSManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue] != nil {
                self?.lock.withLock { self?.counts.inserted = 0 }
            }
        })
        tokens.append(center.addObserver(forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: context, queue: nil) { [weak self] note in
            let key = NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue
            if let ids = note.userInfo?[key] as? Set<NSManagedObjectID> {
                self?.lock.withLock { self?.counts.savedIDs.append(contentsOf: ids) }
            }
        })
        tokens.append(center.addObserver(forName: .NSManagedObjectContextDidSaveObjectIDs, object: nil, queue: nil) { _ in })
        tokens.append(center.addObserver(forName: .NSManagedObjectContextDidMergeChangesObjectIDs, object: nil, queue: nil) { _ in })
        tokens.append(center.addObserver(forName: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: nil, queue: nil) { _ in })
        tokens.append(center.addObserver(forName: .NSManagedObjectContextWillSave, object: context, queue: nil) { _ in })
    }

    func observeStores(of coordinator: NSPersistentStoreCoordinator, onChange: @escaping @Sendable ([NSPersistentStore]) -> Void) {
        let center = NotificationCenter.default
        tokens.append(center.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil) { note in
            let added = note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore] ?? []
            let removed = note.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore] ?? []
            _ = note.userInfo?[NSUUIDChangedPersistentStoresKey]
            onChange(added + removed)
        })
        tokens.append(center.addObserver(forName: .NSPersistentStoreCoordinatorStoresWillChange, object: coordinator, queue: nil) { _ in })
        tokens.append(center.addObserver(forName: .NSPersistentStoreCoordinatorWillRemoveStore, object: coordinator, queue: nil) { _ in })
    }

    deinit {
        tokens.forEach(NotificationCenter.default.removeObserver)
    }
}

/// Merging another context's saves by hand, as apps did before automaticallyMergesChangesFromParent.
func mergeSaves(from source: NSManagedObjectContext, into target: NSManagedObjectContext) -> NSObjectProtocol {
    NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: source, queue: nil) { note in
        target.performAndWait {
            target.mergeChanges(fromContextDidSave: note)
        }
    }
}

/// The error codes apps match on.
func describe(_ error: NSError) -> String {
    switch error.code {
    case NSValidationMissingMandatoryPropertyError: return "missing"
    case NSManagedObjectConstraintMergeError: return "constraint merge"
    case NSManagedObjectConstraintValidationError: return "constraint validation"
    case NSManagedObjectMergeError: return "merge"
    case NSPersistentStoreIncompatibleVersionHashError: return "incompatible"
    case NSMigrationError, NSMigrationMissingSourceModelError, NSMigrationMissingMappingModelError: return "migration"
    case NSMigrationConstraintViolationError, NSMigrationCancelledError, NSMigrationManagerSourceStoreError, NSMigrationManagerDestinationStoreError, NSEntityMigrationPolicyError: return "migration"
    case NSInferredMappingModelError, NSExternalRecordImportError: return "mapping"
    case NSPersistentStoreUnsupportedRequestTypeError: return "unsupported request"
    case NSPersistentHistoryTokenExpiredError: return "history expired"
    case NSCoreDataError, NSSQLiteError: return "core data"
    default: return "other"
    }
}
