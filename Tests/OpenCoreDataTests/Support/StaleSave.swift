import Foundation
import Testing
@testable import OpenCoreData

/// The second half of a two-context conflict: a context changes an object another save has
/// changed since the context read it, and saves.
enum StaleSave {
    /// Sets the held object's title to "Second" and saves its context under
    /// `NSMergeByPropertyObjectTrumpMergePolicy` (which must succeed) or `NSErrorMergePolicy`,
    /// under which Apple's save fails with `NSManagedObjectMergeError`: one `NSMergeConflict`
    /// for the object, whose persisted snapshot holds `persistedTitle`, and the change still pending.
    static func save(_ context: NSManagedObjectContext, _ held: ObjectHolder, objectTrump: Bool,
                     persistedTitle: String, _ label: String) throws {
        try context.performAndWait {
            context.mergePolicy = objectTrump ? NSMergePolicy.mergeByPropertyObjectTrump : NSMergePolicy.error
            let object = try #require(held.object)
            object.setValue("Second", forKey: "title")
            if objectTrump {
                try context.save()
                return
            }
            do {
                try context.save()
                Issue.record("A stale save succeeded under NSErrorMergePolicy (\(label)).")
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError, "\(label)")
                let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
                #expect(conflicts?.count == 1, "\(label)")
                #expect(conflicts?.first?.sourceObject === object, "\(label)")
                #expect(conflicts?.first?.persistedSnapshot?["title"] as? String == persistedTitle, "\(label)")
                #expect(object.hasChanges, "the failed save leaves the change pending (\(label))")
            }
        }
    }
}
