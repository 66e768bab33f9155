import Foundation
import GRDB

/// The attributes of one concrete entity whose values a deleted row leaves in persistent
/// history (its tombstone), and how to read them from the row's columns.
///
/// The one definition both deletion paths use, so a save's delete and a batch delete of equal
/// rows record equal tombstones: a save reads the values its context holds or else selects these
/// columns (`SQLiteStore.tombstone(_:db:store:)`); a batch delete has its `DELETE` return them
/// (`RETURNING Z_PK, <columns>`). Columns decode as the row decoder's attribute columns do.
struct SQLiteTombstoneColumns: Sendable {
    /// One preserved attribute.
    struct Column: Sendable {
        /// The attribute's slot in the entity's layout.
        let slot: Int
        let name: String
        /// Its column in the entity's table.
        let column: String
        let type: NSAttributeType
    }

    let columns: [Column]

    /// The preserved attributes of `entity` (inherited ones included), or nil when it has none:
    /// stored attributes with `preservesValueInHistoryOnDeletion`, never those whose values may
    /// be stored outside the row (their bytes are not the row's to keep).
    init?(entity: NSEntityDescription, table: SQLTable) {
        let layout = entity.layout
        var columns: [Column] = []
        for slot in layout.storedAttributeIndices {
            guard let attribute = layout.properties[slot] as? NSAttributeDescription,
                  attribute.preservesValueInHistoryOnDeletion, !attribute.allowsExternalBinaryDataStorage,
                  let column = table.valueColumn(for: attribute) else { continue }
            columns.append(Column(slot: slot, name: attribute.name, column: column.name, type: attribute.attributeType))
        }
        guard !columns.isEmpty else { return nil }
        self.columns = columns
    }

    /// The column names, in order, for a `SELECT` or a `RETURNING` list.
    var columnNames: [String] { columns.map(\.column) }

    /// The tombstone from a row's values in layout order, or nil when one of them was not read
    /// (the caller then reads the row).
    func tombstone(from values: StoreValues, slotCount: Int) -> [String: StoreValue]? {
        guard values.count == slotCount else { return nil }
        var tombstone: [String: StoreValue] = [:]
        for column in columns {
            let value = values[column.slot]
            if value == .unloaded { return nil }
            tombstone[column.name] = value
        }
        return tombstone
    }

    /// The tombstone from the row a statement is positioned on, whose columns from `first` on
    /// are `columnNames`.
    func tombstone(_ handle: SQLiteStatement, from first: Int32) -> [String: StoreValue] {
        var tombstone: [String: StoreValue] = [:]
        tombstone.reserveCapacity(columns.count)
        for (offset, column) in columns.enumerated() {
            // A tombstone records a row being deleted, for history; a value that does not
            // decode is recorded as none rather than failing the delete.
            tombstone[column.name] = SQLiteRowDecoder.storeValue(handle, first + Int32(offset), column.type) ?? .null
        }
        return tombstone
    }
}
