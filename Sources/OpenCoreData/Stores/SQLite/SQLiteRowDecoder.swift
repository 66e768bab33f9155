import Foundation
import GRDB
import GRDBSQLite

/// Reads the rows of one entity (and optionally its subentities) straight into snapshots.
///
/// The selected columns and, per `Z_ENT`, where each layout slot comes from are worked out
/// once; reading a row is then a loop over column indices with no name lookups.
///
/// `@unchecked Sendable`: immutable after init; built from a frozen model.
package final class SQLiteRowDecoder: @unchecked Sendable {
    /// Where a snapshot slot's value comes from.
    enum SlotSource {
        case null
        case unloaded
        case attribute(column: Int32, type: NSAttributeType)
        /// An attribute whose values may be stored outside the row (`SQLiteExternalData`).
        case externalAttribute(column: Int32, type: NSAttributeType)
        case toOne(column: Int32, entityTypeColumn: Int32?, destination: NSEntityDescription)
        /// A composite attribute: its element columns, in `leaves` order (-1: not selected).
        case composite(columns: [Int32], types: [NSAttributeType], attribute: NSCompositeAttributeDescription)
    }

    /// How to read the rows of one entity. A class with its sources in a buffer it owns, so
    /// that using it per row copies and retains nothing.
    final class EntityPlan {
        let entity: NSEntityDescription
        let root: NSEntityDescription
        let slots: UnsafeMutableBufferPointer<SlotSource>

        init(entity: NSEntityDescription, slots: [SlotSource]) {
            self.entity = entity
            self.root = entity.rootEntity
            self.slots = .allocate(capacity: slots.count)
            _ = self.slots.initialize(from: slots)
        }

        deinit {
            slots.deinitialize()
            slots.deallocate()
        }
    }

    package let table: SQLTable
    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.<columns>…`
    package let selection: [SQLFragment]
    /// The plan of each entity this decoder reads, indexed by entity number (`Z_ENT`).
    private let plans: [EntityPlan?]
    private let schema: SQLStoreSchema
    /// Where the values of external-storage attributes are read from; nil reads the column as it is.
    private let externalData: SQLiteExternalData?

    /// - Parameters:
    ///   - entity: the entity whose rows are read.
    ///   - includesSubentities: whether rows of its subentities are read too.
    ///   - dialect: the dialect of the selected columns.
    ///   - alias: the table alias in the query.
    ///   - externalData: the store's external-data folder, for attributes with
    ///     `allowsExternalBinaryDataStorage` (only their columns take that path, decided here).
    package init(schema: SQLStoreSchema, dialect: any SQLDialect, entity: NSEntityDescription, includesSubentities: Bool,
                 alias: String = SQLTranslationState.rootAlias, externalData: SQLiteExternalData? = nil) {
        let table = schema.table(for: entity)!
        self.table = table
        self.schema = schema
        self.externalData = externalData
        let readEntities = includesSubentities ? entity.selfAndDescendants : [entity]
        // The columns of the entity's ancestors and of every entity read, in one pass over the table.
        let selectedColumns = table.columnIndices(forAnyOf: [entity], includingDescendants: includesSubentities)
        var position: [Int: Int32] = [:]
        for (offset, index) in selectedColumns.enumerated() { position[index] = Int32(offset + 3) }
        self.selection = [dialect.column("Z_PK", of: alias), dialect.column("Z_ENT", of: alias), dialect.column("Z_OPT", of: alias)]
            + selectedColumns.map { dialect.column(table.columns[$0].name, of: alias) }

        var plans: [Int: EntityPlan] = [:]
        for readEntity in readEntities {
            let layout = readEntity.layout
            var slots: [SlotSource] = []
            slots.reserveCapacity(layout.slotCount)
            for property in layout.properties {
                let key = ObjectIdentifier(property)
                guard property.isStored else { slots.append(.null); continue }
                if let composite = property as? NSCompositeAttributeDescription {
                    let indices = table.compositeColumnsByProperty[key] ?? []
                    slots.append(.composite(columns: indices.map { position[$0] ?? -1 }, types: composite.leaves.map(\.attribute.attributeType),
                                            attribute: composite))
                } else if let attribute = property as? NSAttributeDescription {
                    if let index = table.valueColumnByProperty[key], let column = position[index] {
                        if externalData != nil && SQLiteExternalData.isExternal(attribute) {
                            slots.append(.externalAttribute(column: column, type: attribute.attributeType))
                        } else {
                            slots.append(.attribute(column: column, type: attribute.attributeType))
                        }
                    } else {
                        slots.append(.null)
                    }
                } else if let relationship = property as? NSRelationshipDescription {
                    if relationship.isToMany {
                        slots.append(.unloaded)
                    } else if let index = table.valueColumnByProperty[key], let column = position[index], let destination = relationship.destinationEntity {
                        let typeColumn = table.entityTypeColumnByProperty[key].flatMap { position[$0] }
                        slots.append(.toOne(column: column, entityTypeColumn: typeColumn, destination: destination))
                    } else {
                        slots.append(.null)
                    }
                } else {
                    slots.append(.null)
                }
            }
            plans[schema.entityNumber(of: readEntity)] = EntityPlan(entity: readEntity, slots: slots)
        }
        // Entity numbers are checked at open (1…SQLiteStoreFileCheck.maximumEntityNumber); the
        // bounds here keep a number that slipped through from sizing the array.
        let numbers = plans.keys.filter { $0 >= 0 && $0 <= SQLiteStoreFileCheck.maximumEntityNumber }
        var byNumber = [EntityPlan?](repeating: nil, count: (numbers.max() ?? -1) + 1)
        for number in numbers { byNumber[number] = plans[number] }
        self.plans = byNumber
    }

    /// Decodes every row a statement returns. `db` is the statement's connection (external
    /// values may need a look at other rows there).
    ///
    /// - Throws: `NSFileReadCorruptFileError` (259) for a row whose `Z_PK` or `Z_ENT` is not an
    ///   integer, whose `Z_ENT` names no entity of the model, or whose value does not decode as
    ///   its attribute's type; an unreadable external-data file throws too. A row of an entity
    ///   of the model that the request does not read (another entity sharing the table) is
    ///   left out: the SQL filters on `Z_ENT` then, so such a row only comes from a query
    ///   without that filter.
    package func decodeAll(_ statement: Statement, arguments: StatementArguments, store: NSPersistentStore, db: Database,
                           into result: inout [RowSnapshot]) throws {
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        let handle = statement.sqliteStatement
        let store = store.handle
        // Rows of one fetch are nearly always of one entity: its plan is held across rows.
        var planNumber = -1
        var plan: EntityPlan?
        while try cursor.next() != nil {
            guard let primaryKey = Self.integer(handle, 0) else {
                throw unreadableRow("a row has a Z_PK that is not an integer", store: store)
            }
            guard let number = Self.integer(handle, 1).map(Int.init) else {
                throw unreadableRow("the row Z_PK \(primaryKey) has no integer Z_ENT", store: store)
            }
            if number != planNumber {
                planNumber = number
                plan = number >= 0 && number < plans.count ? plans[number] : nil
            }
            guard let plan else {
                // Another entity of the model sharing the table is not this request's; a number
                // that names no entity is a row nobody can read, and reading it as absent would
                // show data loss as nothing.
                if let other = schema.entity(number: number), table.entities.contains(where: { $0 === other }) { continue }
                throw unreadableRow("the row Z_PK \(primaryKey) has Z_ENT \(number), which is no entity of the model stored in this table", store: store)
            }
            result.append(try decodeRow(handle, plan: plan, primaryKey: primaryKey, store: store, db: db))
        }
    }

    /// The error of a row that cannot be read.
    private func unreadableRow(_ reason: String, store: StoreHandle) -> NSError {
        SQLiteStoreErrors.unreadableRow("\(table.name): \(reason)", url: store.store?.url)
    }

    /// Decodes the row a statement is positioned on.
    @inline(__always)
    private func decodeRow(_ handle: SQLiteStatement, plan: EntityPlan, primaryKey: Int64, store: StoreHandle, db: Database) throws -> RowSnapshot {
        let version = Self.integer(handle, 2) ?? 0
        let slots = plan.slots
        // The first slot that did not decode, and why; every slot is still initialized (with
        // NULL) so the buffer is whole, and the row is then thrown away with an error.
        var failure: (slot: Int, reason: String)?
        // An external file that cannot be read keeps its own (file) error.
        var fileError: NSError?
        let values = StoreValues(unsafeUninitializedCount: slots.count) { base in
            var holdsReferences = false
            for index in 0..<slots.count {
                var value: StoreValue
                switch slots[index] {
                case .null:
                    value = .null
                case .unloaded:
                    value = .unloaded
                case .attribute(let column, let type):
                    if let decoded = Self.storeValue(handle, column, type) {
                        value = decoded
                    } else {
                        value = .null
                        if failure == nil { failure = (index, Self.undecodable(handle, column, type)) }
                    }
                    if value.holdsReference { holdsReferences = true }
                case .externalAttribute(let column, let type):
                    do {
                        value = try externalValue(handle, column, type, db: db)
                    } catch {
                        value = .null
                        if failure == nil {
                            failure = (index, (error as NSError).localizedDescription)
                            fileError = error as NSError
                        }
                    }
                    if value.holdsReference { holdsReferences = true }
                case .composite(let columns, let types, let composite):
                    var leaves: [StoreValue] = []
                    leaves.reserveCapacity(types.count)
                    for (offset, type) in types.enumerated() {
                        let column = offset < columns.count ? columns[offset] : -1
                        guard column >= 0 else { leaves.append(.null); continue }
                        if let decoded = Self.storeValue(handle, column, type) {
                            leaves.append(decoded)
                        } else {
                            // An element that does not decode fails the row, as an attribute does.
                            leaves.append(.null)
                            if failure == nil { failure = (index, Self.undecodable(handle, column, type)) }
                        }
                    }
                    value = CompositeCoding.storeValue(leafValues: leaves, composite: composite)
                    if value.holdsReference { holdsReferences = true }
                case .toOne(let column, let typeColumn, let destination):
                    if let decoded = toOne(handle, column, typeColumn, destination, store: store) {
                        value = decoded
                    } else {
                        value = .null
                        if failure == nil { failure = (index, Self.undecodable(handle, column, .integer64AttributeType)) }
                    }
                    if value.holdsReference { holdsReferences = true }
                }
                (base + index).initialize(to: value)
            }
            return holdsReferences
        }
        if let fileError { throw fileError }
        if let failure {
            let property = plan.entity.layout.properties[failure.slot]
            let kind = property is NSRelationshipDescription ? "relationship" : "attribute"
            throw unreadableRow("the \(kind) '\(property.name)' of entity '\(plan.entity.name ?? "?")' in row Z_PK \(primaryKey): \(failure.reason)", store: store)
        }
        return RowSnapshot(objectID: NSManagedObjectID(entity: plan.entity, root: plan.root, primaryKey: primaryKey, handle: store),
                           version: version, values: values)
    }

    /// Why a column's value does not decode as an attribute type.
    private static func undecodable(_ handle: SQLiteStatement, _ column: Int32, _ type: NSAttributeType) -> String {
        let stored: String
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: stored = "an INTEGER"
        case SQLITE_FLOAT: stored = "a REAL"
        case SQLITE_TEXT: stored = "TEXT"
        case SQLITE_BLOB: stored = "a BLOB of \(sqlite3_column_bytes(handle, column)) bytes"
        default: stored = "a value"
        }
        let name = String(cString: sqlite3_column_name(handle, column))
        return "its column \(name) holds \(stored) that is no \(type.xmlName) value"
    }

    /// A to-one relationship's destination ID, typed by the row's entity-type column if it has
    /// one; nil when the foreign key is neither NULL nor an integer.
    private func toOne(_ handle: SQLiteStatement, _ column: Int32, _ typeColumn: Int32?, _ destination: NSEntityDescription,
                       store: StoreHandle) -> StoreValue? {
        guard let key = Self.integer(handle, column) else {
            return sqlite3_column_type(handle, column) == SQLITE_NULL ? .null : nil
        }
        var target = destination
        if let typeColumn, let number = Self.integer(handle, typeColumn),
           let typed = schema.entity(number: Int(number)), typed.isKindOf(entity: destination) {
            target = typed
        }
        return .objectID(NSManagedObjectID(entity: target, primaryKey: key, handle: store))
    }

    /// An external-storage attribute's value: the file's bytes when the column holds a reference.
    private func externalValue(_ handle: SQLiteStatement, _ column: Int32, _ type: NSAttributeType, db: Database) throws -> StoreValue {
        guard let externalData else {
            guard let value = Self.storeValue(handle, column, type) else {
                throw SQLiteStoreErrors.unreadableRow(Self.undecodable(handle, column, type), url: nil)
            }
            return value
        }
        return try externalData.storeValue(DatabaseValue(sqliteStatement: handle, index: column), type: type, db: db)
    }

    // MARK: - Columns

    // The common column types are read with the C API directly; GRDB's DatabaseValue (an enum
    // built per column, then converted) is the general path for everything else.

    /// An integer column (`Z_PK`, `Z_ENT`, `Z_OPT`, a foreign key); nil when NULL.
    @inline(__always)
    static func integer(_ handle: SQLiteStatement, _ column: Int32) -> Int64? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return sqlite3_column_int64(handle, column)
        case SQLITE_NULL: return nil
        default: return SQLiteValueCoding.integer(DatabaseValue(sqliteStatement: handle, index: column))
        }
    }

    /// An attribute column in store form; nil when its value does not decode as `type`.
    @inline(__always)
    static func storeValue(_ handle: SQLiteStatement, _ column: Int32, _ type: NSAttributeType) -> StoreValue? {
        // One sqlite3_column_* call per column: the sqlite3_value_* accessors on the column's
        // value are cheaper than a second sqlite3_column_* call, which checks the statement again.
        guard let value = sqlite3_column_value(handle, column) else { return .null }
        let columnType = sqlite3_value_type(value)
        if columnType == SQLITE_NULL { return .null }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if columnType == SQLITE_INTEGER { return .int(sqlite3_value_int64(value)) }
        case .doubleAttributeType, .floatAttributeType:
            if columnType == SQLITE_FLOAT { return .double(sqlite3_value_double(value)) }
        case .booleanAttributeType:
            if columnType == SQLITE_INTEGER { return .int(sqlite3_value_int64(value) != 0 ? 1 : 0) }
        case .dateAttributeType:
            if columnType == SQLITE_FLOAT { return .date(Date(timeIntervalSinceReferenceDate: sqlite3_value_double(value))) }
        default:
            break
        }
        if columnType == SQLITE_TEXT {
            // Read with the byte count, not as a C string (GRDB's path): text holding U+0000
            // comes back whole, as it was saved.
            let string = text(value)
            if type == .stringAttributeType { return .string(string) }
            return SQLiteValueCoding.storeValue(string.databaseValue, type: type)
        }
        return SQLiteValueCoding.storeValue(DatabaseValue(sqliteStatement: handle, index: column), type: type)
    }

    /// A TEXT value's string, all of its bytes (NULs included).
    @inline(__always)
    static func text(_ value: OpaquePointer) -> String {
        guard let bytes = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
