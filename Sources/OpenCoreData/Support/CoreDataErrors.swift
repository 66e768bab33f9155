import Foundation

// MARK: - Error codes (NSCocoaErrorDomain), as Apple's CoreDataErrors.h

/// Generic validation error.
public let NSManagedObjectValidationError = 1550
/// One or more uniqueness constraints were violated.
public let NSManagedObjectConstraintValidationError = 1551
/// Several validation errors; `NSDetailedErrorsKey` lists them.
public let NSValidationMultipleErrorsError = 1560
/// A non-optional property is nil.
public let NSValidationMissingMandatoryPropertyError = 1570
/// A to-many relationship has too few destination objects.
public let NSValidationRelationshipLacksMinimumCountError = 1580
/// A relationship has too many destination objects.
public let NSValidationRelationshipExceedsMaximumCountError = 1590
/// A Deny delete rule refused the deletion.
public let NSValidationRelationshipDeniedDeleteError = 1600
/// A number is above its maximum.
public let NSValidationNumberTooLargeError = 1610
/// A number is below its minimum.
public let NSValidationNumberTooSmallError = 1620
/// A date is after its maximum.
public let NSValidationDateTooLateError = 1630
/// A date is before its minimum.
public let NSValidationDateTooSoonError = 1640
/// A value is not valid for the attribute.
public let NSValidationInvalidDateError = 1650
/// A string is longer than its maximum.
public let NSValidationStringTooLongError = 1660
/// A string is shorter than its minimum.
public let NSValidationStringTooShortError = 1670
/// A string does not match its regular expression.
public let NSValidationStringPatternMatchingError = 1680
/// A URI is invalid.
public let NSValidationInvalidURIError = 1690

/// A managed object's context is gone.
public let NSManagedObjectContextLockingError = 132000
/// The coordinator could not be locked.
public let NSPersistentStoreCoordinatorLockingError = 132010
/// A fault could not be fulfilled: its row is gone.
public let NSManagedObjectReferentialIntegrityError = 133000
/// An object ID refers to another store.
public let NSManagedObjectExternalRelationshipError = 133010
/// Optimistic locking failed on save.
public let NSManagedObjectMergeError = 133020
/// A uniqueness constraint was violated on save.
public let NSManagedObjectConstraintMergeError = 133021
/// A store has an unknown type.
public let NSPersistentStoreInvalidTypeError = 134000
/// A store type does not match its file.
public let NSPersistentStoreTypeMismatchError = 134010
/// A store could not be made consistent.
public let NSPersistentStoreIncompatibleSchemaError = 134020
/// A store save failed.
public let NSPersistentStoreSaveError = 134030
/// A store is not writable or an operation is not supported.
public let NSPersistentStoreIncompleteSaveError = 134040
/// A save found conflicting changes.
public let NSPersistentStoreSaveConflictsError = 134050
/// A generic Core Data error.
public let NSCoreDataError = 134060
/// An operation is not valid for this store.
public let NSPersistentStoreOperationError = 134070
/// A store could not be opened.
public let NSPersistentStoreOpenError = 134080
/// A store's timeout expired.
public let NSPersistentStoreTimeoutError = 134090
/// A store was passed a request type it does not understand.
public let NSPersistentStoreUnsupportedRequestTypeError = 134091
/// The store's model version hashes do not match the model.
public let NSPersistentStoreIncompatibleVersionHashError = 134100
/// Migration failed.
public let NSMigrationError = 134110
/// Migration failed because a uniqueness constraint was violated.
public let NSMigrationConstraintViolationError = 134111
/// Migration was cancelled.
public let NSMigrationCancelledError = 134120
/// No model matches the store for migration.
public let NSMigrationMissingSourceModelError = 134130
/// No mapping model was found.
public let NSMigrationMissingMappingModelError = 134140
/// Migration failed because of a problem with the source store.
public let NSMigrationManagerSourceStoreError = 134150
/// Migration failed because of a problem with the destination store.
public let NSMigrationManagerDestinationStoreError = 134160
/// An entity migration policy failed.
public let NSEntityMigrationPolicyError = 134170
/// An SQLite error occurred.
public let NSSQLiteError = 134180
/// An inferred mapping model could not be made.
public let NSInferredMappingModelError = 134190
/// The external record is invalid.
public let NSExternalRecordImportError = 134200
/// The history token passed to a persistent history request has expired.
public let NSPersistentHistoryTokenExpiredError = 134301

