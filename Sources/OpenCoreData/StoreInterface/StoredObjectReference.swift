import Foundation

/// A value that stands for a stored object, such as a managed object used as a predicate
/// constant (`parent == %@`). Stores compare such values by their object IDs without knowing
/// the object graph; `NSManagedObject` conforms.
package protocol StoredObjectReference: AnyObject {
    /// The ID of the object the value stands for.
    var objectID: NSManagedObjectID { get }
}
