import Foundation

/// How a model maps onto Apple's store layout: entity numbers, tables, columns, join tables and
/// the owner columns of to-many relationships without an inverse.
///
/// The layout is the same in any SQL database, so the lowering, the query builder and the write
/// plans all read it from here; only reading and writing a particular database (SQLite's stored
/// numbers, DDL execution, metadata) stays with its store.
///
/// Built once per store from the frozen model. Entity numbers come from the store's
/// `Z_PRIMARYKEY` when the store exists (so a store whose numbering differs from ours still
/// reads correctly), otherwise from `NSEntityDescription.entityNumber`.
///
/// `@unchecked Sendable`: every field is a `let` computed from a frozen model.
package final class SQLStoreSchema: @unchecked Sendable {
    package let model: NSManagedObjectModel
    /// The entities the store holds (its configuration), roots first as Apple numbers them.
    package let entities: [NSEntityDescription]
    private let numbers: [ObjectIdentifier: Int]
    private let entitiesByNumber: [Int: NSEntityDescription]
    private let tablesByRoot: [ObjectIdentifier: SQLTable]
    private let joinTablesByRelationship: [ObjectIdentifier: SQLJoinTable]
    /// Every table, in entity order.
    package let tables: [SQLTable]
    /// Every join table, in entity order.
    package let joinTables: [SQLJoinTable]
    private let ownerColumnsByRelationship: [ObjectIdentifier: SQLOwnerColumn]
    /// Every owner column of a to-many without an inverse, in entity order.
    package let ownerColumns: [SQLOwnerColumn]

    /// - Parameters:
    ///   - storedNumbers: `Z_NAME → Z_ENT` read from an existing store's `Z_PRIMARYKEY`.
    ///   - storedTables: the names of an existing store's tables (any case). A to-many without an
    ///     inverse whose join table (OpenCoreData's layout before Apple's was known) is among them
    ///     keeps being read and written there; otherwise it is in Apple's owner column.
    package init(model: NSManagedObjectModel, configurationEntities: [NSEntityDescription]? = nil, storedNumbers: [String: Int] = [:],
                 storedTables: Set<String> = []) {
        self.model = model
        let included = Set((configurationEntities ?? model.entities).map(ObjectIdentifier.init))
        let ordered = model.orderedEntities().filter { included.contains(ObjectIdentifier($0.rootEntity)) || included.contains(ObjectIdentifier($0)) }
        self.entities = ordered
        var numbers: [ObjectIdentifier: Int] = [:]
        var byNumber: [Int: NSEntityDescription] = [:]
        for entity in ordered {
            let number = entity.name.flatMap { storedNumbers[$0] } ?? entity.entityNumber
            numbers[ObjectIdentifier(entity)] = number
            byNumber[number] = entity
        }
        self.numbers = numbers
        self.entitiesByNumber = byNumber
        let number: (NSEntityDescription) -> Int = { numbers[ObjectIdentifier($0)] ?? $0.entityNumber }

        var tables: [SQLTable] = []
        var byRoot: [ObjectIdentifier: SQLTable] = [:]
        for root in ordered where root.superentity == nil {
            let table = SQLTable(root: root, entityNumber: number)
            tables.append(table)
            byRoot[ObjectIdentifier(root)] = table
        }
        self.tables = tables
        self.tablesByRoot = byRoot

        let legacyTables = Set(storedTables.map { $0.uppercased() })
        var joins: [SQLJoinTable] = []
        var byRelationship: [ObjectIdentifier: SQLJoinTable] = [:]
        var owners: [SQLOwnerColumn] = []
        var ownersByRelationship: [ObjectIdentifier: SQLOwnerColumn] = [:]
        var usedColumns = Dictionary(uniqueKeysWithValues: tables.map { table in
            (ObjectIdentifier(table), Set(["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)))
        })
        for entity in ordered {
            for property in entity.ownProperties {
                guard let relationship = property as? NSRelationshipDescription,
                      let owner = SQLJoinTable.owner(of: relationship, entityNumber: number), owner === relationship else { continue }
                let join = SQLJoinTable(owner: relationship, entityNumber: number)
                if SQLOwnerColumn.applies(to: relationship), !legacyTables.contains(join.name.uppercased()) {
                    guard let destination = relationship.destinationEntity, let table = byRoot[ObjectIdentifier(destination.rootEntity)] else { continue }
                    let key = ObjectIdentifier(table)
                    let name = SQLOwnerColumn.name(for: relationship, sourceNumber: number(entity), used: usedColumns[key] ?? [])
                    usedColumns[key, default: []].insert(name)
                    let column = SQLOwnerColumn(relationship: relationship, table: table, name: name, legacyJoinTableName: join.name)
                    owners.append(column)
                    ownersByRelationship[ObjectIdentifier(relationship)] = column
                    continue
                }
                joins.append(join)
                byRelationship[ObjectIdentifier(relationship)] = join
                if let inverse = relationship.inverseRelationship { byRelationship[ObjectIdentifier(inverse)] = join }
            }
        }
        self.joinTables = joins
        self.joinTablesByRelationship = byRelationship
        self.ownerColumns = owners
        self.ownerColumnsByRelationship = ownersByRelationship
    }

    // MARK: - Lookups

    /// The `Z_ENT` of an entity in this store.
    package func entityNumber(of entity: NSEntityDescription) -> Int {
        numbers[ObjectIdentifier(entity)] ?? entity.entityNumber
    }

    /// The entity with a `Z_ENT`, or nil for an unknown number.
    package func entity(number: Int) -> NSEntityDescription? {
        entitiesByNumber[number]
    }

    /// The table that holds an entity's rows.
    package func table(for entity: NSEntityDescription) -> SQLTable? {
        tablesByRoot[ObjectIdentifier(entity.rootEntity)]
    }

    /// The join table of a to-many relationship, if it is stored in one.
    package func joinTable(for relationship: NSRelationshipDescription) -> SQLJoinTable? {
        joinTablesByRelationship[ObjectIdentifier(relationship)]
    }

    /// The owner column of a to-many relationship without an inverse, if it is stored in one.
    package func ownerColumn(for relationship: NSRelationshipDescription) -> SQLOwnerColumn? {
        ownerColumnsByRelationship[ObjectIdentifier(relationship)]
    }

    /// The owner columns on a table.
    package func ownerColumns(on table: SQLTable) -> [SQLOwnerColumn] {
        ownerColumns.filter { $0.table === table }
    }

    /// The column on a to-many's destination table that holds the owner's key: the inverse
    /// to-one's foreign key, or the owner column of a to-many without an inverse. Nil for a
    /// relationship kept in a join table.
    package func keyColumn(of toMany: NSRelationshipDescription) -> (table: SQLTable, column: SQLColumn)? {
        guard toMany.isToMany, joinTable(for: toMany) == nil, let destination = toMany.destinationEntity,
              let table = table(for: destination) else { return nil }
        if let owner = ownerColumn(for: toMany) { return (table, owner.column) }
        guard let inverse = toMany.inverseRelationship, !inverse.isToMany, let column = table.valueColumn(for: inverse) else { return nil }
        return (table, column)
    }

    /// The `Z_ENT` values of an entity, and of its subentities when they are included.
    package func entityNumbers(of entity: NSEntityDescription, includingSubentities: Bool) -> [Int] {
        (includingSubentities ? entity.selfAndDescendants : [entity]).map(entityNumber(of:))
    }

    /// Whether a request for these entities must filter on `Z_ENT` (the table hosts others too).
    package func needsEntityFilter(_ entity: NSEntityDescription, includingSubentities: Bool) -> Bool {
        guard let table = table(for: entity) else { return false }
        let requested = includingSubentities ? entity.selfAndDescendants.count : 1
        return requested < table.entities.count
    }
}
