import Foundation

/// What executing an `NSBatchInsertRequest` returns: `result` in the shape `resultType` names.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchinsertresult>.
open class NSBatchInsertResult: NSPersistentStoreResult {
    /// `true`, an array of `NSManagedObjectID`s, or a count (`NSNumber`), as `resultType` says.
    public let result: Any?
    /// The request's result type.
    public let resultType: NSBatchInsertRequestResultType

    init(result: Any?, resultType: NSBatchInsertRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
