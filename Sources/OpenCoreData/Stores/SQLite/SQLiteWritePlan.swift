import Foundation
import GRDB
import Synchronization

/// How one entity's rows are written: the INSERT, UPDATE and DELETE statements, which columns
/// each slot feeds, and how its to-many relationships are kept (join tables, `Z_FOK_` columns,
/// owner columns of to-many relationships without an inverse).
///
/// Every statement's text is built once, through the SQL layer (`SQLInsert`, `SQLUpdate`,
/// `SQLDelete`, `SQLSelect`), when the plan is made (updates once per column set), never per row.
///
/// `@unchecked Sendable`: immutable except for `updateStatements`, which is behind its Mutex.
final class SQLiteWritePlan: @unchecked Sendable {
    /// Where an entity-table column's value comes from.
    enum ColumnSource {
        /// An attribute slot, or a to-one slot's destination key.
        case value(slot: Int)
        /// A to-one slot's destination `Z_ENT`.
        case entityType(slot: Int)
        /// A `Z_FOK_` column, written when the parent's ordered list is.
        case orderKey
        /// One element of a composite slot: its `leaf`-th element value, of `count`.
        case compositeElement(slot: Int, leaf: Int, count: Int)
    }

    /// A to-many relationship kept in a join table, with the statements that keep its rows.
    struct JoinRelationship {
        let slot: Int
        let relationship: NSRelationshipDescription
        let table: SQLJoinTable
        let access: SQLJoinTable.Access
        /// self key → the other side's keys.
        let selectOthersSQL: String
        /// self key: every pair of the object (when it is deleted).
        let deleteBySelfSQL: String
        /// other key: every pair naming the object from the other side (self-inverse tables).
        let deleteByOtherSQL: String
        /// self key, other key: one pair.
        let deletePairSQL: String
        /// self key, other key (, position when ordered): a new pair, or a new position for an existing one.
        let insertSQL: String
        /// position, self key, other key.
        let updateOrderSQL: String?
        /// self key, other key: a pair written only if it is missing (the mirror row of a self-inverse table).
        let insertMirrorSQL: String

        init(slot: Int, relationship: NSRelationshipDescription, table: SQLJoinTable, dialect: any SQLDialect) {
            let access = table.access(for: relationship)
            self.slot = slot
            self.relationship = relationship
            self.table = table
            self.access = access
            let pair = [access.selfColumn, access.otherColumn]
            var select = SQLSelect(from: dialect.identifier(table.name))
            select.columns = [dialect.identifier(access.otherColumn)]
            select.conditions = [dialect.equalsParameter(access.selfColumn)]
            selectOthersSQL = select.render(in: dialect).sql(in: dialect)
            deleteBySelfSQL = SQLDelete(from: table.name, where: [access.selfColumn]).sql(in: dialect)
            deleteByOtherSQL = SQLDelete(from: table.name, where: [access.otherColumn]).sql(in: dialect)
            deletePairSQL = SQLDelete(from: table.name, where: pair).sql(in: dialect)
            let mirror = SQLInsert(into: table.name, columns: pair, onConflict: .ignore)
            insertMirrorSQL = mirror.sql(in: dialect)
            if let order = access.orderColumn {
                insertSQL = SQLInsert(into: table.name, columns: pair + [order], onConflict: .upsert(key: pair, update: [order])).sql(in: dialect)
                updateOrderSQL = SQLUpdate(table.name, set: [order], where: pair).sql(in: dialect)
            } else {
                insertSQL = mirror.sql(in: dialect)
                updateOrderSQL = nil
            }
        }
    }

    /// An ordered to-many whose inverse to-one holds the key: its order lives in the children's `Z_FOK_`.
    struct OrderedChildren {
        let slot: Int
        let childTable: SQLTable
        let orderColumn: String
        /// position, child key.
        let updateOrderSQL: String
    }

    /// A to-many without an inverse kept in Apple's owner column on its destinations' table
    /// (`Z<n><REL>`): a destination has at most one owner.
    struct OwnedDestinations {
        let slot: Int
        let owner: SQLOwnerColumn
        /// owner key → the keys of the destinations that name it.
        let selectOwnedSQL: String
        /// destination key → the owner its column names and its `Z_ENT` (no row: the destination is gone).
        let selectOwnerSQL: String
        /// owner key, destination key: sets the column of a destination that names no owner.
        let claimSQL: String
        /// destination key, owner key: clears the column if it still names this owner.
        let releaseSQL: String
        /// owner key: clears the column of every destination naming it (the owner is deleted).
        let releaseAllSQL: String

