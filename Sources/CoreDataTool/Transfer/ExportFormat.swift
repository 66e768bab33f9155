import Foundation

/// The export file: one JSON object, objects keyed by URI, one object per line.
///
/// ```json
/// {
///   "format": "coredata-export",
///   "version": 1,
///   "store": {"path": "…", "uuid": "…", "model": "…"},
///   "entities": {"Car": 3, "Person": 2},
///   "objects": {
///     "x-coredata://UUID/Car/p1": {"entity": "Car", "attributes": {…}, "relationships": {"owner": "x-coredata://UUID/Person/p1"}},
///     …
///   }
/// }
/// ```
enum ExportFormat {
    static let name = "coredata-export"
    static let version = 1
    /// The store metadata key holding the import mapping (source URI → local primary key).
    static let importMapKey = "OCDImportMap"
}
