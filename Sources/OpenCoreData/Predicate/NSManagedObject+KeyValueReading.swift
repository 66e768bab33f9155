import Foundation

// MARK: - KeyValueReading

/// Managed objects are read by predicates and sort descriptors through `value(forKey:)`.
extension NSManagedObject: KeyValueReading {}
