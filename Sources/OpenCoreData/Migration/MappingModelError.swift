import Foundation

/// A reason a mapping model can't be loaded, turned into an `NSError` by `NSMappingModel.load(from:)`.
struct MappingModelFailure: Error {
    /// The `NSCocoaErrorDomain` code: 259 for a malformed file, 260 for a missing one, 256 for an unreadable one.
    var code: Int
    /// What is wrong, naming the entity mapping and property mapping.
    var reason: String
    var underlying: (any Error)?

    /// The file is malformed or not a mapping model (`NSFileReadCorruptFileError`, 259).
    static func corrupt(_ reason: String, underlying: (any Error)? = nil) -> MappingModelFailure {
        MappingModelFailure(code: NSFileReadCorruptFileError, reason: reason, underlying: underlying)
    }

    /// The file, or a model it refers to, is missing (`NSFileReadNoSuchFileError`, 260).
    static func missing(_ reason: String) -> MappingModelFailure {
        MappingModelFailure(code: NSFileReadNoSuchFileError, reason: reason, underlying: nil)
    }
}

/// Builds the `NSError`s mapping model loading throws: `NSCocoaErrorDomain`, Apple's file codes,
/// and a description naming the file and what is wrong in it.
enum MappingModelError {
    /// The error for a failure while loading the mapping model at `url`.
    ///
    /// Errors of the keyed-archive and XML readers (which describe a "Core Data model") keep their
    /// code and reason and are described as the mapping model's.
    static func make(_ error: any Error, url: URL) -> NSError {
        let failure: MappingModelFailure
        switch error {
        case let known as MappingModelFailure:
            failure = known
        case let error as NSError where error.domain == NSCocoaErrorDomain:
            failure = MappingModelFailure(code: error.code,
                                          reason: error.userInfo[NSLocalizedFailureReasonErrorKey] as? String ?? error.localizedDescription,
                                          underlying: error.userInfo[NSUnderlyingErrorKey] as? NSError)
        default:
            failure = MappingModelFailure(code: NSFileReadUnknownError, reason: "\(error)", underlying: error)
        }
        let (code, reason, underlying) = (failure.code, failure.reason, failure.underlying)
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: "Can't load the mapping model: file '\(url.path)': \(reason).",
            NSLocalizedFailureReasonErrorKey: reason,
            NSFilePathErrorKey: url.path,
            NSURLErrorKey: url,
        ]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }
}
