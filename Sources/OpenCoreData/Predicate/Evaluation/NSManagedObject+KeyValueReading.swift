import Foundation

// MARK: - KeyValueReading

/// Managed objects are read by predicates and sort descriptors through `value(forKey:)`.
extension NSManagedObject: KeyValueReading {
    /// Whether `key` is a to-many relationship of the object's entity.
    package func isToManyRelationship(_ key: String) -> Bool {
        guard let index = layout.indexByName[key], layout.isRelationship[index] else { return false }
        return (layout.properties[index] as? NSRelationshipDescription)?.isToMany ?? false
    }
}