        init(slot: Int, owner: SQLOwnerColumn, dialect: any SQLDialect) {
            self.slot = slot
            self.owner = owner
            let table = owner.table.name, column = owner.name
            var owned = SQLSelect(from: dialect.identifier(table))
            owned.columns = [dialect.identifier("Z_PK")]
            owned.conditions = [dialect.equalsParameter(column)]
            selectOwnedSQL = owned.render(in: dialect).sql(in: dialect)
            var current = SQLSelect(from: dialect.identifier(table))
            current.columns = [dialect.identifier(column), dialect.identifier("Z_ENT")]
            current.conditions = [dialect.equalsParameter("Z_PK")]
            selectOwnerSQL = current.render(in: dialect).sql(in: dialect)
            claimSQL = SQLUpdate(table, set: [column], where: ["Z_PK"]).sql(in: dialect)
            var release = SQLUpdate(table, set: [], where: ["Z_PK", column])
            release.set(column, to: SQLFragment("NULL"))
            releaseSQL = release.sql(in: dialect)
            var releaseAll = SQLUpdate(table, set: [], where: [column])
            releaseAll.set(column, to: SQLFragment("NULL"))
            releaseAllSQL = releaseAll.sql(in: dialect)
        }
    }

    let entity: NSEntityDescription
    let table: SQLTable
    let entityNumber: Int64
    /// `INSERT INTO T (Z_PK, Z_ENT, Z_OPT, …) VALUES (?, …)`
    let insertSQL: String
    /// `DELETE FROM T WHERE Z_PK = ?`
    let deleteSQL: String
    let dialect: any SQLDialect
    /// The sources of the insert's columns after `Z_PK, Z_ENT, Z_OPT`.
    let insertColumns: [(column: Int, source: ColumnSource)]
    /// The table columns each slot writes, for updates.
    let columnsBySlot: [Int: [(column: Int, source: ColumnSource)]]
    let joinRelationships: [JoinRelationship]
    let orderedChildren: [OrderedChildren]
    let ownedDestinations: [OwnedDestinations]
    /// The slots of attributes with `allowsExternalBinaryDataStorage`, in column order; empty for
    /// most entities, whose saves then never look at external data.
    let externalSlots: [Int]
    /// `SELECT <external columns> FROM T WHERE Z_PK = ?`: what an update or delete replaces.
    let selectExternalSQL: String?
    /// The attributes a deleted row leaves in persistent history; nil for most entities.
    let tombstoneColumns: SQLiteTombstoneColumns?
    private let updateStatements = Mutex<[[Int]: String]>([:])

    init(entity: NSEntityDescription, schema: SQLStoreSchema, dialect: any SQLDialect) {
        let table = schema.table(for: entity)!
        self.dialect = dialect
        self.entity = entity
        self.table = table
        self.entityNumber = Int64(schema.entityNumber(of: entity))
        let layout = entity.layout
        var insertColumns: [(column: Int, source: ColumnSource)] = []
        var bySlot: [Int: [(column: Int, source: ColumnSource)]] = [:]
        for index in table.columnIndices(for: entity) {
            let column = table.columns[index]
            guard let slot = layout.indexByName[column.property.name] else { continue }
            // A derived attribute's column is the triggers' to write (`SQLiteDerivation`): a value
            // computed in memory from a stale object graph would overwrite what SQL computed.
            if column.property is NSDerivedAttributeDescription { continue }
            let source: ColumnSource
            switch column.role {
            case .attribute, .foreignKey: source = .value(slot: slot)
            case .compositeElement(_, let leaf):
                source = .compositeElement(slot: slot, leaf: leaf, count: table.compositeColumnsByProperty[ObjectIdentifier(column.property)]?.count ?? 0)
            case .entityType: source = .entityType(slot: slot)
            case .orderKey: source = .orderKey
            }
            insertColumns.append((column: index, source: source))
            if case .orderKey = source { continue }
            bySlot[slot, default: []].append((column: index, source: source))
        }
        self.insertColumns = insertColumns
        self.columnsBySlot = bySlot
        var externalSlots: [Int] = [], externalColumns: [String] = []
        for (index, source) in insertColumns {
            guard case .value(let slot) = source, let attribute = table.columns[index].property as? NSAttributeDescription,
                  SQLiteExternalData.isExternal(attribute) else { continue }
            externalSlots.append(slot)
            externalColumns.append(table.columns[index].name)
        }
        self.externalSlots = externalSlots
        self.tombstoneColumns = SQLiteTombstoneColumns(entity: entity, table: table)
        if externalColumns.isEmpty {
            self.selectExternalSQL = nil
        } else {
            var select = SQLSelect(from: dialect.identifier(table.name))
            select.columns = externalColumns.map { dialect.identifier($0) }
            select.conditions = [dialect.equalsParameter("Z_PK")]
            self.selectExternalSQL = select.render(in: dialect).sql(in: dialect)
        }
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + insertColumns.map { table.columns[$0.column].name }
        self.insertSQL = SQLInsert(into: table.name, columns: names).sql(in: dialect)
        self.deleteSQL = SQLDelete(from: table.name, where: ["Z_PK"]).sql(in: dialect)

        var joins: [JoinRelationship] = []
        var ordered: [OrderedChildren] = []
        var owned: [OwnedDestinations] = []
        for slot in layout.toManyIndices {
            guard let relationship = layout.properties[slot] as? NSRelationshipDescription, !relationship.isTransient else { continue }
            if let join = schema.joinTable(for: relationship) {
                joins.append(JoinRelationship(slot: slot, relationship: relationship, table: join, dialect: dialect))
            } else if let owner = schema.ownerColumn(for: relationship) {
                owned.append(OwnedDestinations(slot: slot, owner: owner, dialect: dialect))
            } else if relationship.isOrdered, let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity,
                      let childTable = schema.table(for: destination), let order = childTable.orderColumnByProperty[ObjectIdentifier(inverse)] {
                let column = childTable.columns[order].name
                ordered.append(OrderedChildren(slot: slot, childTable: childTable, orderColumn: column,
                                               updateOrderSQL: SQLUpdate(childTable.name, set: [column], where: ["Z_PK"]).sql(in: dialect)))
            }
        }
        self.joinRelationships = joins
        self.orderedChildren = ordered
        self.ownedDestinations = owned
    }

