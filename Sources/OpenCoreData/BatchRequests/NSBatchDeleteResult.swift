import Foundation

/// What executing an `NSBatchDeleteRequest` returns: `result` in the shape `resultType` names.
///
/// Mirrors <https://developer.apple.com/documentation/coredata/nsbatchdeleteresult>.
open class NSBatchDeleteResult: NSPersistentStoreResult {
    /// `true`, an array of `NSManagedObjectID`s, or a count (`NSNumber`), as `resultType` says.
    public let result: Any?
    /// The request's result type.
    public let resultType: NSBatchDeleteRequestResultType

    init(result: Any?, resultType: NSBatchDeleteRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