// MARK: - userInfo keys

/// The object that failed validation.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// The key that failed validation.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// The predicate that failed validation.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// The value that failed validation.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// The underlying errors of `NSValidationMultipleErrorsError`.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// The objects an error concerns.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
/// The stores an error concerns.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
/// The conflicts of a merge error (`[NSMergeConflict]` or `[NSConstraintConflict]`).
public let NSPersistentStoreSaveConflictsErrorKey = "conflictList"
/// The SQLite result code of an `NSSQLiteError`.
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"
/// The entities whose hashes differ, for `NSPersistentStoreIncompatibleVersionHashError`.
package let OCDMismatchedEntitiesErrorKey = "OCDMismatchedEntities"

// MARK: - CocoaError codes

extension CocoaError.Code {
    public static var managedObjectValidation: CocoaError.Code { .init(rawValue: NSManagedObjectValidationError) }
    public static var validationMultipleErrors: CocoaError.Code { .init(rawValue: NSValidationMultipleErrorsError) }
    public static var validationMissingMandatoryProperty: CocoaError.Code { .init(rawValue: NSValidationMissingMandatoryPropertyError) }
    public static var validationRelationshipLacksMinimumCount: CocoaError.Code { .init(rawValue: NSValidationRelationshipLacksMinimumCountError) }
    public static var validationRelationshipExceedsMaximumCount: CocoaError.Code { .init(rawValue: NSValidationRelationshipExceedsMaximumCountError) }
    public static var validationRelationshipDeniedDelete: CocoaError.Code { .init(rawValue: NSValidationRelationshipDeniedDeleteError) }
    public static var validationNumberTooLarge: CocoaError.Code { .init(rawValue: NSValidationNumberTooLargeError) }
    public static var validationNumberTooSmall: CocoaError.Code { .init(rawValue: NSValidationNumberTooSmallError) }
    public static var validationDateTooLate: CocoaError.Code { .init(rawValue: NSValidationDateTooLateError) }
    public static var validationDateTooSoon: CocoaError.Code { .init(rawValue: NSValidationDateTooSoonError) }
    public static var validationInvalidDate: CocoaError.Code { .init(rawValue: NSValidationInvalidDateError) }
    public static var validationStringTooLong: CocoaError.Code { .init(rawValue: NSValidationStringTooLongError) }
    public static var validationStringTooShort: CocoaError.Code { .init(rawValue: NSValidationStringTooShortError) }
    public static var validationStringPatternMatching: CocoaError.Code { .init(rawValue: NSValidationStringPatternMatchingError) }
    public static var managedObjectReferentialIntegrity: CocoaError.Code { .init(rawValue: NSManagedObjectReferentialIntegrityError) }
    public static var managedObjectMerge: CocoaError.Code { .init(rawValue: NSManagedObjectMergeError) }
    public static var managedObjectConstraintMerge: CocoaError.Code { .init(rawValue: NSManagedObjectConstraintMergeError) }
    public static var persistentStoreInvalidType: CocoaError.Code { .init(rawValue: NSPersistentStoreInvalidTypeError) }
    public static var persistentStoreIncompatibleSchema: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleSchemaError) }
    public static var persistentStoreSave: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveError) }
    public static var persistentStoreOperation: CocoaError.Code { .init(rawValue: NSPersistentStoreOperationError) }
    public static var persistentStoreOpen: CocoaError.Code { .init(rawValue: NSPersistentStoreOpenError) }
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleVersionHashError) }
    public static var migration: CocoaError.Code { .init(rawValue: NSMigrationError) }
    public static var migrationMissingSourceModel: CocoaError.Code { .init(rawValue: NSMigrationMissingSourceModelError) }
    public static var sqlite: CocoaError.Code { .init(rawValue: NSSQLiteError) }
    public static var coreData: CocoaError.Code { .init(rawValue: NSCoreDataError) }
}

// MARK: - Building errors

package enum CoreDataError {
    /// An `NSError` in `NSCocoaErrorDomain` with a description and extra userInfo.
    package static func make(_ code: Int, _ description: String, userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = description
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    /// Stops with a message, as Apple raises an exception for a programmer error.
    package static func programmerError(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        fatalError("OpenCoreData: \(message)", file: file, line: line)
    }
}