    /// Whether saving a row of the entity writes anything besides the row (join-table pairs,
    /// `Z_FOK_` positions, owner columns).
    var writesRelationships: Bool {
        !joinRelationships.isEmpty || !orderedChildren.isEmpty || !ownedDestinations.isEmpty
    }

    /// `UPDATE T SET Z_OPT = ?, <columns> = ? WHERE Z_PK = ? AND Z_OPT = ?`, cached per column set.
    func updateSQL(columns: [Int]) -> String {
        if let sql = updateStatements.withLock({ $0[columns] }) { return sql }
        let sql = SQLUpdate(table.name, set: ["Z_OPT"] + columns.map { table.columns[$0].name }, where: ["Z_PK", "Z_OPT"]).sql(in: dialect)
        updateStatements.withLock { $0[columns] = sql }
        return sql
    }

    /// Binds a column's value for a row at a 1-based position (keys already permanent).
    @inline(__always)
    func bind(_ source: ColumnSource, in values: StoreValues, schema: SQLStoreSchema, to handle: SQLiteStatement, at index: Int32) {
        switch source {
        case .value(let slot):
            SQLiteRawBinding.bind(slot < values.count ? values[slot] : .null, to: handle, at: index)
        case .entityType(let slot):
            if slot < values.count, case .objectID(let id) = values[slot] {
                SQLiteRawBinding.bind(Int64(schema.entityNumber(of: id.entity)), to: handle, at: index)
            } else {
                SQLiteRawBinding.bind(.null, to: handle, at: index)
            }
        case .orderKey:
            SQLiteRawBinding.bind(.null, to: handle, at: index)
        case .compositeElement(let slot, let leaf, let count):
            SQLiteRawBinding.bind(Self.element(leaf, of: slot, count: count, in: values), to: handle, at: index)
        }
    }

    /// The value of a column for a row's values (keys already permanent).
    @inline(__always)
    func value(of source: ColumnSource, in values: StoreValues, schema: SQLStoreSchema) -> DatabaseValue {
        switch source {
        case .value(let slot):
            return slot < values.count ? SQLiteValueCoding.databaseValue(values[slot]) : .null
        case .entityType(let slot):
            guard slot < values.count, case .objectID(let id) = values[slot] else { return .null }
            return Int64(schema.entityNumber(of: id.entity)).databaseValue
        case .orderKey:
            return .null
        case .compositeElement(let slot, let leaf, let count):
            return SQLiteValueCoding.databaseValue(Self.element(leaf, of: slot, count: count, in: values))
        }
    }

    /// A composite element's value in a row's values (decoded per column: composites are few
    /// and small, so this stays cheaper than caching the decoded row).
    static func element(_ leaf: Int, of slot: Int, count: Int, in values: StoreValues) -> StoreValue {
        guard slot < values.count else { return .null }
        let leaves = CompositeCoding.leafValues(values[slot], count: count)
        return leaf < leaves.count ? leaves[leaf] : .null
    }
}
