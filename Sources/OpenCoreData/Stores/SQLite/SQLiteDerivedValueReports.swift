import Foundation
import Synchronization

/// The rows whose derived attributes triggers changed on the store's writer connection.
///
/// Derived-attribute triggers (Apple's and ours) call `NSCoreDataDATrigger…AffectedObjectValue`
/// for each row they update; the store registers those functions to record the row here. A save
/// collects what its transaction changed, so the coordinator can drop those rows from its row
/// cache: a refresh then reads the values SQL computed, as on Apple platforms ("derived values
/// are reflected after save and refresh").
package final class SQLiteDerivedValueReports: Sendable {
    /// A row a trigger reported: its `Z_ENT` and `Z_PK`.
    package struct Row: Hashable, Sendable {
        package let entityNumber: Int64
        package let primaryKey: Int64
    }

    private let rows = Mutex<Set<Row>>([])

    package init() {}

    /// Records a row (called from SQLite while a statement runs on the writer connection).
    package func record(entityNumber: Int64, primaryKey: Int64) {
        _ = rows.withLock { $0.insert(Row(entityNumber: entityNumber, primaryKey: primaryKey)) }
    }

    /// The rows recorded since the last call, forgetting them.
    package func drain() -> Set<Row> {
        rows.withLock { rows in
            defer { rows.removeAll() }
            return rows
        }
    }
}
