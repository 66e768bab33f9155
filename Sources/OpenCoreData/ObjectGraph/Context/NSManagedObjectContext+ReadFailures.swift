import Foundation

// MARK: - Reads that failed

/// The reads of a context that failed for a reason other than a row being gone (an SQL or I/O
/// error, a value that does not decode), kept until they surface as thrown errors.
///
/// Apple raises `NSObjectInaccessibleException` ("CoreData could not fulfill a fault") from the
/// accessor; Swift cannot catch that, and nothing from outside may stop the process here. So a
/// fault that cannot be fulfilled stays a fault (`isFault` is true, its values are not replaced by
/// defaults), the accessor that fired it reads no value, and the error is thrown by the next
/// `fetch`, `count(for:)` or `save()` of the context; a save never writes an object whose values
/// or relationships could not be read (docs/Deviations.md, issue 37).
package struct ContextReadFailures {
    /// What could not be read of one object.
    struct Failure {
        var error: NSError
        /// The object's own fault could not be fulfilled.
        var fault = false
        /// The relationships whose faults could not be fired.
        var relationships: Set<String> = []
        var isEmpty: Bool { !fault && relationships.isEmpty }
    }

    /// The first failure not yet thrown by a fetch, count or save.
    var pending: NSError?
    /// The objects with something unread, until a later read of it succeeds.
    var unread: [NSManagedObjectID: Failure] = [:]
}

extension NSManagedObjectContext {
    /// Records that a read for `objectID` (its fault, or `relationship`'s fault when given) failed.
    ///
    /// - Parameter thrown: whether the caller throws the error itself (`existingObject(with:)`);
    ///   it is then not thrown again by the next fetch or save.
    /// - Returns: the error, in Apple's words for a fault, with the store's error underneath.
    @discardableResult
    package func noteReadFailure(_ error: any Error, objectID: NSManagedObjectID, relationship: String? = nil, thrown: Bool = false) -> NSError {
        let underlying = error as NSError
        let what = relationship.map { "the relationship fault '\($0)' of" } ?? "a fault for"
        let reported = NSError(domain: NSCocoaErrorDomain, code: underlying.domain == NSCocoaErrorDomain ? underlying.code : NSCoreDataError, userInfo: [
            NSLocalizedDescriptionKey: "CoreData could not fulfill \(what) '\(objectID.uriRepresentation().absoluteString)': \(underlying.localizedDescription)",
            NSUnderlyingErrorKey: underlying,
            NSAffectedObjectsErrorKey: [objectID],
        ])
        Log.objectGraph.error("\(reported.localizedDescription)")
        if !thrown, readFailures.pending == nil { readFailures.pending = reported }
        var failure = readFailures.unread[objectID] ?? ContextReadFailures.Failure(error: reported)
        failure.error = reported
        if let relationship { failure.relationships.insert(relationship) } else { failure.fault = true }
        readFailures.unread[objectID] = failure
        return reported
    }

    /// Keeps an error a caller without an error channel had to swallow (a `FETCH` expression in an
    /// in-memory evaluation, a fetched results controller's refetch), so that the next fetch,
    /// count or save throws it rather than nobody.
    package func deferReadFailure(_ error: any Error) {
        if readFailures.pending == nil { readFailures.pending = error as NSError }
    }

    /// Forgets a failure of `objectID` once the same read succeeded.
    @inline(__always)
    package func noteReadSucceeded(_ objectID: NSManagedObjectID, relationship: String? = nil) {
        guard !readFailures.unread.isEmpty else { return }
        forgetReadFailure(objectID, relationship: relationship)
    }

    private func forgetReadFailure(_ objectID: NSManagedObjectID, relationship: String?) {
        guard var failure = readFailures.unread[objectID] else { return }
        if let relationship { failure.relationships.remove(relationship) } else { failure.fault = false }
        readFailures.unread[objectID] = failure.isEmpty ? nil : failure
    }

    /// The error of an object whose fault (or `relationship`'s fault) could not be read, if any.
    package func readFailure(of objectID: NSManagedObjectID, relationship: String? = nil) -> NSError? {
        guard let failure = readFailures.unread[objectID] else { return nil }
        if let relationship { return failure.relationships.contains(relationship) ? failure.error : nil }
        return failure.fault ? failure.error : nil
    }

    /// Throws the first read failure not yet thrown (then forgets it): the next fetch, count or
    /// save reports a fault that could not be fulfilled.
    package func throwPendingReadFailure() throws {
        guard let pending = readFailures.pending else { return }
        readFailures.pending = nil
        throw pending
    }

    /// Refuses a save that would write an object whose values or relationships were never read:
    /// its slots hold no data, and writing them would replace the stored row's.
    func checkChangedObjectsWereRead() throws {
        guard !readFailures.unread.isEmpty else { return }
        let unread = (Array(updated.values) + Array(deleted.values)).filter { readFailures.unread[$0.objectID] != nil }
        guard let first = unread.first, let failure = readFailures.unread[first.objectID] else { return }
        throw CoreDataError.make(failure.error.code,
                                 "The context cannot be saved: \(unread.count) changed object(s) could not be read from the store, and saving would write values that were never read. \(failure.error.localizedDescription)",
                                 userInfo: [NSUnderlyingErrorKey: failure.error, NSAffectedObjectsErrorKey: unread])
    }

    /// Forgets every failure (the context was reset, or the objects' changes dropped).
    package func forgetReadFailures(of objectID: NSManagedObjectID? = nil) {
        if let objectID {
            readFailures.unread[objectID] = nil
        } else {
            readFailures = ContextReadFailures()
        }
    }
}
