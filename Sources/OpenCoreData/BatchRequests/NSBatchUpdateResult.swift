import Foundation

/// What executing an `NSBatchUpdateRequest` returns: `result` in the shape `resultType` names.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchupdateresult>.
open class NSBatchUpdateResult: NSPersistentStoreResult {
    /// `true`, an array of `NSManagedObjectID`s, or a count (`NSNumber`), as `resultType` says.
    public let result: Any?
    /// The request's result type.
    public let resultType: NSBatchUpdateRequestResultType

    init(result: Any?, resultType: NSBatchUpdateRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
