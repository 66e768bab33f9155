import Foundation
import OpenCoreData

/// One broken validation rule: the object, the key, Apple's error code and the message.
public struct Violation: Sendable, Equatable {
    public var entity: String
    public var uri: String
    public var key: String?
    public var code: Int
    public var message: String

    /// The violations an error from `validateForInsert/Update/Delete` or `save` holds
    /// (`NSValidationMultipleErrorsError` is unpacked from `NSDetailedErrors`).
    static func list(from error: any Error, object: NSManagedObject) -> [Violation] {
        let nsError = error as NSError
        if nsError.code == NSValidationMultipleErrorsError, let details = nsError.userInfo[NSDetailedErrorsKey] as? [Any] {
            return details.flatMap { detail -> [Violation] in
                guard let detail = detail as? NSError else { return [] }
                return list(from: detail, object: object)
            }
        }
        let subject = nsError.userInfo[NSValidationObjectErrorKey] as? NSManagedObject ?? object
        return [Violation(entity: subject.entity.name ?? "?", uri: URIText.of(subject.objectID),
                          key: nsError.userInfo[NSValidationKeyErrorKey] as? String, code: nsError.code,
                          message: ToolError.describe(nsError))]
    }
}
